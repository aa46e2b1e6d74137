-- context-ls for Neovim: starts `context-ls serve` for the workspace root of
-- the files you open (with or without nvim-lspconfig), maps hover,
-- definition and the plugin's commands in the buffers it serves, and
-- exposes its commands: context packs into a register, search with
-- filters, related code, callers, callees, tests and similar code in the
-- quickfix list (or Telescope / fzf-lua), a results view, pins, stats,
-- reindex and the MCP registration for coding agents.
--
-- Works on Neovim 0.7.2 and later: newer APIs (vim.lsp.start,
-- vim.lsp.get_clients, client:request) are used only when present.
-- Failures reach the user through vim.notify, outside autocommands.
local commands = require('context_ls.protocol').commands
local config = require('context_ls.config')
local args = require('context_ls.args')
local render = require('context_ls.render')
local progress = require('context_ls.progress')
local rootmod = require('context_ls.root')
local util = require('context_ls.util')
local keymaps = require('context_ls.keymaps')
local picker = require('context_ls.picker')
local view = require('context_ls.view')
local preview = require('context_ls.preview')

local M = {}

-- INSTALL_URL is where the install instructions are.
M.INSTALL_URL = 'https://github.com/context-ls/context-ls#editors'

-- Client names: ours, and the one nvim-lspconfig uses.
M.NAMES = { ['context-ls'] = true, ['context_ls'] = true }

-- options in effect (nil until setup)
M.options = nil
-- problems setup() found in the options (shown again by :checkhealth)
M.problems = {}

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

-- notify_later notifies from the main loop: inside an autocommand an error
-- notification would become "Error detected while processing …
-- Autocommands" (0.7) or an error of the command that fired it (0.10+).
local function notify_later(msg, level)
  vim.schedule(function()
    notify(msg, level)
  end)
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

-- PLUGIN_DIR is the plugin's directory (editors/neovim of a checkout),
-- where the build step (build.sh) puts the server, in server/.
M.PLUGIN_DIR = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h')

-- installed_server is the server the build step put beside the plugin, or
-- nil when there is none.
function M.installed_server()
  local exe = M.PLUGIN_DIR .. '/server/bin/context-ls'
  if vim.fn.executable(exe) == 1 then
    return exe
  end
  return nil
end

-- server_binary resolves cmd[1] (~ expanded) to an executable path, or nil.
-- The default name, context-ls, is the server the build step installed
-- when there is one, else the one on PATH.
function M.server_binary(cmd)
  if cmd[1] == config.defaults().cmd[1] then
    local installed = M.installed_server()
    if installed then
      return installed
    end
  end
  local exe = vim.fn.expand(cmd[1])
  if vim.fn.executable(exe) == 1 then
    local p = vim.fn.exepath(exe)
    return p ~= '' and p or exe
  end
  return nil
end

-- on_attach runs when the server attaches to a buffer: it sets the
-- buffer-local mappings of the `mappings` option (see keymaps.lua).
function M.on_attach(_, bufnr)
  local opts = M.ensure()
  keymaps.apply(bufnr, opts.mappings)
end

-- with_on_attach returns an on_attach that runs ours, then user's.
local function with_on_attach(user)
  return function(client, bufnr)
    M.on_attach(client, bufnr)
    if type(user) == 'function' then
      user(client, bufnr)
    end
  end
end

-- client_config is the LSP client configuration for a workspace root.
-- Settings and initializationOptions are JSON objects even when empty.
function M.client_config(root, binary)
  local opts = M.ensure()
  local cmd = vim.deepcopy(opts.cmd)
  cmd[1] = binary
  local extra = vim.deepcopy(opts.client or {})
  local user_on_attach = extra.on_attach
  extra.on_attach = nil
  local conf = {
    name = 'context-ls',
    cmd = cmd,
    root_dir = root,
    workspace_folders = { { uri = util.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
    init_options = util.object(vim.deepcopy(opts.settings)),
    settings = { contextLs = config.push_settings(opts.settings) },
    offset_encoding = 'utf-16',
    handlers = { ['$/progress'] = progress.handler, ['window/showMessage'] = show_message },
    flags = { debounce_text_changes = 150 },
    on_attach = with_on_attach(user_on_attach),
    on_exit = function(code, signal)
      for r, id in pairs(clients_by_root) do
        if r == root and id then
          clients_by_root[r] = nil
        end
      end
      if code ~= 0 and signal ~= 15 then
        crashed[root] = code
        notify_later(string.format('context-ls: the server for %s exited with code %d (see :LspLog); :ContextRestart starts it again',
          root, code), vim.log.levels.WARN)
      end
    end,
  }
  return vim.tbl_deep_extend('force', conf, extra)
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

-- missing_text is the one notification when the server binary is missing:
-- short enough for the command line (a longer message wraps into a
-- hit-enter prompt), so the name is left out when it does not fit in room
-- columns (default: v:echospace).
function M.missing_text(name, room)
  local msg = string.format('context-ls: %q not found (see :checkhealth context_ls)', name)
  room = room or tonumber(vim.v.echospace) or 0
  if room > 0 and vim.fn.strdisplaywidth(msg) > room then
    msg = 'context-ls: server binary not found (see :checkhealth context_ls)'
  end
  return msg
end

-- reuse_client tells vim.lsp.start whether a running client serves conf:
-- same name and root, and not stopping (a client being restarted is).
function M.reuse_client(client, conf)
  return client.name == conf.name and client.config.root_dir == conf.root_dir and not util.is_stopped(client)
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
      notify_later(M.missing_text(opts.cmd[1]), vim.log.levels.ERROR)
    end
    return nil, string.format('server binary %q not found', opts.cmd[1])
  end
  local id = clients_by_root[root]
  if id and not vim.lsp.get_client_by_id(id) then
    id = nil
  end
  if vim.lsp.start and not id then
    id = vim.lsp.start(M.client_config(root, binary), {
      bufnr = bufnr,
      reuse_client = M.reuse_client,
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

-- running_clients lists the running context-ls clients (ours and
-- nvim-lspconfig's), each once.
function M.running_clients()
  local seen, out = {}, {}
  local function add(c)
    if c and not seen[c.id] and not util.is_stopped(c) then
      seen[c.id] = true
      table.insert(out, c)
    end
  end
  for _, id in pairs(clients_by_root) do
    add(vim.lsp.get_client_by_id(id))
  end
  for _, c in ipairs(util.get_clients()) do
    if M.NAMES[c.name] then
      add(c)
    end
  end
  return out
end

-- crashed_roots maps the roots whose server exited with an error to its
-- exit code.
function M.crashed_roots()
  return vim.deepcopy(crashed)
end

-- find_client returns the running client whose root holds path (the
-- deepest root), or nil.
function M.find_client(path)
  local best
  for _, c in ipairs(M.running_clients()) do
    local r = c.config.root_dir
    if rootmod.contains(r, path) and (best == nil or #r > #best.config.root_dir) then
      best = c
    end
  end
  return best
end

-- client returns the context-ls client serving bufnr (or the current
-- directory), starting it when the buffer can be attached.
function M.client(bufnr)
  M.ensure()
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local name = vim.api.nvim_buf_get_name(bufnr)
  local found = M.find_client(name ~= '' and name or vim.fn.getcwd())
  if found then
    return found
  end
  local id, why = M.attach(bufnr)
  if id then
    return vim.lsp.get_client_by_id(id)
  end
  -- a command without a file (search, stats) can use any workspace
  local any = M.running_clients()[1]
  if any then
    return any
  end
  return nil, why
end

-- execute runs workspace/executeCommand and calls cb(err, result) on the
-- main loop. Errors without a client are reported through cb too.
function M.execute(command, arg, cb, bufnr)
  local client, why = M.client(bufnr)
  if not client then
    -- from the main loop, like a server's answer: an error notification
    -- inside the command (or a mapping) would become an error of it
    vim.schedule(function()
      cb({ message = 'no context-ls server: ' .. tostring(why) }, nil)
    end)
    return
  end
  if not client.initialized then
    vim.wait(15000, function()
      return client.initialized == true or util.is_stopped(client)
    end, 20)
  end
  local params = { command = command, arguments = arg == nil and {} or { util.object(arg) } }
  local ok = util.request(client, 'workspace/executeCommand', params, function(err, result)
    cb(err, result)
  end, bufnr or vim.api.nvim_get_current_buf())
  if not ok then
    vim.schedule(function()
      cb({ message = 'the server is not running' }, nil)
    end)
  end
end

-- run executes a command (for the workspace of bufnr, default the current
-- buffer) and records the outcome; on_result(result) runs on success,
-- failures are shown with the server's words.
local function run(what, command, arg, on_result, bufnr)
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
  end, bufnr)
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

-- show_locations sends items to the picker (option `picker`; the quickfix
-- list by default), or says plainly that there is nothing to show.
local function show_locations(title, items, empty_msg)
  if #items == 0 then
    notify('context-ls: ' .. empty_msg)
    return
  end
  local _, warning = picker.show(M.options.picker, title, items, { open_quickfix = M.options.open_quickfix })
  if warning then
    notify('context-ls: ' .. warning, vim.log.levels.WARN)
  end
end

local function store_pack(res, register)
  local text = render.pack_text(res)
  if text == '' then
    notify('context-ls: nothing relevant was found; register ' .. register .. ' is unchanged', vim.log.levels.WARN)
    return
  end
  vim.fn.setreg(register, text)
  notify(render.pack_summary(res, register))
end

-- copy packs the range (or the definition under the cursor) into a register.
-- cmd is a user command's table (range, line1, line2, args) or nil.
function M.copy(cmd)
  local opts = M.ensure()
  local reg = (cmd and cmd.args and cmd.args ~= '') and cmd.args or M.default_register()
  if not valid_register(reg) then
    notify('context-ls: ' .. reg .. ' is not a register name', vim.log.levels.ERROR)
    record(commands.pack, { message = 'invalid register ' .. reg }, nil)
    return
  end
  run('ContextCopy', commands.pack, args.pack(args.current(cmd), opts.pack_format), function(res)
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
    run('ContextQuery', commands.pack, a, function(res)
      store_pack(res, reg)
    end)
  end
  if text and vim.trim(text) ~= '' then
    go(text)
  else
    vim.ui.input({ prompt = 'context-ls: context for: ' }, go)
  end
end

-- search shows the hits of a search (asks for it when text is empty).
-- The text may hold filters: lang:go,python kind:function path:GLOB
-- (path:!GLOB excludes); see args.parse_search.
function M.search(text)
  local opts = M.ensure()
  local function go(typed)
    local a = args.search(typed or '', opts.search_results)
    if not a then
      if vim.trim(typed or '') ~= '' then
        notify('context-ls: search needs words besides the filters', vim.log.levels.WARN)
      end
      return
    end
    local filters = args.filters_text(a)
    local shown = a.query .. (filters ~= '' and (' [' .. filters .. ']') or '')
    run('ContextSearch', commands.search, a, function(res)
      show_locations('context-ls search: ' .. shown, render.search_items(res, render.line_reader()), 'no results for ' .. shown)
    end)
  end
  if text and vim.trim(text) ~= '' then
    go(text)
  else
    vim.ui.input({ prompt = 'context-ls search: ' }, go)
  end
end

-- related lists related code of the definition under the cursor (or the range).
function M.related(cmd)
  M.ensure()
  run('ContextRelated', commands.related, args.current(cmd), function(res)
    local sym = res.symbol ~= vim.NIL and res.symbol or nil
    show_locations('context-ls related: ' .. (sym or ''), render.related_items(res, render.line_reader()),
      'no related code for ' .. (sym or 'this place'))
  end)
end

local function left_out(res)
  local n = render.graph_omitted(res)
  if n > 0 then
    return string.format(' (%d left out: name-only matches or past the limit)', n)
  end
  return ''
end

-- graph runs callers, callees or tests for the place and shows the items.
local function graph(what, kind, cmd, items_of, empty_extra)
  M.ensure()
  run(what, commands[kind], args.current(cmd), function(res)
    local sym = render.graph_symbols(res)
    local extra = empty_extra and empty_extra(res) or ''
    show_locations('context-ls ' .. kind .. ': ' .. sym, items_of(res, render.line_reader()),
      string.format('no %s of %s%s%s', kind, sym ~= '' and sym or 'this definition', left_out(res), extra))
  end)
end

-- callers lists the call sites of the definition under the cursor.
function M.callers(cmd)
  graph('ContextCallers', 'callers', cmd, render.call_items)
end

-- callees lists the definitions the definition under the cursor calls.
function M.callees(cmd)
  graph('ContextCallees', 'callees', cmd, render.callee_items, function(res)
    local un = render.graph_unresolved(res)
    return #un > 0 and (' in the workspace; it calls ' .. table.concat(un, ', ')) or ''
  end)
end

-- tests lists the tests of the definition under the cursor.
function M.tests(cmd)
  graph('ContextTests', 'tests', cmd, render.test_items)
end

-- similar lists code that looks like the text, the range or the
-- definition under the cursor (needs embeddings; the server says why not).
function M.similar(cmd)
  local opts = M.ensure()
  local text = cmd and cmd.args or nil
  local a = args.similar(text, (text and vim.trim(text) ~= '') and nil or args.current(cmd), opts.search_results)
  run('ContextSimilar', commands.similar, a, function(res)
    show_locations('context-ls similar', render.search_items(res, render.line_reader()), 'no similar code found')
  end)
end

-- RESULT_KINDS are the commands the results view runs, by group.
M.RESULT_KINDS = {
  callers = commands.callers,
  callees = commands.callees,
  tests = commands.tests,
  related = commands.related,
}

-- results opens the results view for the definition under the cursor (or
-- the range): definitions, callers, callees, tests and related code, each
-- with its reason, confidence or score; it stays until closed.
function M.results(cmd)
  M.ensure()
  local place = args.current(cmd)
  local client = M.client(0)
  local root = client and client.config.root_dir or nil
  local outcomes, pending = {}, vim.tbl_count(M.RESULT_KINDS)
  for kind, command in pairs(M.RESULT_KINDS) do
    M.execute(command, place, function(err, res)
      outcomes[kind] = { err = err, res = res }
      pending = pending - 1
      if pending > 0 then
        return
      end
      local all_failed = true
      for _, o in pairs(outcomes) do
        all_failed = all_failed and o.err ~= nil
      end
      if all_failed then
        notify(render.error_text('ContextResults', outcomes.related.err), vim.log.levels.ERROR)
        record('contextLs.results', outcomes.related.err, nil)
        return
      end
      local ok, perr = pcall(view.show, render.results_model(root, outcomes, render.line_reader()))
      if not ok then
        notify(render.error_text('ContextResults', perr), vim.log.levels.ERROR)
        record('contextLs.results', { message = tostring(perr) }, outcomes)
        return
      end
      record('contextLs.results', nil, outcomes)
    end)
  end
end

-- pin pins (action 'pin') or unpins ('unpin') the range or the definition under the cursor.
function M.pin(cmd, action)
  M.ensure()
  action = action or 'pin'
  local command = action == 'pin' and commands.pin or commands.unpin
  run(action == 'pin' and 'ContextPin' or 'ContextUnpin', command, args.current(cmd), function(res)
    notify(render.pins_summary(action, res))
  end)
end

-- The pack preview and the pins list. One of each at a time: a new
-- preview replaces the state of the last one. Their keys act on the entry
-- under the cursor; a key that changes the pack asks for it again and the
-- new state counts once the server answers (an error leaves the shown one).
local pack_state, pack_asked, pins_state
local preview_keys, pins_keys

-- show_preview asks for the pack of a preview state and shows it;
-- keep_cursor keeps the cursor line (after a key of the preview).
local function show_preview(state, keep_cursor)
  pack_asked = state
  run('ContextPreview', commands.pack, preview.request(state), function(res)
    if pack_asked ~= state then
      return -- a later request replaced this one
    end
    state.result = res
    pack_state = state
    view.show(preview.model(state, res, render.line_reader()), { name = preview.BUFFER, keys = preview_keys,
      from = state.from, keep_cursor = keep_cursor, at_entry = not keep_cursor })
  end, state.bufnr)
end

-- preview opens the pack preview for the range, the definition under the
-- cursor, or the query in cmd.args (with a range: the range and the query).
function M.preview(cmd)
  local opts = M.ensure()
  local text = vim.trim((cmd and cmd.args) or '')
  local base
  if text ~= '' and (cmd.range or 0) == 0 then
    base = { query = text }
  else
    base = args.current(cmd)
    base.query = text ~= '' and text or nil
  end
  base.format = opts.pack_format
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  local state = preview.new(base, client and client.config.root_dir or nil)
  state.bufnr, state.from = bufnr, vim.api.nvim_get_current_win()
  show_preview(state, false)
end

local function entry_data(bufnr, field)
  local e = view.entry_at(bufnr)
  return e and e.data and e.data[field] or nil
end

-- pack_item_at is the pack item on the cursor line, or nil (said).
local function pack_item_at(bufnr)
  local it = entry_data(bufnr, 'pack_item')
  if not it then
    notify('context-ls: no pack item on this line')
  end
  return it
end

local function budget_to(n)
  local nx = preview.copy(pack_state)
  nx.budget = n
  show_preview(nx, true)
end

-- insert_pack puts the pack's lines below the cursor line of the window
-- the preview came from (into an empty buffer: as its lines) and goes there.
local function insert_pack(bufnr)
  local res = pack_state.result
  local text = render.pack_text(res)
  if text == '' then
    notify('context-ls: nothing relevant was found; nothing inserted', vim.log.levels.WARN)
    return
  end
  local win = view.from(bufnr)
  if not win then
    notify('context-ls: the window the preview came from is closed; y copies the pack instead', vim.log.levels.ERROR)
    return
  end
  local buf = vim.api.nvim_win_get_buf(win)
  if not vim.bo[buf].modifiable then
    notify('context-ls: ' .. vim.fn.bufname(buf) .. ' is not modifiable; y copies the pack instead', vim.log.levels.ERROR)
    return
  end
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  vim.api.nvim_set_current_win(win)
  local row = vim.api.nvim_win_get_cursor(win)[1]
  local empty = vim.api.nvim_buf_line_count(buf) == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == ''
  if empty then
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    row = 0
  else
    vim.api.nvim_buf_set_lines(buf, row, row, false, lines)
  end
  vim.api.nvim_win_set_cursor(win, { row + 1, 0 })
  notify(string.format('context-ls: %s / %s tokens, %d lines inserted', util.group_digits(res.tokens), util.group_digits(res.budget), #lines))
end

-- toggle_pin pins the item (then the pack is asked for again), or unpins
-- the pin it comes from when it is pinned.
local function toggle_pin(bufnr)
  local it = pack_item_at(bufnr)
  if not it then
    return
  end
  local state = pack_state
  local function again(action)
    return function(res)
      notify(render.pins_summary(action, res))
      show_preview(preview.copy(state), true)
    end
  end
  if preview.mark(it) ~= 'pinned' then
    run('ContextPin', commands.pin, preview.item_place(it), again('pin'), state.bufnr)
    return
  end
  run('ContextUnpin', commands.pins, { folder = state.result.folder }, function(res)
    local pin = preview.find_pin(res.pins, it)
    if not pin then
      error(preview.key(it) .. ' is pinned by no pin of ' .. util.uri_to_fname(res.folder or '') .. ' (:ContextPins lists them)', 0)
    end
    run('ContextUnpin', commands.unpin, preview.pin_place(pin), again('unpin'), state.bufnr)
  end, state.bufnr)
end

local preview_actions = {
  drop = function(bufnr)
    local it = pack_item_at(bufnr)
    if it then
      local nx = preview.copy(pack_state)
      preview.drop(nx, it)
      show_preview(nx, true)
    end
  end,
  undrop = function(bufnr)
    local nx = preview.copy(pack_state)
    if not preview.undrop(nx, entry_data(bufnr, 'dropped')) then
      notify('context-ls: nothing was dropped')
      return
    end
    show_preview(nx, true)
  end,
  pin = toggle_pin,
  more = function()
    budget_to(preview.step_budget(preview.budget(pack_state), true))
  end,
  less = function()
    budget_to(preview.step_budget(preview.budget(pack_state), false))
  end,
  budget = function()
    vim.ui.input({ prompt = 'context-ls: budget in tokens: ', default = tostring(preview.budget(pack_state)) }, function(text)
      if text == nil or vim.trim(text) == '' then
        return
      end
      local n, why = preview.parse_budget(text)
      if not n then
        notify('context-ls: ' .. why, vim.log.levels.WARN)
        return
      end
      budget_to(n)
    end)
  end,
  copy = function()
    local reg = vim.v.register
    if reg == '"' or reg == '' then
      reg = M.default_register()
    end
    store_pack(pack_state.result, reg)
  end,
  insert = insert_pack,
  refresh = function()
    show_preview(preview.copy(pack_state), true)
  end,
}

-- show_pins shows a pins answer in the pins list.
local function show_pins(state, res)
  state.result = res
  view.show(preview.pins_model(res, state.root, render.line_reader()), { name = preview.PINS_BUFFER, keys = pins_keys,
    from = state.from, keep_cursor = true })
end

-- pins_run runs contextLs.pins or contextLs.unpin for the pins list and
-- shows the pins it answers (after unpinning, with how many are left).
local function pins_run(state, command, arg)
  local unpin = command == commands.unpin
  run(unpin and 'ContextUnpin' or 'ContextPins', command, arg, function(res)
    show_pins(state, res)
    if unpin then
      notify(render.pins_summary('unpin', res))
    end
  end, state.bufnr)
end

-- pins lists the pins of the current buffer's workspace.
function M.pins()
  M.ensure()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  local root = client and client.config.root_dir or nil
  pins_state = { bufnr = bufnr, root = root, from = vim.api.nvim_get_current_win(),
    folder = root and util.uri_from_fname(root) or nil }
  pins_run(pins_state, commands.pins, { folder = pins_state.folder })
end

-- unpin_gone removes a pin whose file is gone, which the server unpins
-- only with all the others: after a confirmation, every pin is removed
-- and the others are pinned again (those whose files are gone too cannot be).
local function unpin_gone(state, pin)
  local again, lost = preview.repin_plan(state.result.pins, pin)
  local question = string.format('%s: its file is gone, and the server removes such a pin only with all the others.\n'
    .. 'Unpin all %d pins and pin the other %d again?', preview.pin_name(pin), #state.result.pins, #again)
  if #lost > 0 then
    question = question .. '\nThese cannot be pinned again (their files are gone too): ' .. table.concat(lost, ', ')
  end
  if vim.fn.confirm(question, '&Unpin all and pin again\n&Cancel', 2) ~= 1 then
    return
  end
  local failed = {}
  local function pin_each(i, res)
    if i > #again then
      show_pins(state, res)
      for _, f in ipairs(failed) do
        notify('context-ls: could not pin ' .. f .. ' again', vim.log.levels.ERROR)
      end
      notify(render.pins_summary('unpin', res))
      record(commands.unpin, nil, res)
      return
    end
    M.execute(commands.pin, preview.pin_place(again[i]), function(err, r)
      if err then
        table.insert(failed, preview.pin_name(again[i]) .. ': ' .. render.clean_error(tostring(err.message or err)))
      end
      pin_each(i + 1, r or res)
    end, state.bufnr)
  end
  run('ContextUnpin', commands.unpin, { all = true, folder = state.folder }, function(res)
    pin_each(1, res)
  end, state.bufnr)
end

local pins_actions = {
  unpin = function(bufnr)
    local pin = entry_data(bufnr, 'pin')
    local state = pins_state
    if not pin then
      notify('context-ls: no pin on this line')
    elseif pin.error and pin.error ~= vim.NIL then
      unpin_gone(state, pin)
    else
      pins_run(state, commands.unpin, preview.pin_place(pin))
    end
  end,
  clear = function()
    local state = pins_state
    local n = #(state.result.pins or {})
    if n == 0 then
      notify('context-ls: nothing is pinned')
      return
    end
    if vim.fn.confirm(string.format('Unpin all %d pins of %s?', n, vim.fn.fnamemodify(state.root or '', ':~')), '&Unpin all\n&Cancel', 2) ~= 1 then
      return
    end
    pins_run(state, commands.unpin, { all = true, folder = state.folder })
  end,
  refresh = function()
    pins_run(pins_state, commands.pins, { folder = pins_state.folder })
  end,
}

-- keys_of pairs a key list of preview.lua with the functions of its actions.
local function keys_of(list, actions)
  local out = {}
  for _, k in ipairs(list) do
    table.insert(out, { k[1], assert(actions[k[2]], 'no action ' .. k[2]), k[3] })
  end
  return out
end

preview_keys = keys_of(preview.KEYS, preview_actions)
pins_keys = keys_of(preview.PINS_KEYS, pins_actions)

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
  vim.bo[bufnr].filetype = 'contextls'
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
  run('ContextStats', commands.stats, nil, function(res)
    show_lines(M.STATS_BUFFER, render.stats_lines(res))
  end)
end

-- AGENTS_BUFFER is the name of the MCP registration scratch buffer.
M.AGENTS_BUFFER = 'context-ls://agents'

-- agents shows the MCP registration of the current workspace (the JSON a
-- coding agent needs to run `context-ls mcp` on the same index) in a
-- scratch buffer, and puts it into register `reg` when one is given.
function M.agents(reg)
  local opts = M.ensure()
  if reg ~= nil and reg ~= '' and not valid_register(reg) then
    notify('context-ls: ' .. reg .. ' is not a register name', vim.log.levels.ERROR)
    return nil
  end
  local binary = M.server_binary(opts.cmd)
  if not binary then
    notify(M.missing_text(opts.cmd[1]), vim.log.levels.ERROR)
    return nil
  end
  local name = vim.api.nvim_buf_get_name(0)
  local start = (name ~= '' and not name:match('^%a[%w+.-]*://')) and name or vim.fn.getcwd()
  local client = M.find_client(start)
  local root = (client and client.config.root_dir) or rootmod.find(start, opts.root_markers) or vim.fn.getcwd()
  local lines = render.mcp_registration(binary, root, opts.settings)
  local bufnr = show_lines(M.AGENTS_BUFFER, lines)
  vim.bo[bufnr].filetype = 'json'
  -- short messages: a longer one would wrap into a hit-enter prompt
  if reg ~= nil and reg ~= '' then
    vim.fn.setreg(reg, table.concat(lines, '\n') .. '\n')
    notify('context-ls: MCP registration copied to register ' .. reg)
  else
    notify('context-ls: MCP registration shown; :ContextAgents + copies it')
  end
  return lines
end

-- reindex re-indexes every folder after a dry run and a confirmation; with
-- force the question is skipped.
function M.reindex(force)
  M.ensure()
  local function start()
    run('ContextReindex', commands.reindex, { confirm = true }, function(res)
      local jobs = {}
      for _, f in ipairs(res.folders or {}) do
        table.insert(jobs, tostring(f.jobId))
      end
      notify('context-ls: re-index started (job ' .. table.concat(jobs, ', ') .. ')')
    end)
  end
  if force then
    start()
    return
  end
  run('ContextReindex', commands.reindex, { dryRun = true }, function(dry)
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
  local file = attachable(bufnr, opts)
  local path = file or vim.fn.getcwd()
  -- from a scratch buffer (results, stats), the server of the workspace
  local old = M.find_client(path) or (not file and M.running_clients()[1]) or nil
  local root = (old and old.config.root_dir) or rootmod.find(path, opts.root_markers)
  if not root then
    notify('context-ls: no workspace root above ' .. path, vim.log.levels.ERROR)
    return
  end
  crashed[root] = nil
  warned_missing = false
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
        init_options = util.object(vim.deepcopy(opts.settings)),
        settings = { contextLs = config.push_settings(opts.settings) },
        handlers = { ['$/progress'] = progress.handler, ['window/showMessage'] = show_message },
        on_attach = M.on_attach,
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
  M.problems = problems
  progress.configure(opts.progress, opts.progress_interval)
  for _, p in ipairs(problems) do
    notify('context-ls: ' .. p, vim.log.levels.WARN)
  end
  local group = vim.api.nvim_create_augroup('context_ls', { clear = true })
  if vim.fn.has('nvim-0.8') == 1 then
    -- clients started by nvim-lspconfig (or anyone) get the mappings too
    vim.api.nvim_create_autocmd('LspAttach', {
      group = group,
      callback = function(ev)
        local c = ev.data and vim.lsp.get_client_by_id(ev.data.client_id)
        if c and M.NAMES[c.name] then
          M.on_attach(c, ev.buf)
        end
      end,
    })
  end
  if opts.autostart then
    vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'FileType' }, {
      group = group,
      callback = function(ev)
        M.safe_attach(ev.buf)
      end,
    })
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) then
        M.safe_attach(b)
      end
    end
  end
  return opts
end

-- safe_attach is attach for autocommands: an error becomes a notification
-- from the main loop, never an error of the autocommand.
function M.safe_attach(bufnr)
  local ok, err = pcall(M.attach, bufnr)
  if not ok then
    notify_later('context-ls: could not start the server: ' .. tostring(err), vim.log.levels.ERROR)
  end
end

return M
