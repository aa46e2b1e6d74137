-- :checkhealth context_ls — the binary and its version (installed by the
-- build step, or on PATH), the ONNX Runtime, the embedding model and the
-- index as `context-ls doctor` finds them, the servers that run, and each
-- workspace's index and embeddings state (from contextLs.stats). Works with the health API of every Neovim from 0.7
-- (require('health').report_*) through vim.health.start/ok/… (0.10+).
local commands = require('context_ls.protocol').commands
local M = {}

local function api()
  local h = vim.health or require('health')
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    info = h.info or h.report_info,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
  }
end

-- STATS_TIMEOUT is how long (ms) a server may take to answer contextLs.stats.
M.STATS_TIMEOUT = 5000

-- DOCTOR_TIMEOUT is how long (ms) `context-ls doctor` may take (it reads
-- the whole index and embeds one sentence).
M.DOCTOR_TIMEOUT = 60000

-- DOCTOR_CHECKS are the parts of doctor's report shown here, in order.
M.DOCTOR_CHECKS = { 'runtime', 'model', 'index' }

-- run_doctor runs `binary doctor --json --root root` and returns its report
-- (the decoded JSON), or nil and why not.
function M.run_doctor(binary, root)
  local out = {}
  local job = vim.fn.jobstart({ binary, 'doctor', '--json', '--root', root }, {
    stdout_buffered = true,
    on_stdout = function(_, data)
      out = data
    end,
  })
  if job <= 0 then
    return nil, 'could not run ' .. binary
  end
  local code = vim.fn.jobwait({ job }, M.DOCTOR_TIMEOUT)[1]
  if code == -1 then
    vim.fn.jobstop(job)
    return nil, string.format('`%s doctor` took longer than %d s', binary, M.DOCTOR_TIMEOUT / 1000)
  end
  local ok, rep = pcall(vim.fn.json_decode, table.concat(out, '\n'))
  if not ok or type(rep) ~= 'table' or type(rep.checks) ~= 'table' then
    return nil, string.format('`%s doctor --json` gave no report (exit %d): a server older than the plugin?', binary, code)
  end
  return rep
end

-- doctor_report turns doctor's report into {level, text, advice} lines for
-- the runtime, the model and the index.
function M.doctor_report(rep)
  local levels = { ok = 'ok', info = 'info', warn = 'warn', fail = 'error' }
  local by_name = {}
  for _, c in ipairs(rep.checks or {}) do
    by_name[c.name] = c
  end
  local out = {}
  for _, name in ipairs(M.DOCTOR_CHECKS) do
    local c = by_name[name]
    if c then
      local fix = (c.fix ~= nil and c.fix ~= vim.NIL and c.fix ~= '') and c.fix or nil
      table.insert(out, { levels[c.status] or 'info', name .. ': ' .. tostring(c.summary), fix })
    end
  end
  return out
end

-- folder_report turns one folder of contextLs.stats into {level, text}
-- lines: the index state, then the embeddings state.
function M.folder_report(f)
  local util = require('context_ls.util')
  local out = {}
  local ix = f.indexing or {}
  local state = tostring(ix.state or 'unknown')
  local counts = string.format('%s files, %s definitions', util.group_digits(f.files), util.group_digits(f.symbols))
  if state == 'done' then
    table.insert(out, { 'ok', 'index: ' .. counts .. ((f.lastIndex and f.lastIndex ~= vim.NIL) and (', last full index ' .. f.lastIndex) or '') })
  elseif state == 'running' then
    table.insert(out, { 'info', string.format('index: indexing, %s / %s files so far (%s)', util.group_digits(ix.done), util.group_digits(ix.total), counts) })
  else
    table.insert(out, { 'warn', 'index: ' .. state .. ' (' .. counts .. '); :ContextReindex builds it again' })
  end
  local emb = require('context_ls.render').embeddings_text(f.embeddings)
  if emb == 'ready' then
    table.insert(out, { 'ok', 'embeddings: ready' })
  elseif emb == 'off' then
    table.insert(out, { 'info', 'embeddings: off (search uses BM25, symbol names and the call graph; :ContextSimilar needs them)' })
  elseif emb:find('^unavailable') then
    table.insert(out, { 'warn', 'embeddings: ' .. emb })
  else
    table.insert(out, { 'info', 'embeddings: ' .. emb })
  end
  return out
end

function M.check()
  local h = api()
  local cl = require('context_ls')
  local util = require('context_ls.util')
  h.start('context-ls')
  local v = vim.version()
  h.ok(string.format('Neovim %d.%d.%d', v.major, v.minor, v.patch))
  if cl.options == nil then
    h.warn('setup() has not run: nothing starts the server', { "add require('context_ls').setup({}) to your configuration" })
  end
  for _, p in ipairs(cl.problems or {}) do
    h.warn('setup(): ' .. p)
  end
  local opts = cl.options or require('context_ls.config').defaults()

  local binary = cl.server_binary(opts.cmd)
  if not binary then
    h.error(string.format('server binary %q not found', opts.cmd[1]), {
      'install it: ' .. cl.INSTALL_URL,
      "or give its path: require('context_ls').setup({ cmd = { '/path/to/context-ls', 'serve' } })",
    })
  else
    local how = binary == cl.installed_server() and 'installed by the build step' or 'found on PATH or as cmd'
    local out = vim.fn.system({ binary, 'version' })
    if vim.v.shell_error == 0 then
      h.ok(string.format('server binary: %s (%s, %s)', binary, vim.trim(out), how))
    else
      h.warn(string.format('server binary: %s, but `%s version` failed: %s', binary, binary, vim.trim(out)))
    end
  end

  local clients = cl.running_clients()
  if binary then
    local root = clients[1] and clients[1].config.root_dir or vim.fn.getcwd()
    local rep, err = M.run_doctor(binary, root)
    if not rep then
      h.warn('runtime, model and index unknown: ' .. err)
    else
      for _, line in ipairs(M.doctor_report(rep)) do
        local level, text, fix = line[1], line[2], line[3]
        if (level == 'warn' or level == 'error') and fix then
          h[level](text, { fix })
        else
          h[level](text)
        end
      end
    end
  end
  if #clients == 0 then
    local why = {}
    for root, code in pairs(cl.crashed_roots()) do
      table.insert(why, string.format('the server for %s exited with code %d; :ContextRestart starts it again', root, code))
    end
    h.warn('no context-ls server is running', #why > 0 and why or { 'open a file under a workspace root (root_markers) to start it' })
    return
  end
  for _, c in ipairs(clients) do
    local root = c.config.root_dir or '?'
    h.start('context-ls: ' .. root)
    h.ok(string.format('server running (client %d, %d buffer%s attached)', c.id, vim.tbl_count(c.attached_buffers or {}),
      vim.tbl_count(c.attached_buffers or {}) == 1 and '' or 's'))
    local resp, err = util.request_sync(c, 'workspace/executeCommand', { command = commands.stats, arguments = {} },
      M.STATS_TIMEOUT)
    if not resp then
      h.warn('index state unknown: ' .. tostring(err or 'no answer'))
    elseif resp.err then
      h.warn('index state unknown: ' .. require('context_ls.render').clean_error(tostring(resp.err.message)))
    else
      for _, f in ipairs(resp.result.folders or {}) do
        for _, line in ipairs(M.folder_report(f)) do
          h[line[1]](line[2])
        end
      end
    end
  end
end

return M
