-- Scratch buffers of located entries that stay until closed: the results
-- view (definitions, callers, callees, tests, related, each entry with its
-- location, reason, confidence or score), the pack preview and the pins
-- list (preview.lua builds their models). <CR> opens the entry under the
-- cursor, q closes; a view may add keys of its own. lines() is pure
-- (tested with golden files); show() puts a model into a buffer.
local M = {}

-- BUFFER is the name of the results buffer (the default of show()).
M.BUFFER = 'context-ls://results'

-- The model:
--   { title = 'Stock.Reserve', root = '/ws',
--     header = { 'lines under the title' },            (optional)
--     help = '<CR> opens …',                            (optional: the results view's)
--     groups = {
--       { name = 'Callers', error = nil, note = nil, align = false,
--         entries = { { item = <quickfix item>, name = 'main', detail = 'exact, receiver type Stock' } } } } }
-- An entry's item is a quickfix item (filename, lnum, col); its line shows
-- `where` (default: path:line relative to root), name and detail, or its
-- own columns `cols`. In a group with align, the columns line up (empty
-- columns are left out). Anything else an entry holds (data) is for the
-- keys of its view.

-- HELP is the results view's help line.
M.HELP = '<CR> opens the entry under the cursor, q closes'

-- entries_of[bufnr] maps the line numbers of a view buffer to its entries.
local entries_of = {}

-- rel is fname relative to root (else to the home or current directory).
function M.rel(root, fname)
  if root and fname:sub(1, #root + 1) == root .. '/' then
    return fname:sub(#root + 2)
  end
  return vim.fn.fnamemodify(fname, ':~:.')
end

local function columns(model, e)
  if e.cols then
    return e.cols
  end
  return { e.where or string.format('%s:%d', M.rel(model.root, e.item.filename), e.item.lnum), e.name or '', e.detail or '' }
end

-- entry_lines renders a group's entries: columns joined by two spaces,
-- padded to the widest of the group when align is set.
local function entry_lines(model, g)
  local rows, widths = {}, {}
  for i, e in ipairs(g.entries) do
    rows[i] = columns(model, e)
    for c, text in ipairs(rows[i]) do
      widths[c] = math.max(widths[c] or 0, vim.fn.strdisplaywidth(text))
    end
  end
  local out = {}
  for _, cols in ipairs(rows) do
    local parts = {}
    for c, text in ipairs(cols) do
      if g.align and widths[c] > 0 then
        local pad = c < #cols and string.rep(' ', widths[c] - vim.fn.strdisplaywidth(text)) or ''
        table.insert(parts, text .. pad)
      elseif not g.align and text ~= '' then
        table.insert(parts, text)
      end
    end
    local line = ('  ' .. table.concat(parts, '  ')):gsub('%s+$', '')
    table.insert(out, line)
  end
  return out
end

-- lines renders a model. It returns the buffer lines and the entry of each
-- line that has one (targets[lnum] = entry, lnum 1-based).
function M.lines(model)
  local out, targets = {}, {}
  table.insert(out, 'context-ls: ' .. (model.title ~= '' and model.title or 'results'))
  vim.list_extend(out, model.header or {})
  table.insert(out, model.help or M.HELP)
  for _, g in ipairs(model.groups) do
    table.insert(out, '')
    local n = #(g.entries or {})
    table.insert(out, string.format('%s (%d)', g.name, n))
    if g.error then
      table.insert(out, '  failed: ' .. g.error)
    elseif n == 0 then
      table.insert(out, '  none' .. (g.note and (': ' .. g.note) or ''))
    else
      for i, text in ipairs(entry_lines(model, g)) do
        table.insert(out, text)
        targets[#out] = g.entries[i]
      end
      if g.note then
        table.insert(out, '  ' .. g.note)
      end
    end
  end
  return out, targets
end

-- entry_at is the entry on line lnum (default: the cursor line) of a view
-- buffer, or nil.
function M.entry_at(bufnr, lnum)
  lnum = lnum or vim.api.nvim_win_get_cursor(0)[1]
  return (entries_of[bufnr] or {})[lnum]
end

-- from is the window a view was opened from (nil when it is gone).
function M.from(bufnr)
  local w = vim.b[bufnr].context_ls_from
  if w and vim.api.nvim_win_is_valid(w) then
    return w
  end
  return nil
end

-- open jumps to the entry of the cursor line in the window the view was
-- opened from (or a new split when that window is gone).
function M.open_entry(bufnr)
  local e = M.entry_at(bufnr)
  if not e then
    return false
  end
  local item = e.item
  local from = M.from(bufnr)
  if from and from ~= vim.api.nvim_get_current_win() then
    vim.api.nvim_set_current_win(from)
  else
    vim.cmd('aboveleft split')
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(item.filename))
  local last = vim.api.nvim_buf_line_count(0)
  vim.api.nvim_win_set_cursor(0, { math.min(item.lnum, last), math.max((item.col or 1) - 1, 0) })
  return true
end

-- show puts the model into a view buffer and shows it in a window below
-- the current one (reused when it is visible). opts (all optional):
--   name        the buffer name (default M.BUFFER)
--   keys        more buffer-local keys: { { lhs, function(bufnr), desc } }
--   from        the window the view belongs to (default: the current one,
--               unless it is the view's own)
--   keep_cursor keep the cursor line of a visible view (clamped)
--   at_entry    put the cursor on the first entry (default: line 1)
-- Returns the buffer.
function M.show(model, opts)
  opts = opts or {}
  local name = opts.name or M.BUFFER
  local from = opts.from or vim.api.nvim_get_current_win()
  local bufnr = vim.fn.bufnr(name)
  if bufnr == -1 then
    bufnr = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(bufnr, name)
    vim.bo[bufnr].bufhidden = 'hide'
    vim.bo[bufnr].swapfile = false
    vim.bo[bufnr].filetype = 'contextls'
    vim.keymap.set('n', '<CR>', function()
      M.open_entry(bufnr)
    end, { buffer = bufnr, desc = 'context-ls: open the entry under the cursor' })
    vim.keymap.set('n', 'q', '<Cmd>close<CR>', { buffer = bufnr, desc = 'context-ls: close this view' })
  end
  for _, k in ipairs(opts.keys or {}) do
    vim.keymap.set('n', k[1], function()
      k[2](bufnr)
    end, { buffer = bufnr, nowait = true, desc = 'context-ls: ' .. k[3] })
  end
  local lines, targets = M.lines(model)
  entries_of[bufnr] = targets
  vim.bo[bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  local win = vim.fn.bufwinid(bufnr)
  local row = 1
  if opts.at_entry then
    local first
    for lnum in pairs(targets) do
      first = math.min(first or lnum, lnum)
    end
    row = first or 1
  end
  if win == -1 then
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, bufnr)
    win = vim.api.nvim_get_current_win()
  else
    if opts.keep_cursor then
      row = math.min(vim.api.nvim_win_get_cursor(win)[1], #lines)
    end
    vim.api.nvim_set_current_win(win)
  end
  if from ~= win then
    vim.b[bufnr].context_ls_from = from
  end
  vim.api.nvim_win_set_cursor(win, { row, 0 })
  return bufnr
end

return M
