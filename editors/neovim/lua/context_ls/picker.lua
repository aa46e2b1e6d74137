-- Where lists of locations go: the quickfix list (the default), Telescope
-- or fzf-lua when the user asks for them (option `picker`) and they are
-- installed. Every picker gets the same quickfix items ({filename, lnum,
-- col, end_lnum, text}); the picker modules are looked up through a
-- `require` function so that tests can hand in fakes.
local M = {}

-- MODULES are the modules each picker needs.
M.MODULES = {
  telescope = { 'telescope.pickers', 'telescope.finders', 'telescope.config', 'telescope.make_entry' },
  ['fzf-lua'] = { 'fzf-lua' },
}

local function load(name, req)
  local mods = {}
  for _, m in ipairs(M.MODULES[name]) do
    local ok, mod = pcall(req, m)
    if not ok or mod == nil then
      return nil
    end
    mods[m] = mod
  end
  return mods
end

-- select returns the picker to use for a preference ('quickfix',
-- 'telescope', 'fzf-lua' or 'auto'), its modules, and a warning when the
-- preferred picker is not installed (the quickfix list is used then).
function M.select(preference, req)
  req = req or require
  if preference == 'auto' then
    for _, name in ipairs({ 'telescope', 'fzf-lua' }) do
      local mods = load(name, req)
      if mods then
        return name, mods
      end
    end
    return 'quickfix', nil
  end
  if M.MODULES[preference] then
    local mods = load(preference, req)
    if mods then
      return preference, mods
    end
    return 'quickfix', nil, string.format('picker %s is not installed; using the quickfix list', preference)
  end
  return 'quickfix', nil
end

-- fzf_line is how an item is shown to fzf-lua: "path:line:col: text",
-- the form its file actions and previewer parse.
function M.fzf_line(it)
  return string.format('%s:%d:%d: %s', vim.fn.fnamemodify(it.filename, ':~:.'), it.lnum, it.col or 1, it.text or '')
end

local function telescope(mods, title, items)
  local conf = mods['telescope.config'].values
  mods['telescope.pickers'].new({}, {
    prompt_title = title,
    finder = mods['telescope.finders'].new_table({
      results = items,
      entry_maker = mods['telescope.make_entry'].gen_from_quickfix({}),
    }),
    previewer = conf.qflist_previewer({}),
    sorter = conf.generic_sorter({}),
  }):find()
end

local function fzf(mods, title, items)
  local fzf_lua = mods['fzf-lua']
  local lines = {}
  for _, it in ipairs(items) do
    table.insert(lines, M.fzf_line(it))
  end
  fzf_lua.fzf_exec(lines, {
    prompt = title .. '> ',
    previewer = 'builtin',
    actions = { ['default'] = fzf_lua.actions.file_edit_or_qf },
  })
end

-- quickfix fills the quickfix list and opens its window (open = true),
-- leaving the cursor where it was.
function M.quickfix(title, items, open)
  vim.fn.setqflist({}, ' ', { title = title, items = items })
  if open then
    local win = vim.api.nvim_get_current_win()
    vim.cmd('botright copen')
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_set_current_win(win)
    end
  end
end

-- show shows items (never empty: say "no results" instead) in the picker
-- that select() chose. Returns the name of the picker used and a warning
-- or nil.
function M.show(preference, title, items, opts)
  opts = opts or {}
  local name, mods, warning = M.select(preference, opts.require)
  if name == 'telescope' then
    telescope(mods, title, items)
  elseif name == 'fzf-lua' then
    fzf(mods, title, items)
  else
    M.quickfix(title, items, opts.open_quickfix)
  end
  return name, warning
end

return M
