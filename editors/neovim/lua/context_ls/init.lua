-- context-ls for Neovim: starts `context-ls serve` for the workspace root of
-- the files you open (with or without nvim-lspconfig) and exposes its
-- commands: context packs into a register, search, related code, callers
-- and tests in the quickfix list, pins, stats and reindex.
--
-- Works on Neovim 0.7.2 and later: newer APIs (vim.lsp.start,
-- vim.lsp.get_clients, client:request) are used only when present.
local config = require('context_ls.config')
local args = require('context_ls.args')
local render = require('context_ls.render')
local progress = require('context_ls.progress')
local rootmod = require('context_ls.root')
local util = require('context_ls.util')

local M = {}

-- INSTALL_URL is where the install instructions are.
M.INSTALL_URL = 'https://github.com/context-ls/context-ls#editors'

-- Client names: ours, and the one nvim-lspconfig uses.
M.NAMES = { ['context-ls'] = true, ['context_ls'] = true }

-- options in effect (nil until setup)
M.options = nil

-- last is the outcome of the latest command: {seq, command, err, result}.
-- A User ContextLsResult autocmd fires after each update.
M.last = { seq = 0 }

local clients_by_root = {}
-- roots whose server exited with an error: not restarted until :ContextRestart
local crashed = {}
local warned_missing = false

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO)
end

-- show_message shows the server's window/showMessage through vim.notify
-- (Neovim 0.7 writes warnings to stdout, where a UI may hide them).
local function show_message(_, result, _, _)
  if type(result) ~= 'table' or result.message == nil then
    return vim.NIL
  end
  local levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.DEBUG }
  local level = levels[result.type] or vim.log.levels.INFO
  local msg = tostring(result.message)
  if not msg:find('^context%-ls') then
    msg = 'context-ls: ' .. msg
  end
  vim.schedule(function()
    notify(msg, level)
  end)
  return vim.NIL
end

M.show_message = show_message

local function record(command, err, result)
  M.last = { seq = M.last.seq + 1, command = command, err = err, result = result }
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'ContextLsResult', modeline = false })
end

-- ensure runs setup() with defaults when it has not run.
function M.ensure()
  if M.options == nil then
    M.setup({})
  end
  return M.options
end

-- server_binary resolves cmd[1] (~ expanded) to an executable path, or nil.
function M.server_binary(cmd)
  local exe = vim.fn.expand(cmd[1])
  if vim.fn.executable(exe) == 1 then
    local p = vim.fn.exepath(exe)
    return p ~= '' and p or exe
  end
  return nil
end

-- client_config is the LSP client configuration for a workspace root.
function M.client_config(root, binary)
  local opts = M.ensure()
  local cmd = vim.deepcopy(opts.cmd)
  cmd[1] = binary
  local conf = {
    name = 'context-ls',
    cmd = cmd,
    root_dir = root,
    workspace_folders = { { uri = util.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
    init_options = vim.deepcopy(opts.settings),
    settings = { contextLs = config.push_settings(opts.settings) },
    offset_encoding = 'utf-16',
    handlers = { ['$/progress'] = progress.handler, ['window/showMessage'] = show_message },
    flags = { debounce_text_changes = 150 },
    on_exit = function(code, signal)
      for r, id in pairs(clients_by_root) do
        if r == root and id then
          clients_by_root[r] = nil
        end
      end
      if code ~= 0 and signal ~= 15 then
        crashed[root] = code
        vim.schedule(function()
          notify(string.format('context-ls: the server for %s exited with code %d (see :LspLog); :ContextRestart starts it again',
            root, code), vim.log.levels.WARN)
        end)
      end
    end,
  }
  return vim.tbl_deep_extend('force', conf, opts.client or {})
end

local function attachable(bufnr, opts)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= '' then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return nil
  end
  if opts.filetypes and not vim.tbl_contains(opts.filetypes, vim.bo[bufnr].filetype) then
    return nil
  end
  return name
end

-- attach starts (or reuses) the client for the buffer's workspace root and
-- attaches the buffer. It returns the client id, or nil with a reason.
function M.attach(bufnr)
  local opts = M.ensure()
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local name = attachable(bufnr, opts)
  if not name then
    return nil, 'not a file buffer'
  end
  local root = rootmod.find(name, opts.root_markers)
  if not root then
    return nil, 'no workspace root (none of ' .. table.concat(opts.root_markers, ', ') .. ') above ' .. name
  end
  if crashed[root] then
    return nil, string.format('the server for %s exited with code %d; :ContextRestart starts it again', root, crashed[root])
  end
  local binary = M.server_binary(opts.cmd)
  if not binary then
    if not warned_missing then
      warned_missing = true
      notify(string.format('context-ls: the server binary %q was not found. Install it (%s) or set cmd in setup().', opts.cmd[1],
        M.INSTALL_URL), vim.log.levels.ERROR)
    end
    return nil, 'the server binary ' .. opts.cmd[1] .. ' was not found'
  end
  local id = clients_by_root[root]
  if id and not vim.lsp.get_client_by_id(id) then
    id = nil
  end
  if vim.lsp.start and not id then
    id = vim.lsp.start(M.client_config(root, binary), {
      bufnr = bufnr,
      reuse_client = function(client, conf)
        return client.name == conf.name and client.config.root_dir == conf.root_dir
      end,
    })
    clients_by_root[root] = id
    return id
  end
  if not id then
    id = vim.lsp.start_client(M.client_config(root, binary))
    if not id then
      return nil, 'the client did not start'
    end
    clients_by_root[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

-- client returns the context-ls client serving bufnr (or the current
-- directory), starting it when the buffer can be attached.
function M.client(bufnr)
  M.ensure()
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local name = vim.api.nvim_buf_get_name(bufnr)
  local path = name ~= '' and name or vim.fn.getcwd()
  local candidates = {}
  for _, id in pairs(clients_by_root) do
    local c = vim.lsp.get_client_by_id(id)
    if c then
      table.insert(candidates, c)
    end
  end
  for _, c in ipairs(util.get_clients()) do
    if M.NAMES[c.name] then
      table.insert(candidates, c)
    end
  end
  local best
  for _, c in ipairs(candidates) do
    if not util.is_stopped(c) then
      local r = c.config.root_dir
      if rootmod.contains(r, path) and (best == nil or #r > #best.config.root_dir) then
        best = c
      end
    end
  end
  if best then
    return best
  end
  local id, why = M.attach(bufnr)
  if id then
    return vim.lsp.get_client_by_id(id)
  end
  for _, c in ipairs(candidates) do
    if not util.is_stopped(c) then
      return c -- a command without a file (search, stats) can use any workspace
    end
  end
  return nil, why
end

-- execute runs workspace/executeCommand and calls cb(err, result) on the
-- main loop. Errors without a client are reported through cb too.
function M.execute(command, arg, cb, bufnr)
  local client, why = M.client(bufnr)
  if not client then
    cb({ message = 'no context-ls server: ' .. tostring(why) }, nil)
    return
  end
  if not client.initialized then
    vim.wait(15000, function()
      return client.initialized == true or util.is_stopped(client)
    end, 20)
  end
  local params = { command = command, arguments = arg == nil and {} or { arg } }
  local ok = util.request(client, 'workspace/executeCommand', params, function(err, result)
    cb(err, result)
  end, bufnr or vim.api.nvim_get_current_buf())
  if not ok then
    cb({ message = 'the server is not running' }, nil)
  end
end

-- run executes a command and records the outcome; on_result(result) runs on
-- success, failures are shown with the server's words.
local function run(what, command, arg, on_result)
  M.execute(command, arg, function(err, result)
    if err then
      notify(render.error_text(what, err), vim.log.levels.ERROR)
      record(command, err, nil)
      return
    end
    local ok, perr = pcall(on_result, result)
    if not ok then
      notify(render.error_text(what, perr), vim.log.levels.ERROR)
      record(command, { message = tostring(perr) }, result)
      return
    end
    record(command, nil, result)
  end)
end

-- default_register is '+' with a clipboard provider, else '"'.
function M.default_register()
  local opts = M.ensure()
  if opts.register then
    return opts.register
  end
  if vim.fn.has('clipboard') == 1 then
    return '+'
  end
  return '"'
end

local function valid_register(r)
  return type(r) == 'string' and #r == 1 and r:match('^[%a%d"%+%*%-_]$') ~= nil
end

local function set_quickfix(title, items, empty_msg)
  vim.fn.setqflist({}, ' ', { title = title, items = items })
  if #items == 0 then
    notify('context-ls: ' .. empty_msg)
    return
  end
  if M.options.open_quickfix then
    local win = vim.api.nvim_get_current_win()
    vim.cmd('botright copen')
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_set_current_win(win)
    end
  end
end

local function store_pack(res, register)
  if (res.text or '') == '' or #(res.items or {}) == 0 then
    notify('context-ls: nothing relevant was found; register ' .. register .. ' is unchanged', vim.log.levels.WARN)
    return
  end
  vim.fn.setreg(register, res.text)
  notify(render.pack_summary(res, register))
end

-- copy packs the range (or the definition under the cursor) into a register.
-- cmd is a user command's table (range, line1, line2, args) or nil.
function M.copy(cmd)
  local opts = M.ensure()
  local reg = (cmd and cmd.args and cmd.args ~= '') and cmd.args or M.default_register()
  if not valid_register(reg) then
    notify('context-ls: ' .. reg .. ' is not a register name', vim.log.levels.ERROR)
    record('contextLs.contextPack', { message = 'invalid register ' .. reg }, nil)
    return
  end
  run('ContextCopy', 'contextLs.contextPack', args.pack(args.current(cmd), opts.pack_format), function(res)
    store_pack(res, reg)
  end)
end

-- query packs context for a text into the default register (asks when text is empty).
function M.query(text)
  local opts = M.ensure()
  local function go(q)
    local a = args.pack(q or '', opts.pack_format)
    if not a then
      return
    end
    local reg = M.default_register()
    run('ContextQuery', 'contextLs.contextPack', a, function(res)
      store_pack(res, reg)
    end)
  end
  if text and vim.trim(text) ~= '' then
    go(text)
  else
    vim.ui.input({ prompt = 'context-ls: context for: ' }, go)
  end
end

-- search fills the quickfix list with hits (asks for the query when empty).
function M.search(query)
  local opts = M.ensure()
  local function go(q)
    local a = args.search(q or '', opts.search_results)
    if not a then
      return
    end
    run('ContextSearch', 'contextLs.search', a, function(res)
      set_quickfix('context-ls search: ' .. a.query, render.search_items(res, render.line_reader()), 'no hits for ' .. a.query)
    end)
  end
  if query and vim.trim(query) ~= '' then
    go(query)
  else
    vim.ui.input({ prompt = 'context-ls search: ' }, go)
  end
end

-- related lists related code of the definition under the cursor (or the range).
function M.related(cmd)
  M.ensure()
  run('ContextRelated', 'contextLs.relatedContext', args.current(cmd), function(res)
    set_quickfix('context-ls related: ' .. (res.symbol or ''), render.related_items(res, render.line_reader()),
      'no related code for ' .. (res.symbol or 'this place'))
  end)
end

local function left_out(res)
  local n = render.graph_omitted(res)
  if n > 0 then
    return string.format(' (%d left out: name-only matches or past the limit)', n)
  end
  return ''
end

-- callers lists the call sites of the definition under the cursor.
function M.callers(cmd)
  M.ensure()
  run('ContextCallers', 'contextLs.callers', args.current(cmd), function(res)
    local sym = render.graph_symbols(res)
    set_quickfix('context-ls callers: ' .. sym, render.call_items(res, render.line_reader()),
      'no callers of ' .. (sym ~= '' and sym or 'this definition') .. left_out(res))
  end)
end

-- tests lists the tests of the definition under the cursor.
function M.tests(cmd)
  M.ensure()
  run('ContextTests', 'contextLs.tests', args.current(cmd), function(res)
    local sym = render.graph_symbols(res)
    set_quickfix('context-ls tests: ' .. sym, render.test_items(res, render.line_reader()),
      'no tests of ' .. (sym ~= '' and sym or 'this definition') .. left_out(res))
  end)
end

-- pin pins (action 'pin') or unpins ('unpin') the range or the definition under the cursor.
function M.pin(cmd, action)
  M.ensure()
  action = action or 'pin'
  local command = action == 'pin' and 'contextLs.pin' or 'contextLs.unpin'
  run(action == 'pin' and 'ContextPin' or 'ContextUnpin', command, args.current(cmd), function(res)
    notify(render.pins_summary(action, res))
  end)
end

-- STATS_BUFFER is the name of the stats scratch buffer.
M.STATS_BUFFER = 'context-ls://stats'

local function show_lines(name, lines)
  local bufnr = vim.fn.bufnr(name)
  if bufnr == -1 then
    bufnr = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(bufnr, name)
    vim.bo[bufnr].bufhidden = 'hide'
    vim.bo[bufnr].swapfile = false
  end
  vim.bo[bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].filetype = 'markdown'
  local win = vim.fn.bufwinid(bufnr)
  if win == -1 then
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, bufnr)
  else
    vim.api.nvim_set_current_win(win)
  end
  return bufnr
end

-- stats shows the index statistics in a scratch buffer.
function M.stats()
  M.ensure()
  run('ContextStats', 'contextLs.stats', nil, function(res)
    show_lines(M.STATS_BUFFER, render.stats_lines(res))
  end)
end

-- reindex re-indexes every folder after a dry run and a confirmation; with
-- force the question is skipped.
function M.reindex(force)
  M.ensure()
  local function start()
    run('ContextReindex', 'contextLs.reindex', { confirm = true }, function(res)
      notify('context-ls: re-index started (job ' .. tostring(res.jobId) .. ')')
    end)
  end
  if force then
    start()
    return
  end
  run('ContextReindex', 'contextLs.reindex', { dryRun = true }, function(dry)
    local answer = vim.fn.confirm(render.reindex_question(dry), '&Re-index\n&Cancel', 2)
    if answer == 1 then
      start()
    end
  end)
end

-- restart stops the server of the current buffer's root (if it runs) and
-- starts it again, also after it crashed.
function M.restart()
  local opts = M.ensure()
  local bufnr = vim.api.nvim_get_current_buf()
  local name = vim.api.nvim_buf_get_name(bufnr)
  local root = rootmod.find(name ~= '' and name or vim.fn.getcwd(), opts.root_markers)
  if not root then
    notify('context-ls: no workspace root above ' .. (name ~= '' and name or vim.fn.getcwd()), vim.log.levels.ERROR)
    return
  end
  crashed[root] = nil
  warned_missing = false
  local id = clients_by_root[root]
  local old = id and vim.lsp.get_client_by_id(id)
  clients_by_root[root] = nil
  local buffers = { bufnr }
  if old then
    buffers = vim.tbl_keys(old.attached_buffers or {})
    util.stop(old)
    vim.wait(5000, function()
      return util.is_stopped(old)
    end, 20)
  end
  local started, why
  for _, b in ipairs(buffers) do
    started, why = M.attach(b)
  end
  if started then
    notify('context-ls: server restarted for ' .. root)
  else
    notify('context-ls: restart failed: ' .. tostring(why), vim.log.levels.ERROR)
  end
end

-- update_settings changes server settings (merged over the current ones)
-- and sends them to every running context-ls client.
function M.update_settings(settings)
  local opts = M.ensure()
  local clean, problems = config.server_settings(settings)
  for _, p in ipairs(problems) do
    notify('context-ls: ' .. p, vim.log.levels.WARN)
  end
  opts.settings = vim.tbl_extend('force', opts.settings, clean)
  local payload = config.push_settings(opts.settings)
  for _, c in ipairs(util.get_clients()) do
    if M.NAMES[c.name] then
      c.config.settings = { contextLs = payload }
      util.notify(c, 'workspace/didChangeConfiguration', { settings = payload })
    end
  end
end

-- statusline returns the running progress ("Indexing shop 120/400 files") or ''.
function M.statusline()
  for _, p in pairs(progress.running) do
    local s = p.title or ''
    if p.message and p.message ~= '' then
      s = s .. ' ' .. p.message
    end
    return s
  end
  return ''
end

-- lspconfig registers a `context_ls` server with nvim-lspconfig, so that
-- require('lspconfig').context_ls.setup({}) works. Returns false when
-- nvim-lspconfig is not installed.
function M.lspconfig()
  local opts = M.ensure()
  local ok, configs = pcall(require, 'lspconfig.configs')
  local ok2, lsputil = pcall(require, 'lspconfig.util')
  if not ok or not ok2 then
    return false
  end
  if not configs.context_ls then
    configs.context_ls = {
      default_config = {
        cmd = opts.cmd,
        filetypes = opts.filetypes,
        root_dir = lsputil.root_pattern(unpack(opts.root_markers)),
        init_options = vim.deepcopy(opts.settings),
        settings = { contextLs = config.push_settings(opts.settings) },
        handlers = { ['$/progress'] = progress.handler, ['window/showMessage'] = show_message },
      },
      docs = { description = 'context-ls: small, located, relevant context from the codebase' },
    }
  end
  return true
end

-- setup configures the plugin. With autostart (the default) the server
-- starts for the workspace root of every file buffer opened; with
-- autostart = false, start it yourself (M.attach) or through
-- nvim-lspconfig (M.lspconfig, see :help context-ls-lspconfig).
function M.setup(user)
  local opts, problems = config.merge(user)
  M.options = opts
  progress.configure(opts.progress, opts.progress_interval)
  for _, p in ipairs(problems) do
    notify('context-ls: ' .. p, vim.log.levels.WARN)
  end
  local group = vim.api.nvim_create_augroup('context_ls', { clear = true })
  if opts.autostart then
    vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'FileType' }, {
      group = group,
      callback = function(ev)
        M.attach(ev.buf)
      end,
    })
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) then
        M.attach(b)
      end
    end
  end
  return opts
end

return M
