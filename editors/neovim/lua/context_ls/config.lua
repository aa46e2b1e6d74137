-- Options of require('context_ls').setup(), their defaults and validation,
-- and the server settings derived from them.
local M = {}

-- SERVER_KEYS are the settings the server understands (see docs/commands.md
-- and the server's Settings); anything else would be reported as unknown.
M.SERVER_KEYS = { 'dbPath', 'ignore', 'maxFileSize', 'embeddings', 'modelPath', 'budgetTokens', 'logLevel' }

local server_types = {
  dbPath = 'string',
  ignore = 'table',
  maxFileSize = 'number',
  embeddings = 'boolean',
  modelPath = 'string',
  budgetTokens = 'number',
  logLevel = 'string',
}

M.PACK_FORMATS = { markdown = true, xml = true, json = true, plain = true }

-- defaults returns a fresh copy of the default options.
function M.defaults()
  return {
    -- the command that starts the server; cmd[1] is looked up on PATH
    cmd = { 'context-ls', 'serve' },
    -- directories holding one of these mark a workspace root (nearest wins)
    root_markers = {
      '.context-ls.toml', '.git', 'go.mod', 'package.json', 'pyproject.toml', 'setup.py',
      'Cargo.toml', 'pom.xml', 'build.gradle', 'composer.json', 'Gemfile', '.hg',
    },
    -- filetypes to attach to; nil: every file buffer under a root
    filetypes = nil,
    -- start the server when a file under a root is opened
    autostart = true,
    -- server settings sent as initializationOptions and on update_settings()
    settings = {},
    -- pack format: markdown, xml, json or plain
    pack_format = 'markdown',
    -- register :ContextCopy and :ContextQuery write to; nil: '+' when a
    -- clipboard provider exists, else '"'
    register = nil,
    -- hits asked for by :ContextSearch (1 to 100)
    search_results = 30,
    -- open the quickfix window after filling it
    open_quickfix = true,
    -- progress display: 'echo', 'notify' or false
    progress = 'echo',
    -- minimum milliseconds between two progress messages of one operation
    progress_interval = 200,
    -- extra options merged into the client config (handlers, on_attach, …)
    client = {},
    -- buffer-local mappings set when the server attaches (see M.MAPPINGS);
    -- false: none at all
    mappings = M.default_mappings(),
    -- where location lists go: 'quickfix', 'telescope', 'fzf-lua' or 'auto'
    -- (Telescope, else fzf-lua, else the quickfix list)
    picker = 'quickfix',
  }
end

-- MAPPINGS lists the mappable actions in the order :help context-ls
-- documents them: key, default left-hand side, modes, description.
-- `tagfunc` is not a key but a switch: Ctrl-] and :tag ask the server.
M.MAPPINGS = {
  { 'hover', 'K', { 'n' }, 'hover: the definition and its related code' },
  { 'definition', 'gd', { 'n' }, 'go to the definition' },
  { 'callers', 'grc', { 'n' }, 'callers of the definition under the cursor' },
  { 'callees', 'gro', { 'n' }, 'callees of the definition under the cursor' },
  { 'results', '<leader>Cr', { 'n', 'x' }, 'results view: definitions, callers, callees, tests, related' },
  { 'tests', '<leader>Ct', { 'n' }, 'tests of the definition under the cursor' },
  { 'related', '<leader>CR', { 'n', 'x' }, 'related code into the picker' },
  { 'similar', '<leader>Cm', { 'n', 'x' }, 'code like this (needs embeddings)' },
  { 'copy', '<leader>Cc', { 'n', 'x' }, 'context pack into the default register' },
  { 'preview', '<leader>Cv', { 'n', 'x' }, 'preview the context pack: drop, pin, budget, then copy or insert' },
  { 'query', '<leader>Cq', { 'n' }, 'context pack for a question' },
  { 'search', '<leader>Cs', { 'n' }, 'search the workspace' },
  { 'pin', '<leader>Cp', { 'n', 'x' }, 'pin into every context pack' },
  { 'unpin', '<leader>Cu', { 'n', 'x' }, 'remove a pin' },
  { 'pins', '<leader>CP', { 'n' }, 'list the pins' },
  { 'stats', '<leader>Ci', { 'n' }, 'index statistics' },
  { 'agents', '<leader>Ca', { 'n' }, 'MCP registration for coding agents' },
}

-- default_mappings returns the default mappings table: action = lhs, plus
-- tagfunc = true.
function M.default_mappings()
  local out = { tagfunc = true }
  for _, m in ipairs(M.MAPPINGS) do
    out[m[1]] = m[2]
  end
  return out
end

M.PICKERS = { quickfix = true, telescope = true, ['fzf-lua'] = true, auto = true }

-- merge_mappings lays user mappings over the defaults: a key set to false
-- (or '') is not mapped; the whole option false maps nothing.
local function merge_mappings(user, problems)
  if user == false then
    return false
  end
  local out = M.default_mappings()
  for k, v in pairs(user) do
    if out[k] == nil then
      table.insert(problems, string.format('mappings.%s: not a context-ls mapping (see :help context-ls-mappings)', tostring(k)))
    elseif k == 'tagfunc' and type(v) ~= 'boolean' then
      table.insert(problems, 'mappings.tagfunc: expected boolean, got ' .. type(v))
    elseif k ~= 'tagfunc' and v ~= false and type(v) ~= 'string' then
      table.insert(problems, string.format('mappings.%s: expected a key sequence or false, got %s', k, type(v)))
    else
      out[k] = (v ~= '') and v or false
    end
  end
  return out
end

-- merge merges user options over the defaults. It returns the options
-- and a list of problems (unknown or mistyped keys keep their default).
function M.merge(user)
  local opts = M.defaults()
  local problems = {}
  if user == nil then
    return opts, problems
  end
  if type(user) ~= 'table' then
    return opts, { 'setup() expects a table of options, got ' .. type(user) }
  end
  local want = {
    cmd = 'table', root_markers = 'table', filetypes = 'table', autostart = 'boolean',
    settings = 'table', pack_format = 'string', register = 'string', search_results = 'number',
    open_quickfix = 'boolean', progress = 'string|boolean', progress_interval = 'number', client = 'table',
    mappings = 'table|boolean', picker = 'string',
  }
  for k, v in pairs(user) do
    local t = want[k]
    if t == nil then
      table.insert(problems, string.format('unknown option %q ignored', tostring(k)))
    elseif not t:find(type(v), 1, true) then
      table.insert(problems, string.format('option %s: expected %s, got %s', k, t, type(v)))
    else
      opts[k] = v
    end
  end
  if type(opts.cmd[1]) ~= 'string' or opts.cmd[1] == '' then
    table.insert(problems, 'option cmd: expected a list starting with the server binary')
    opts.cmd = M.defaults().cmd
  end
  if not M.PACK_FORMATS[opts.pack_format] then
    table.insert(problems, string.format('option pack_format: %q is not markdown, xml, json or plain', opts.pack_format))
    opts.pack_format = 'markdown'
  end
  if opts.progress ~= false and opts.progress ~= 'echo' and opts.progress ~= 'notify' then
    table.insert(problems, 'option progress: expected "echo", "notify" or false')
    opts.progress = 'echo'
  end
  if not M.PICKERS[opts.picker] then
    table.insert(problems, string.format('option picker: %q is not quickfix, telescope, fzf-lua or auto', opts.picker))
    opts.picker = 'quickfix'
  end
  if opts.mappings == true then
    opts.mappings = M.default_mappings()
  elseif user.mappings ~= nil then
    opts.mappings = merge_mappings(opts.mappings, problems)
  end
  opts.search_results = math.max(1, math.min(100, math.floor(opts.search_results)))
  local settings, sp = M.server_settings(opts.settings)
  opts.settings = settings
  vim.list_extend(problems, sp)
  return opts, problems
end

-- server_settings keeps the known server keys of t with the right types.
function M.server_settings(t)
  local out, problems = {}, {}
  for k, v in pairs(t or {}) do
    local want = server_types[k]
    if want == nil then
      table.insert(problems, string.format('settings.%s: not a context-ls server setting (known: %s)', tostring(k), table.concat(M.SERVER_KEYS, ', ')))
    elseif type(v) ~= want then
      table.insert(problems, string.format('settings.%s: expected %s, got %s', k, want, type(v)))
    else
      out[k] = v
    end
  end
  return out, problems
end

-- push_settings is the didChangeConfiguration payload: every server key,
-- vim.NIL for keys not set (the server gives them their default, which
-- leaves .context-ls.toml values alone).
function M.push_settings(settings)
  local out = {}
  for _, k in ipairs(M.SERVER_KEYS) do
    if settings[k] == nil then
      out[k] = vim.NIL
    else
      out[k] = settings[k]
    end
  end
  return out
end

return M
