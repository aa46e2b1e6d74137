-- Buffer-local mappings set when the server attaches to a buffer: hover
-- and definition through the LSP client (which Neovim 0.7 does not map by
-- itself), Ctrl-] through 'tagfunc', and the plugin's commands. Which keys
-- are mapped is the `mappings` option (config.MAPPINGS has the defaults).
local config = require('context_ls.config')

local M = {}

-- COMMANDS is the user command each command action runs.
M.COMMANDS = {
  callers = 'ContextCallers',
  callees = 'ContextCallees',
  results = 'ContextResults',
  tests = 'ContextTests',
  related = 'ContextRelated',
  similar = 'ContextSimilar',
  copy = 'ContextCopy',
  preview = 'ContextPreview',
  query = 'ContextQuery',
  search = 'ContextSearch',
  pin = 'ContextPin',
  unpin = 'ContextUnpin',
  pins = 'ContextPins',
  stats = 'ContextStats',
  agents = 'ContextAgents',
}

-- TAGFUNC is the 'tagfunc' that asks LSP servers for definitions.
M.TAGFUNC = 'v:lua.vim.lsp.tagfunc'

-- rhs is what an action runs in a mode: the LSP client for hover and
-- definition, the user command otherwise (over the visual selection in
-- visual mode).
function M.rhs(action, mode)
  if action == 'hover' then
    return function()
      vim.lsp.buf.hover()
    end
  elseif action == 'definition' then
    return function()
      vim.lsp.buf.definition()
    end
  end
  local cmd = assert(M.COMMANDS[action], 'no command for mapping ' .. action)
  if mode == 'x' then
    return ':' .. cmd .. '<CR>'
  end
  return '<Cmd>' .. cmd .. '<CR>'
end

-- apply sets the mappings of `mappings` (the option: a table, or false for
-- none) in bufnr, once per buffer, and sets 'tagfunc' when it is empty and
-- mappings.tagfunc is true. It returns the left-hand sides it mapped.
function M.apply(bufnr, mappings)
  if mappings == false or mappings == nil or vim.b[bufnr].context_ls_mapped then
    return {}
  end
  local done = {}
  for _, m in ipairs(config.MAPPINGS) do
    local action, modes, desc = m[1], m[3], m[4]
    local lhs = mappings[action]
    if lhs then
      for _, mode in ipairs(modes) do
        vim.keymap.set(mode, lhs, M.rhs(action, mode), { buffer = bufnr, silent = true, desc = 'context-ls: ' .. desc })
      end
      table.insert(done, lhs)
    end
  end
  if mappings.tagfunc and vim.bo[bufnr].tagfunc == '' then
    vim.bo[bufnr].tagfunc = M.TAGFUNC
  end
  vim.b[bufnr].context_ls_mapped = true
  return done
end

return M
