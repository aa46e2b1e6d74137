-- context-ls user commands. The server starts once
-- require('context_ls').setup({...}) has run; a command used before that
-- runs setup() with the defaults.
if vim.g.loaded_context_ls then
  return
end
vim.g.loaded_context_ls = true

if vim.fn.has('nvim-0.7') ~= 1 then
  vim.notify('context-ls needs Neovim 0.7 or later', vim.log.levels.ERROR)
  return
end

local function cl()
  return require('context_ls')
end

local command = vim.api.nvim_create_user_command

command('ContextCopy', function(o)
  cl().copy(o)
end, { range = true, nargs = '?', desc = 'context-ls: context pack for the range or the definition under the cursor into a register' })

command('ContextPreview', function(o)
  cl().preview(o)
end, { range = true, nargs = '*', desc = 'context-ls: preview the context pack (range, definition under the cursor, or a query): drop, pin, budget, then copy or insert' })

command('ContextQuery', function(o)
  cl().query(o.args)
end, { nargs = '*', desc = 'context-ls: context pack for a question into the clipboard register' })

command('ContextSearch', function(o)
  cl().search(o.args)
end, { nargs = '*', desc = 'context-ls: search the workspace (filters: lang:go kind:function path:GLOB)' })

command('ContextRelated', function(o)
  cl().related(o)
end, { range = true, desc = 'context-ls: related code of the definition under the cursor into the quickfix list' })

command('ContextCallers', function(o)
  cl().callers(o)
end, { range = true, desc = 'context-ls: callers of the definition under the cursor into the quickfix list' })

command('ContextCallees', function(o)
  cl().callees(o)
end, { range = true, desc = 'context-ls: definitions the definition under the cursor calls' })

command('ContextTests', function(o)
  cl().tests(o)
end, { range = true, desc = 'context-ls: tests of the definition under the cursor into the quickfix list' })

command('ContextSimilar', function(o)
  cl().similar(o)
end, { range = true, nargs = '*', desc = 'context-ls: code like the text, range or definition under the cursor (needs embeddings)' })

command('ContextResults', function(o)
  cl().results(o)
end, { range = true, desc = 'context-ls: results view of the definition under the cursor' })

command('ContextPin', function(o)
  cl().pin(o, 'pin')
end, { range = true, desc = 'context-ls: include the range or definition in every context pack' })

command('ContextUnpin', function(o)
  cl().pin(o, 'unpin')
end, { range = true, desc = 'context-ls: remove a pin' })

command('ContextPins', function()
  cl().pins()
end, { desc = 'context-ls: list the pins: open, unpin one, unpin all' })

command('ContextStats', function()
  cl().stats()
end, { desc = 'context-ls: index statistics' })

command('ContextReindex', function(o)
  cl().reindex(o.bang)
end, { bang = true, desc = 'context-ls: re-index the workspace (! skips the question)' })

command('ContextAgents', function(o)
  cl().agents(o.args)
end, { nargs = '?', desc = 'context-ls: MCP registration of this workspace for coding agents' })

command('ContextRestart', function()
  cl().restart()
end, { desc = 'context-ls: restart the server of this workspace' })
