-- Generated from service/ops.go and lsp/commands.go by `go test ./lsp -run TestGenerated -update`; do not edit.
-- The server's command contract (docs/commands.md): command names, arguments, rules.
local M = {}

-- commands maps an operation to its workspace/executeCommand name.
M.commands = {
  callees = 'contextLs.callees',
  callers = 'contextLs.callers',
  definition = 'contextLs.definition',
  pack = 'contextLs.contextPack',
  pin = 'contextLs.pin',
  pins = 'contextLs.pins',
  references = 'contextLs.references',
  reindex = 'contextLs.reindex',
  related = 'contextLs.relatedContext',
  search = 'contextLs.search',
  similar = 'contextLs.similar',
  stats = 'contextLs.stats',
  status = 'contextLs.status',
  tests = 'contextLs.tests',
  unpin = 'contextLs.unpin',
}

-- args lists the arguments of each command besides the place arguments
-- (textDocument, uri, position, range) and folder.
M.args = {
  callees = { 'symbol', 'limit', 'guesses' },
  callers = { 'symbol', 'limit', 'guesses' },
  pack = { 'query', 'symbol', 'budget', 'format', 'task', 'exclude' },
  pin = { 'symbol', 'all' },
  pins = {},
  references = { 'symbol', 'limit', 'declaration' },
  reindex = { 'paths', 'confirm', 'dryRun' },
  related = { 'symbol', 'k', 'budget' },
  search = { 'query', 'k', 'paths', 'languages', 'kinds', 'minScore' },
  similar = { 'snippet', 'symbol', 'k', 'paths', 'languages' },
  stats = {},
  tests = { 'symbol', 'limit', 'guesses' },
  unpin = { 'symbol', 'all' },
}

-- limits gives the range and default of every numeric argument.
M.limits = {
  callees = { limit = { min = 1, max = 1000, default = 50 } },
  callers = { limit = { min = 1, max = 1000, default = 50 } },
  pack = { budget = { min = 100, max = 1000000 } },
  references = { limit = { min = 1, max = 100000, default = 500 } },
  related = { k = { min = 1, max = 100, default = 20 }, budget = { min = 1, max = 1000000 } },
  search = { k = { min = 1, max = 100, default = 10 }, minScore = { min = 0, max = 1 } },
  similar = { k = { min = 1, max = 100, default = 10 } },
  tests = { limit = { min = 1, max = 1000, default = 50 } },
}

return M
