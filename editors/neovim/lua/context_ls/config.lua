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
  }
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
