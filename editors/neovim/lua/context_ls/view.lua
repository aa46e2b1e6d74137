-- The results view: a scratch buffer that stays, with one group of entries
-- per kind of result (definitions, callers, callees, tests, related), each
-- entry with its location, reason, confidence or score; <CR> opens the
-- entry under the cursor. lines() is pure (tested with a golden file);
-- show() puts a model into the buffer. Other views of located entries
-- (a pack preview, the pins list) are the same model with other groups.
local M = {}

-- BUFFER is the name of the results buffer.
M.BUFFER = 'context-ls://results'

-- The model:
--   { title = 'Stock.Reserve', root = '/ws', groups = {
--       { name = 'Callers', error = nil, note = nil,
--         entries = { { item = <quickfix item>, name = 'main', detail = 'exact, receiver type Stock' } } } } }
-- An entry's item is a quickfix item (filename, lnum, col).

local function rel(root, fname)
  if root and fname:sub(1, #root + 1) == root .. '/' then
    return fname:sub(#root + 2)
  end
  return vim.fn.fnamemodify(fname, ':~:.')
end

-- lines renders a model. It returns the buffer lines and the entry of each
-- line that has one (targets[lnum] = item, lnum 1-based).
function M.lines(model)
  local out, targets = {}, {}
  table.insert(out, 'context-ls: ' .. (model.title ~= '' and model.title or 'results'))
  table.insert(out, '<CR> opens the entry under the cursor, q closes')
  for _, g in ipairs(model.groups) do
    table.insert(out, '')
    local n = #(g.entries or {})
    table.insert(out, string.format('%s (%d)', g.name, n))
    if g.error then
      table.insert(out, '  failed: ' .. g.error)
    elseif n == 0 then
      table.insert(out, '  none' .. (g.note and (': ' .. g.note) or ''))
    else
      for _, e in ipairs(g.entries) do
        local where = string.format('%s:%d', rel(model.root, e.item.filename), e.item.lnum)
        local text = '  ' .. where .. '  ' .. e.name
        if e.detail and e.detail ~= '' then
          text = text .. '  ' .. e.detail
        end
        table.insert(out, text)
        targets[#out] = e.item
      end
      if g.note then
        table.insert(out, '  ' .. g.note)
      end
    end
  end
  return out, targets
end

-- open jumps to the entry of the cursor line in the window the view was
-- opened from (or a new split when that window is gone).
function M.open_entry(bufnr)
  local targets = vim.b[bufnr].context_ls_targets or {}
  local item = targets[tostring(vim.api.nvim_win_get_cursor(0)[1])]
  if not item then
    return false
  end
  local from = vim.b[bufnr].context_ls_from
  if from and vim.api.nvim_win_is_valid(from) and from ~= vim.api.nvim_get_current_win() then
    vim.api.nvim_set_current_win(from)
  else
    vim.cmd('aboveleft split')
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(item.filename))
  local last = vim.api.nvim_buf_line_count(0)
  vim.api.nvim_win_set_cursor(0, { math.min(item.lnum, last), math.max((item.col or 1) - 1, 0) })
  return true
end

-- show puts the model into the results buffer and shows it in a window
-- below the current one (reused when it is visible). Returns the buffer.
function M.show(model)
  local from = vim.api.nvim_get_current_win()
  local bufnr = vim.fn.bufnr(M.BUFFER)
  if bufnr == -1 then
    bufnr = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(bufnr, M.BUFFER)
    vim.bo[bufnr].bufhidden = 'hide'
    vim.bo[bufnr].swapfile = false
    vim.bo[bufnr].filetype = 'contextls'
    vim.keymap.set('n', '<CR>', function()
      M.open_entry(bufnr)
    end, { buffer = bufnr, desc = 'context-ls: open the entry under the cursor' })
    vim.keymap.set('n', 'q', '<Cmd>close<CR>', { buffer = bufnr, desc = 'context-ls: close the results view' })
  end
  local lines, targets = M.lines(model)
  local keyed = {}
  for lnum, item in pairs(targets) do
    keyed[tostring(lnum)] = item -- a b: variable keeps string keys only
  end
  vim.b[bufnr].context_ls_targets = keyed
  vim.bo[bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  local win = vim.fn.bufwinid(bufnr)
  if win == -1 then
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, bufnr)
    win = vim.api.nvim_get_current_win()
  else
    vim.api.nvim_set_current_win(win)
  end
  if from ~= win then
    vim.b[bufnr].context_ls_from = from
  end
  vim.api.nvim_win_set_cursor(win, { 1, 0 })
  return bufnr
end

return M
