-- The plugin as a plugin manager installs it: build.sh (lazy.nvim's build
-- step) has put a release archive's server into the plugin's server/, PATH
-- holds no context-ls, and the configuration is the README's setup({}).
-- The server the build step installed must start, index (embeddings
-- included when the archive carries a model) and :checkhealth context_ls
-- must report it, the runtime and model beside it, and a healthy index.
-- run.sh runs it headless on every Neovim (`nvim --headless -u
-- tests/install.lua`) with CONTEXT_LS_PLUGIN the installed plugin copy.
local plugin = os.getenv('CONTEXT_LS_PLUGIN')
local root = os.getenv('CONTEXT_LS_ROOT')
local out = os.getenv('CONTEXT_LS_OUT')
local TIMEOUT = 60000

vim.opt.runtimepath:prepend(plugin)
vim.opt.swapfile = false
vim.cmd('runtime plugin/context_ls.lua')
require('context_ls').setup({})

local harness = dofile(plugin .. '/tests/harness.lua')
local util = require('context_ls.util')
local check = harness.check

local function scenario()
  local cl = require('context_ls')
  local installed = plugin .. '/server/bin/context-ls'
  check('no context-ls on PATH', vim.fn.exepath('context-ls') == '', vim.fn.exepath('context-ls'))
  check('the build step installed the server', cl.installed_server() == installed, cl.installed_server())
  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/inventory/stock.go'))
  local buf = vim.api.nvim_get_current_buf()
  local client
  vim.wait(TIMEOUT, function()
    client = cl.client(buf)
    return client ~= nil
  end, 20)
  check('the server started for the workspace', client ~= nil and client.config.root_dir == root, client and client.config.root_dir)
  if not client then
    return
  end
  check('it is the installed server', client.config.cmd[1] == installed, vim.inspect(client.config.cmd))
  local carries_model = vim.fn.filereadable(plugin .. '/server/models/use-lite/model.onnx') == 1
  local state
  local ready = vim.wait(TIMEOUT, function()
    local resp = util.request_sync(client, 'workspace/executeCommand', { command = 'contextLs.stats', arguments = {} }, 5000)
    local f = resp and resp.result and resp.result.folders and resp.result.folders[1]
    state = f and f.indexing and f.indexing.state .. ' / ' .. tostring(f.embeddings and f.embeddings.state)
    return f ~= nil and f.indexing.state == 'done' and (not carries_model or (f.embeddings and f.embeddings.state == 'ready'))
  end, 500)
  check('indexed' .. (carries_model and ', embeddings ready' or ''), ready, state)

  vim.cmd('checkhealth context_ls')
  local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  local want = {
    'server binary: ' .. installed .. ' (context-ls 0.',
    'installed by the build step',
    'runtime: ONNX Runtime 1.24.1 loaded from ' .. plugin .. '/server/lib/libonnxruntime.so.1 (beside the binary)',
    'index: healthy: 11 files',
    'server running (client ' .. client.id,
  }
  if carries_model then
    table.insert(want, 'model: use-lite (512 dims) in ' .. plugin .. '/server/models/use-lite (beside the binary)')
    table.insert(want, 'embeddings: ready')
  end
  for _, w in ipairs(want) do
    check('checkhealth: ' .. w, report:find(w, 1, true) ~= nil, report)
  end
  if carries_model then
    check('checkhealth: no errors or warnings', not report:find('ERROR') and not report:find('WARNING'), report)
  else
    -- built without ../shared: the model is missing, said with the way out
    local others = {}
    for _, line in ipairs(vim.split(report, '\n')) do
      if line:find('WARNING') and not line:find('model use-lite is not installed', 1, true) then
        table.insert(others, line)
      end
    end
    check('checkhealth: the missing model is the one thing warned about', report:find('model: model use-lite is not installed', 1, true) ~= nil
      and #others == 0 and not report:find('ERROR'), report)
  end
  vim.cmd('tabclose')
end

harness.run('installed by the build step', out, scenario)
