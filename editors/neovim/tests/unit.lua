-- Unit tests of the plugin's pure modules, run headless by tests/run.sh:
--   nvim --headless -u tests/unit.lua   (CONTEXT_LS_PLUGIN = the plugin dir)
-- Golden files in tests/testdata are rewritten with UPDATE_GOLDEN=1.
local plugin = os.getenv('CONTEXT_LS_PLUGIN')
vim.opt.runtimepath:prepend(plugin)
local testdata = plugin .. '/tests/testdata'

local passed, failed = 0, 0
local function test(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    passed = passed + 1
  else
    failed = failed + 1
    io.stdout:write('FAIL ' .. name .. '\n' .. tostring(err) .. '\n')
  end
end

local function eq(got, want, what)
  if not vim.deep_equal(got, want) then
    error(string.format('%s: got %s, want %s', what or 'value', vim.inspect(got), vim.inspect(want)), 2)
  end
end

local function golden(name, text)
  local file = testdata .. '/' .. name
  if os.getenv('UPDATE_GOLDEN') then
    local f = assert(io.open(file, 'w'))
    f:write(text)
    f:close()
    return
  end
  local f = io.open(file, 'r')
  if not f then
    error(file .. ' is missing (UPDATE_GOLDEN=1 tests/run.sh creates it)', 2)
  end
  local want = f:read('*a')
  f:close()
  if want ~= text then
    error(name .. ' differs from the golden file (UPDATE_GOLDEN=1 tests/run.sh rewrites it):\n' .. text, 2)
  end
end

local function read_json(name)
  return vim.fn.json_decode(table.concat(vim.fn.readfile(testdata .. '/' .. name), '\n'))
end

local util = require('context_ls.util')
local config = require('context_ls.config')
local rootmod = require('context_ls.root')
local args = require('context_ls.args')
local render = require('context_ls.render')
local progress = require('context_ls.progress')
local picker = require('context_ls.picker')
local view = require('context_ls.view')

test('utf16_units', function()
  local cases = {
    { 'abc', 3, 3 },
    { 'abc', 1, 1 },
    { 'é!', 2, 1 },          -- 2-byte character
    { '€x', 4, 2 },          -- 3-byte character
    { 'a📦b', 5, 3 },        -- 4-byte character: a surrogate pair
    { 'a📦b', 6, 4 },
    { 'a📦b', 3, 3 },        -- offset inside a character: its bytes count one each, like a truncated sequence
    { '\xff\xfeA', 3, 3 },   -- invalid bytes count one each
    { '\xe2\x82', 2, 2 },    -- truncated sequence
    { '', 0, 0 },
    { 'abc', 99, 3 },        -- clamped
  }
  for _, c in ipairs(cases) do
    eq(util.utf16_units(c[1], c[2]), c[3], vim.inspect(c))
  end
end)

test('byte_of_utf16', function()
  local cases = {
    { 'abc', 2, 2 },
    { 'é!', 1, 2 },
    { 'a📦b', 1, 1 },
    { 'a📦b', 3, 5 },
    { 'a📦b', 2, 5 },        -- inside the pair: rounds up to the character end
    { 'a📦b', 4, 6 },
    { 'ab', 10, 2 },         -- clamped
    { '\xffA', 1, 1 },
  }
  for _, c in ipairs(cases) do
    eq(util.byte_of_utf16(c[1], c[2]), c[3], vim.inspect(c))
  end
  -- round trip on every character boundary
  local s = 'x📦é€ y'
  local b = 0
  while b <= #s do
    eq(util.byte_of_utf16(s, util.utf16_units(s, b)), b, 'round trip at ' .. b)
    local c = s:byte(b + 1)
    b = b + ((not c and 1) or (c >= 0xF0 and 4) or (c >= 0xE0 and 3) or (c >= 0xC0 and 2) or 1)
  end
end)

test('text helpers', function()
  eq(util.first_line('\n   \n  x := 1  \nmore'), 'x := 1')
  eq(util.first_line(''), '')
  eq(util.first_line(nil), '')
  eq(util.first_line('🍎🍎🍎🍎', 3), '🍎🍎…')
  eq(util.group_digits(1234567), '1,234,567')
  eq(util.group_digits(999), '999')
  eq(util.group_digits(-1234), '-1,234')
  eq(util.group_digits(nil), '0')
end)

test('config.merge', function()
  local opts, problems = config.merge(nil)
  eq(problems, {})
  eq(opts.cmd, { 'context-ls', 'serve' })
  opts, problems = config.merge({
    pack_format = 'html', bogus = 1, search_results = 500, progress = 'loud', cmd = {},
    settings = { budgetTokens = 800, embeddings = 'yes', packFormat = 'xml' },
    autostart = 'no',
  })
  eq(opts.pack_format, 'markdown')
  eq(opts.search_results, 100)
  eq(opts.progress, 'echo')
  eq(opts.cmd, { 'context-ls', 'serve' })
  eq(opts.autostart, true)
  eq(opts.settings, { budgetTokens = 800 })
  table.sort(problems)
  eq(problems, {
    'option autostart: expected boolean, got string',
    'option cmd: expected a list starting with the server binary',
    'option pack_format: "html" is not markdown, xml, json or plain',
    'option progress: expected "echo", "notify" or false',
    'settings.embeddings: expected boolean, got string',
    'settings.packFormat: not a context-ls server setting (known: dbPath, ignore, maxFileSize, embeddings, modelPath, budgetTokens, logLevel)',
    'unknown option "bogus" ignored',
  })
  local _, p2 = config.merge('x')
  eq(p2, { 'setup() expects a table of options, got string' })
  local o3 = config.merge({ progress = false })
  eq(o3.progress, false)
end)

test('config: mappings and picker options', function()
  local opts, problems = config.merge({})
  eq(problems, {})
  eq(opts.mappings.hover, 'K')
  eq(opts.mappings.definition, 'gd')
  eq(opts.mappings.callers, 'grc')
  eq(opts.mappings.tagfunc, true)
  eq(opts.picker, 'quickfix', 'the quickfix list stays the default')
  opts, problems = config.merge({ mappings = { hover = false, callers = '<leader>r', tagfunc = false, copy = '', bogus = 'x', tests = 3 },
    picker = 'fzf' })
  eq({ opts.mappings.hover, opts.mappings.callers, opts.mappings.tagfunc, opts.mappings.copy, opts.mappings.definition, opts.mappings.tests },
    { false, '<leader>r', false, false, 'gd', '<leader>Ct' })
  eq(opts.mappings.bogus, nil)
  table.sort(problems)
  eq(problems, {
    'mappings.bogus: not a context-ls mapping (see :help context-ls-mappings)',
    'mappings.tests: expected a key sequence or false, got number',
    'option picker: "fzf" is not quickfix, telescope, fzf-lua or auto',
  })
  eq(opts.picker, 'quickfix')
  eq(config.merge({ mappings = false }).mappings, false)
  eq(config.merge({ mappings = true }).mappings, config.default_mappings())
  eq(config.merge({ picker = 'auto' }).picker, 'auto')
end)

test('settings and arguments are JSON objects, also when empty', function()
  local util = require('context_ls.util')
  eq(vim.fn.json_encode(util.object({})), '{}')
  eq(vim.fn.json_encode(util.object(nil)), '{}')
  eq(vim.fn.json_decode(vim.fn.json_encode(util.object({ k = 1 }))), { k = 1 })
  local cl = require('context_ls')
  cl.setup({ autostart = false })
  local conf = cl.client_config('/tmp/ws', '/bin/sh')
  eq(vim.fn.json_encode(conf.init_options), '{}', 'setup({}) sends initializationOptions {}')
  eq(vim.fn.json_encode(conf.settings.contextLs):sub(1, 1), '{')
  cl.setup({ autostart = false, settings = { budgetTokens = 10 } })
  eq(vim.fn.json_decode(vim.fn.json_encode(cl.client_config('/tmp/ws', '/bin/sh').init_options)), { budgetTokens = 10 })
end)

test('the missing-binary notification fits on the command line', function()
  local cl = require('context_ls')
  eq(cl.missing_text('context-ls', 80), 'context-ls: "context-ls" not found (see :checkhealth context_ls)')
  eq(cl.missing_text('/home/someone/with/a/long/path/bin/context-ls', 80), 'context-ls: server binary not found (see :checkhealth context_ls)')
  eq(#cl.missing_text('context-ls', 80) <= 68, true, 'fits the command line of an 80-column terminal (v:echospace 68)')
end)

test('client config: our on_attach runs, then the user\'s', function()
  local cl = require('context_ls')
  local calls = {}
  cl.setup({ autostart = false, mappings = false, client = { on_attach = function(_, b)
    table.insert(calls, b)
  end, flags = { debounce_text_changes = 10 } } })
  local conf = cl.client_config('/tmp/ws', '/bin/sh')
  local orig = cl.on_attach
  cl.on_attach = function(_, b)
    table.insert(calls, 'ours ' .. b)
  end
  conf.on_attach({}, 7)
  cl.on_attach = orig
  eq(calls, { 'ours 7', 7 })
  eq(conf.flags.debounce_text_changes, 10, 'other client fields still merge')
end)

test('vim.lsp.start path (stubbed where the API is missing): one client per root, never a stopping one', function()
  local cl = require('context_ls')
  local tmp = vim.fn.tempname()
  vim.fn.mkdir(tmp .. '/.git', 'p')
  vim.fn.writefile({ 'x' }, tmp .. '/a.go')
  cl.setup({ autostart = false, cmd = { 'sh', 'serve' } })
  local orig_start = vim.lsp.start
  local got = {}
  vim.lsp.start = function(conf, o)
    table.insert(got, { conf = conf, opts = o })
    return nil -- nothing really starts
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(tmp .. '/a.go'))
  local buf = vim.api.nvim_get_current_buf()
  cl.attach(buf)
  vim.lsp.start = orig_start
  eq(#got, 1, 'vim.lsp.start used when present')
  eq(got[1].conf.root_dir, tmp)
  eq(got[1].conf.cmd[1], vim.fn.exepath('sh'))
  eq(got[1].opts.bufnr, buf)
  local reuse = got[1].opts.reuse_client
  local stopped = false
  local client = { name = 'context-ls', config = { root_dir = tmp } }
  client.is_stopped = function() -- called as client.is_stopped() or client:is_stopped()
    return stopped
  end
  eq(reuse(client, got[1].conf), true, 'a running client of the root is reused')
  stopped = true
  eq(reuse(client, got[1].conf), false, 'a stopping client (restart) is not')
  client.config.root_dir = tmp .. '/sub'
  stopped = false
  eq(reuse(client, got[1].conf), false, 'another root is not')
  vim.cmd('bwipeout!')
  vim.fn.delete(tmp, 'rf')
end)

test('config.push_settings sends every key, vim.NIL when unset', function()
  local got = config.push_settings({ budgetTokens = 10, ignore = { '*.gen.go' } })
  eq(got.budgetTokens, 10)
  eq(got.ignore, { '*.gen.go' })
  for _, k in ipairs({ 'dbPath', 'maxFileSize', 'embeddings', 'modelPath', 'logLevel' }) do
    eq(got[k], vim.NIL, k)
  end
end)

test('root.find and contains', function()
  local tmp = vim.fn.tempname()
  vim.fn.mkdir(tmp .. '/repo/.git', 'p')
  vim.fn.mkdir(tmp .. '/repo/sub/mod/pkg', 'p')
  vim.fn.writefile({ 'module x' }, tmp .. '/repo/sub/mod/go.mod')
  vim.fn.writefile({ 'package pkg' }, tmp .. '/repo/sub/mod/pkg/a.go')
  vim.fn.mkdir(tmp .. '/loose', 'p')
  local markers = config.defaults().root_markers
  eq(rootmod.find(tmp .. '/repo/sub/mod/pkg/a.go', markers), tmp .. '/repo/sub/mod', 'nearest marker wins')
  eq(rootmod.find(tmp .. '/repo/sub/mod/pkg/a.go', { '.git' }), tmp .. '/repo')
  eq(rootmod.find(tmp .. '/repo/sub/new_file.go', { '.git' }), tmp .. '/repo', 'a file not yet written')
  eq(rootmod.find(tmp .. '/repo', { '.git' }), tmp .. '/repo', 'a directory')
  eq(rootmod.find(tmp .. '/loose/x.txt', { 'no-such-marker-anywhere' }), nil)
  eq(rootmod.find('', markers), nil)
  eq(rootmod.contains('/a/b', '/a/b/c.go'), true)
  eq(rootmod.contains('/a/b/', '/a/b/c.go'), true)
  eq(rootmod.contains('/a/b', '/a/bc/d.go'), false)
  eq(rootmod.contains('/a/b', '/a/b'), true)
  eq(rootmod.contains(nil, '/a'), false)
  vim.fn.delete(tmp, 'rf')
end)

test('args from a buffer: UTF-16 positions, ordered ranges', function()
  local buf = vim.api.nvim_create_buf(true, false)
  local name = vim.fn.tempname() .. '/dir with space/a.go'
  vim.api.nvim_buf_set_name(buf, name)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { 'package a', '// 📦 box', 'var x = "é" + y', 'end' })
  local uri = vim.uri_from_bufnr(buf)
  eq(uri:find('dir%%20with%%20space/a%.go$') ~= nil, true, 'URI is percent-encoded: ' .. uri)
  -- cursor after the emoji: byte 8 is "b" of "box" (// =2, space, 📦 = 4 bytes, space)
  eq(args.place(buf, { 1, 8 }, nil), { textDocument = { uri = uri }, position = { line = 1, character = 6 } })
  eq(args.place(buf, { 2, 0 }, { start = { 1, 3 }, finish = { 2, 11 } }), {
    textDocument = { uri = uri },
    position = { line = 1, character = 3 },
    range = { start = { line = 1, character = 3 }, ['end'] = { line = 2, character = 10 } },
  })
  vim.api.nvim_set_current_buf(buf)
  -- a linewise command range covers whole lines
  vim.fn.visualmode(1)
  local sel = args.selection(buf, { range = 2, line1 = 2, line2 = 3 })
  eq(sel, { start = { 1, 0 }, finish = { 2, #'var x = "é" + y' } })
  eq(args.selection(buf, { range = 0, line1 = 1, line2 = 1 }), nil)
  -- a charwise visual selection uses the marks and takes the whole last character
  vim.api.nvim_win_set_cursor(0, { 2, 3 })
  vim.cmd('normal! vl\27') -- select "📦" and the space after? v then l moves one character
  sel = args.selection(buf, { range = 2, line1 = 2, line2 = 2 })
  eq(sel, { start = { 1, 3 }, finish = { 1, 8 } }, 'charwise')
  vim.api.nvim_buf_delete(buf, { force = true })
end)

test('args.search and args.pack', function()
  eq(args.search('  area of a circle ', 30), { query = 'area of a circle', k = 30 })
  eq(args.search('x', 1000), { query = 'x', k = 100 })
  eq(args.search('x', 0), { query = 'x', k = 1 })
  eq(args.search('   ', 10), nil)
  -- filters: lang:, kind:, path: (repeatable, comma lists, ! excludes)
  eq(args.search('lang:go,python retry  kind:function path:internal/** path:!**/*_test.go uploads', 5), {
    query = 'retry uploads', k = 5, languages = { 'go', 'python' }, kinds = { 'function' },
    paths = { 'internal/**', '!**/*_test.go' },
  })
  eq(args.search('LANG:go http://x', 5), { query = 'http://x', k = 5, languages = { 'go' } }, 'other prefixes are words')
  eq(args.search('lang:go', 5), nil, 'filters alone are no query')
  eq(args.filters_text(args.parse_search('a kind:method lang:go,rust')), 'lang:go,rust kind:method')
  eq(args.filters_text(args.parse_search('plain words')), '')
  local place = { textDocument = { uri = 'file:///a.go' }, position = { line = 0, character = 0 } }
  eq(args.similar('  func f()  ', place, 7), { snippet = 'func f()', k = 7 })
  eq(args.similar('', place, 500), { textDocument = { uri = 'file:///a.go' }, position = { line = 0, character = 0 }, k = 100 })
  eq(place.k, nil, 'the place table is not modified')
  eq(args.pack(' retry uploads ', 'xml'), { query = 'retry uploads', format = 'xml' })
  eq(args.pack('  ', 'xml'), nil)
  local place = { textDocument = { uri = 'file:///a.go' }, position = { line = 0, character = 0 } }
  local p = args.pack(place, 'markdown')
  eq(p.format, 'markdown')
  eq(place.format, nil, 'the place table is not modified')
end)

test('render quickfix items (golden)', function()
  local r = read_json('results.json')
  local lines = {
    ['/home/dev/shop/cmd/shop/main.go'] = { [13] = '\tfmt.Println(s.Reserve("apple", 1))' },
    ['/home/dev/shop/inventory/stock_test.go'] = { [10] = '\tif err := s.Reserve("apple", 3); !errors.Is(err, ErrOutOfStock) {',
      [13] = '\t// 🍎 s.Reserve("apple", 2)' },
  }
  local line_of = function(fname, row)
    return (lines[fname] or {})[row] or ''
  end
  local out = {}
  local function dump(title, items)
    table.insert(out, '--- ' .. title)
    for _, it in ipairs(items) do
      table.insert(out, string.format('%s:%d:%d-%s %s', it.filename, it.lnum, it.col, tostring(it.end_lnum), it.text))
    end
  end
  eq(render.graph_symbols(r.callers), 'Stock.Reserve')
  eq(render.graph_omitted(r.callers), 1)
  eq(render.graph_symbols({ results = {} }), '')
  dump('search', render.search_items(r.search, line_of))
  dump('callers', render.call_items(r.callers, line_of))
  dump('tests', render.test_items(r.tests, line_of))
  dump('related', render.related_items(r.related, line_of))
  golden('quickfix.golden', table.concat(out, '\n') .. '\n')
end)

test('render stats (golden) and messages', function()
  golden('stats.golden', table.concat(render.stats_lines(read_json('stats.json')), '\n') .. '\n')
  eq(render.stats_lines({ folders = {} }), { '# context-ls index', '', 'No workspace folder is indexed.' })
  local r = read_json('results.json')
  eq(render.pack_summary(r.pack, 'a'), 'context-ls: 1,234 / 4,000 tokens, 1 snippet copied to register a')
  eq(render.pins_summary('pin', r.pins), 'context-ls: Pinned. 2 pins add 2,000 tokens to every context pack.')
  eq(render.pins_summary('pin', { pins = { { tokens = 86 } } }), 'context-ls: Pinned. 1 pin adds 86 tokens to every context pack.')
  eq(render.pins_summary('unpin', { pins = {} }), 'context-ls: Unpinned. No pins left.')
  eq(render.reindex_question(r.reindexDry), 'Re-index 2 files in 2 folders and drop 1 file no longer indexable?')
  eq(render.error_text('ContextCallers', { code = -32601, message = 'callers: not supported by this server' }),
    'context-ls: ContextCallers failed: callers: not supported by this server')
  eq(render.error_text('X', '  '), 'context-ls: X failed: unknown error')
  -- protocol prefixes are not the user's business
  eq(render.error_text('ContextUnpin', { message = 'arguments[0]: inventory/stock.go:25-31: not pinned' }),
    'context-ls: ContextUnpin failed: inventory/stock.go:25-31: not pinned')
  eq(render.clean_error('arguments[0].position: no definition here; select a range instead'), 'no definition here; select a range instead')
  eq(render.clean_error('workspace/executeCommand: /tmp/ws: similar in /tmp/ws: similar: embeddings are not available (off: disabled by configuration)'),
    'similar: embeddings are not available (off: disabled by configuration)')
  eq(render.clean_error('/a/b.go: outside the workspace'), '/a/b.go: outside the workspace', 'a path alone is kept')
  eq(render.clean_error('callers: not supported by this server'), 'callers: not supported by this server')
end)

test('callees and unresolved calls', function()
  local res = { results = { { definition = { symbol = 'main' }, items = {
    { symbol = 'Stock.Reserve', kind = 'method', confidence = 'exact', reason = 'receiver type Stock',
      location = { uri = 'file:///ws/inventory/stock.go', range = { start = { line = 24, character = 0 }, ['end'] = { line = 30, character = 1 } } },
      sites = { { location = { uri = 'file:///ws/cmd/main.go', range = { start = { line = 13, character = 13 }, ['end'] = { line = 13, character = 22 } } } } } },
  }, unresolved = { 'fmt.Println', 'fmt.Println', 'os.Exit' } }, { definition = { symbol = 'other' }, items = {}, unresolved = vim.NIL } } }
  local items = render.callee_items(res, function()
    return ''
  end)
  eq(#items, 1)
  eq({ items[1].filename, items[1].lnum, items[1].text }, { '/ws/inventory/stock.go', 25, 'Stock.Reserve [method] (exact, receiver type Stock)' },
    'a callee is listed at its definition')
  eq(render.graph_unresolved(res), { 'fmt.Println', 'os.Exit' })
end)

test('progress end text says done once', function()
  eq(progress.end_text('Re-indexing', 'reindex-1 done: 6 files re-indexed, 0 removed, 0 failed'),
    'context-ls: Re-indexing: reindex-1 done: 6 files re-indexed, 0 removed, 0 failed')
  eq(progress.end_text('Indexing shop', '5/5 files'), 'context-ls: Indexing shop done: 5/5 files')
  eq(progress.end_text('Indexing shop', 'abandoned'), 'context-ls: Indexing shop done: abandoned', 'done inside a word is not done')
  eq(progress.end_text('Indexing shop', nil), 'context-ls: Indexing shop done')
end)

test('MCP registration JSON', function()
  local lines = render.mcp_registration('/opt/bin/context-ls', '/home/dev/my "shop"', {})
  local decoded = vim.fn.json_decode(table.concat(lines, '\n'))
  eq(decoded, { mcpServers = { ['context-ls'] = { command = '/opt/bin/context-ls', args = { 'mcp', '--root', '/home/dev/my "shop"' } } } })
  eq(lines[1], '{')
  eq(lines[5], '      "args": ["mcp", "--root", "/home/dev/my \\"shop\\""]')
  decoded = vim.fn.json_decode(table.concat(render.mcp_registration('cl', '/r', { dbPath = '.idx', modelPath = '/m', budgetTokens = 5 }), '\n'))
  eq(decoded.mcpServers['context-ls'].args, { 'mcp', '--root', '/r', '--db', '.idx', '--model-path', '/m' },
    'the agent uses the index and model the editor uses')
end)

test('line_reader reads files once and prefers loaded buffers', function()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  local f = dir .. '/a.txt'
  vim.fn.writefile({ 'one', 'two' }, f)
  local read = render.line_reader()
  eq(read(f, 1), 'two')
  vim.fn.writefile({ 'changed', 'changed' }, f)
  eq(read(f, 1), 'two', 'cached for this result set')
  eq(read(f, 5), '')
  eq(render.line_reader()(dir .. '/missing.txt', 0), '')
  vim.cmd('edit ' .. vim.fn.fnameescape(f))
  vim.api.nvim_buf_set_lines(0, 0, 1, false, { 'unsaved' })
  eq(render.line_reader()(f, 0), 'unsaved')
  vim.cmd('bwipeout!')
  vim.fn.delete(dir, 'rf')
end)

test('progress: begin, throttled reports, end', function()
  local shown = {}
  local orig = vim.api.nvim_echo
  vim.api.nvim_echo = function(chunks)
    table.insert(shown, chunks[1][1])
  end
  progress.configure('echo', 60000)
  eq(progress.on_progress('t1', { kind = 'begin', title = 'Indexing shop', percentage = 0 }), 'context-ls: Indexing shop (0%)')
  eq(progress.busy(), true)
  eq(progress.on_progress('t1', { kind = 'report', message = '1/10 files', percentage = 10 }), nil, 'throttled')
  eq(progress.on_progress('nope', { kind = 'report', message = 'x' }), nil, 'unknown token')
  eq(progress.on_progress(7, { kind = 'end' }), nil, 'end without begin')
  eq(progress.on_progress('t1', { kind = 'end', message = '10/10 files' }), 'context-ls: Indexing shop done: 10/10 files')
  eq(progress.busy(), false)
  progress.configure('echo', 0)
  progress.on_progress(3, { kind = 'begin', title = 'Re-indexing' })
  eq(progress.on_progress(3, { kind = 'report', message = '2/4 files', percentage = 50 }), 'context-ls: Re-indexing 2/4 files (50%)')
  progress.on_progress(3, { kind = 'end' })
  progress.configure(false, 0)
  progress.on_progress(4, { kind = 'begin', title = 'quiet' })
  progress.on_progress(4, { kind = 'end' })
  vim.api.nvim_echo = orig
  eq(shown, { 'context-ls: Indexing shop (0%)', 'context-ls: Indexing shop done: 10/10 files', 'context-ls: Re-indexing',
    'context-ls: Re-indexing 2/4 files (50%)', 'context-ls: Re-indexing done' }, 'echoed')
  eq(#progress.finished, 3)
end)

test('plugin file defines every command a mapping runs', function()
  vim.cmd('runtime plugin/context_ls.lua')
  local want = { 'ContextReindex', 'ContextRestart' }
  for _, c in pairs(require('context_ls.keymaps').COMMANDS) do
    table.insert(want, c)
  end
  for _, c in ipairs(want) do
    eq(vim.fn.exists(':' .. c), 2, c)
  end
end)

test('keymaps: defaults, overrides, off, tagfunc', function()
  local keymaps = require('context_ls.keymaps')
  local function buffer()
    local b = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_set_current_buf(b)
    return b
  end
  local function rhs(lhs, mode)
    local m = vim.fn.maparg(lhs, mode or 'n', false, true)
    if m.buffer ~= 1 then
      return nil
    end
    return m.callback and 'callback' or m.rhs
  end
  local b = buffer()
  local done = keymaps.apply(b, config.default_mappings())
  eq(rhs('K'), 'callback')
  eq(rhs('gd'), 'callback')
  eq(rhs('grc'), '<Cmd>ContextCallers<CR>')
  eq(rhs('gro'), '<Cmd>ContextCallees<CR>')
  eq(rhs('\\Cc', 'x'), ':ContextCopy<CR>', 'visual copy runs over the selection')
  eq(rhs('\\Ca'), '<Cmd>ContextAgents<CR>')
  eq(vim.bo[b].tagfunc, 'v:lua.vim.lsp.tagfunc')
  eq(#done, #config.MAPPINGS)
  eq(keymaps.apply(b, config.default_mappings()), {}, 'once per buffer')
  -- overridden and switched off
  b = buffer()
  vim.bo[b].tagfunc = 'MyTags'
  local m = config.merge({ mappings = { hover = false, callers = 'gX' } }).mappings
  keymaps.apply(b, m)
  eq(rhs('K'), nil)
  eq(rhs('grc'), nil)
  eq(rhs('gX'), '<Cmd>ContextCallers<CR>')
  eq(vim.bo[b].tagfunc, 'MyTags', "a user's tagfunc is kept")
  b = buffer()
  eq(keymaps.apply(b, false), {})
  eq(rhs('gd'), nil)
  eq(vim.bo[b].tagfunc, '')
end)

test('clients that nvim-lspconfig starts get the mappings too (LspAttach, 0.8+)', function()
  if vim.fn.has('nvim-0.8') == 0 then
    return -- no LspAttach: :help context-ls-lspconfig says to pass on_attach
  end
  local cl = require('context_ls')
  cl.setup({ autostart = false })
  local orig = vim.lsp.get_client_by_id
  local names = { [41] = 'context_ls', [42] = 'gopls' }
  vim.lsp.get_client_by_id = function(id)
    return names[id] and { id = id, name = names[id] } or orig(id)
  end
  local ours, other = vim.api.nvim_create_buf(true, false), vim.api.nvim_create_buf(true, false)
  local ok, err = pcall(function()
    vim.api.nvim_exec_autocmds('LspAttach', { buffer = other, modeline = false, data = { client_id = 42 } })
    vim.api.nvim_exec_autocmds('LspAttach', { buffer = ours, modeline = false, data = { client_id = 41 } })
  end)
  vim.lsp.get_client_by_id = orig
  assert(ok, err)
  vim.api.nvim_set_current_buf(ours)
  eq(vim.fn.maparg('grc', 'n', false, true).buffer, 1, 'context_ls client: mapped')
  vim.api.nvim_set_current_buf(other)
  eq(vim.fn.maparg('grc', 'n', false, true).buffer, nil, 'another server: not mapped')
end)

test('picker selection: quickfix default, Telescope or fzf-lua when installed (fake modules)', function()
  local function fake(installed)
    local calls = {}
    local mods = {
      ['telescope.pickers'] = { new = function(o, spec)
        table.insert(calls, { 'telescope', spec.prompt_title, spec.finder.results })
        return { find = function()
          table.insert(calls, { 'find' })
        end }
      end },
      ['telescope.finders'] = { new_table = function(t)
        return { results = t.results, entry_maker = t.entry_maker }
      end },
      ['telescope.config'] = { values = { qflist_previewer = function()
        return 'qfprev'
      end, generic_sorter = function()
        return 'sorter'
      end } },
      ['telescope.make_entry'] = { gen_from_quickfix = function()
        return 'qfentry'
      end },
      ['fzf-lua'] = { actions = { file_edit_or_qf = 'edit' }, fzf_exec = function(lines, o)
        table.insert(calls, { 'fzf', lines, o.prompt, o.actions.default, o.previewer })
      end },
    }
    local req = function(name)
      for _, prefix in ipairs(installed) do
        if name == prefix or name:sub(1, #prefix + 1) == prefix .. '.' then
          return mods[name]
        end
      end
      error('module ' .. name .. ' not found')
    end
    return req, calls
  end
  local req = fake({})
  eq({ picker.select('quickfix', req) }, { 'quickfix' })
  eq({ picker.select('auto', req) }, { 'quickfix' })
  local name, _, warning = picker.select('telescope', req)
  eq({ name, warning }, { 'quickfix', 'picker telescope is not installed; using the quickfix list' })
  req = fake({ 'fzf-lua' })
  eq(picker.select('auto', req), 'fzf-lua')
  eq(picker.select('quickfix', req), 'quickfix', 'installed pickers are not used unless asked for')
  req = fake({ 'fzf-lua', 'telescope' })
  eq(picker.select('auto', req), 'telescope', 'auto prefers Telescope')
  eq(picker.select('fzf-lua', req), 'fzf-lua')
  local items = { { filename = '/nowhere/a.go', lnum = 3, col = 5, text = 'F [function]' } }
  local calls
  req, calls = fake({ 'telescope' })
  eq({ picker.show('telescope', 'context-ls callers: F', items, { require = req }) }, { 'telescope' })
  eq(calls, { { 'telescope', 'context-ls callers: F', items }, { 'find' } })
  req, calls = fake({ 'fzf-lua' })
  eq({ picker.show('auto', 't', items, { require = req }) }, { 'fzf-lua' })
  eq(calls, { { 'fzf', { '/nowhere/a.go:3:5: F [function]' }, 't> ', 'edit', 'builtin' } })
  req = fake({})
  vim.fn.setqflist({}, ' ', { title = 'before', items = {} })
  eq({ picker.show('fzf-lua', 'context-ls search: x', items, { require = req }) },
    { 'quickfix', 'picker fzf-lua is not installed; using the quickfix list' })
  eq(vim.fn.getqflist({ title = 1 }).title, 'context-ls search: x')
end)

test('results view: groups with reasons, confidence and scores (golden); <CR> opens', function()
  local r = read_json('results.json')
  local related = vim.deepcopy(r.related)
  local outcomes = {
    callers = { res = r.callers },
    callees = { err = { message = 'workspace/executeCommand: callees: not supported by this server' } },
    tests = { res = r.tests },
    related = { res = related },
  }
  local model = render.results_model('/home/dev/shop', outcomes, function()
    return ''
  end)
  local lines, targets = view.lines(model)
  golden('results.golden', table.concat(lines, '\n') .. '\n')
  local located = 0
  for lnum, e in pairs(targets) do
    located = located + 1
    eq(lines[lnum]:find(':' .. e.item.lnum, 1, true) ~= nil, true, 'line ' .. lnum .. ' names its location')
  end
  eq(located, 1 + 3 + 2 + 2, 'one target per entry: definition, callers, tests, related')
  -- the buffer: <CR> on an entry opens its file at the line
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  vim.fn.writefile({ 'l1', 'l2', 'l3', 'four' }, dir .. '/f.go')
  vim.cmd('enew')
  local editor = vim.api.nvim_get_current_win()
  local bufnr = view.show({ title = 'T', root = dir, groups = { { name = 'Callers', entries = {
    { item = { filename = dir .. '/f.go', lnum = 4, col = 2 }, name = 'f', detail = 'exact' } } } } })
  local shown = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  eq(shown[5], '  f.go:4  f  exact')
  eq(vim.bo[bufnr].modifiable, false)
  vim.api.nvim_win_set_cursor(0, { 5, 0 })
  vim.cmd('execute "normal \\<CR>"')
  eq(vim.api.nvim_get_current_win(), editor, 'opened in the window the view came from')
  eq(vim.fn.expand('%:t'), 'f.go')
  eq(vim.api.nvim_win_get_cursor(0), { 4, 1 })
  eq(vim.fn.bufwinid(bufnr) ~= -1, true, 'the view stays')
  vim.cmd('only')
  vim.fn.delete(dir, 'rf')
end)

test('health: index and embeddings lines', function()
  local health = require('context_ls.health')
  local st = read_json('stats.json')
  eq(health.folder_report(st.folders[1]), {
    { 'ok', 'index: 12,345 files, 45,678 definitions, last full index 2026-11-23T01:02:03Z' },
    { 'ok', 'embeddings: ready' },
  })
  eq(health.folder_report(st.folders[2]), {
    { 'info', 'index: indexing, 1 / 3 files so far (3 files, 9 definitions)' },
    { 'warn', 'embeddings: unavailable: no ONNX Runtime library found (searched a|b)' },
  })
  local f = vim.deepcopy(st.folders[1])
  f.indexing.state = 'failed: disk full'
  f.embeddings = { state = 'off' }
  eq(health.folder_report(f), {
    { 'warn', 'index: failed: disk full (12,345 files, 45,678 definitions); :ContextReindex builds it again' },
    { 'info', 'embeddings: off (search uses BM25, symbol names and the call graph; :ContextSimilar needs them)' },
  })
end)

test('health: runtime, model and index from doctor', function()
  local health = require('context_ls.health')
  local rep = {
    checks = {
      { name = 'binary', status = 'ok', summary = 'context-ls 0.1.0' },
      { name = 'index', status = 'fail', summary = 'damaged: bad block', fix = 'context-ls index --verify rebuilds what is damaged' },
      { name = 'runtime', status = 'ok', summary = 'ONNX Runtime 1.24.1 loaded from /x/lib/libonnxruntime.so.1 (beside the binary)' },
      { name = 'model', status = 'warn', summary = 'model use-lite is not installed', fix = 'set modelPath' },
      { name = 'editors', status = 'info', summary = 'context-ls is not on PATH' },
    },
  }
  eq(health.doctor_report(rep), {
    { 'ok', 'runtime: ONNX Runtime 1.24.1 loaded from /x/lib/libonnxruntime.so.1 (beside the binary)' },
    { 'warn', 'model: model use-lite is not installed', 'set modelPath' },
    { 'error', 'index: damaged: bad block', 'context-ls index --verify rebuilds what is damaged' },
  })
  eq(health.doctor_report({ checks = { { name = 'index', status = 'info', summary = 'not built yet', fix = vim.NIL } } }),
    { { 'info', 'index: not built yet' } })
end)

test('the server the build step installed comes before PATH', function()
  local cl = require('context_ls')
  local saved = cl.PLUGIN_DIR
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir .. '/server/bin', 'p')
  local exe = dir .. '/server/bin/context-ls'
  vim.fn.writefile({ '#!/bin/sh', 'echo context-ls test' }, exe)
  vim.fn.setfperm(exe, 'rwxr-xr-x')
  cl.PLUGIN_DIR = dir
  eq(cl.installed_server(), exe)
  eq(cl.server_binary({ 'context-ls', 'serve' }), exe, 'the default name is the installed server')
  eq(cl.server_binary({ '/nonexistent/context-ls', 'serve' }), nil, 'a cmd the user gave is not replaced')
  vim.fn.delete(dir, 'rf')
  eq(cl.installed_server(), nil)
  cl.PLUGIN_DIR = saved
end)

test('pack preview state: drop, undrop, budget, request', function()
  local preview = require('context_ls.preview')
  local base = { textDocument = { uri = 'file:///ws/a.go' }, position = { line = 3, character = 0 }, format = 'markdown' }
  local st = preview.new(base, '/ws')
  eq(preview.request(st), base, 'nothing dropped, no budget set: the base request')
  local a = { path = 'a.go', startLine = 4, endLine = 9 }
  local b = { path = 'dir/b c.go', startLine = 1, endLine = 1 }
  eq(preview.key(a), 'a.go:4-9')
  eq(preview.drop(st, a), 'a.go:4-9')
  eq(preview.drop(st, a), nil, 'dropped once')
  eq(preview.drop(st, b), 'dir/b c.go:1-1')
  local req = preview.request(st)
  eq(req.exclude, { 'a.go:4-9', 'dir/b c.go:1-1' })
  eq(req.budget, nil)
  eq(base.exclude, nil, 'the base request is left alone')
  -- a copy changes apart from the state it comes from
  local c = preview.copy(st)
  eq(preview.undrop(c, 'a.go:4-9'), 'a.go:4-9', 'the named one comes back')
  eq(c.exclude, { 'dir/b c.go:1-1' })
  eq(st.exclude, { 'a.go:4-9', 'dir/b c.go:1-1' }, 'the copied state keeps its list')
  eq(preview.undrop(st), 'dir/b c.go:1-1', 'without a name: the last one dropped')
  eq(preview.undrop(st, 'nope:1-2'), nil)
  eq(preview.undrop(preview.new(base, '/ws')), nil, 'nothing to bring back')
  -- the budget: the server's until the user sets one
  eq(preview.budget(st), nil)
  st.result = { budget = 4000 }
  eq(preview.budget(st), 4000)
  eq(preview.step_budget(4000, true), 5000)
  eq(preview.step_budget(4000, false), 3200)
  eq(preview.step_budget(6250, true), 7800)
  eq(preview.step_budget(100, false), 100, 'never below the smallest budget')
  eq(preview.step_budget(999999, true), 1000000, 'never above the largest')
  st.budget = 6000
  eq(preview.budget(st), 6000)
  eq(preview.request(st).budget, 6000)
  eq({ preview.parse_budget(' 6,000 ') }, { 6000 })
  eq({ preview.parse_budget('abc') }, { nil, '"abc" is not a number of tokens' })
  eq({ preview.parse_budget('12.5') }, { nil, '"12.5" is not a number of tokens' })
  eq({ preview.parse_budget('50') }, { nil, 'a budget is 100 to 1,000,000 tokens' })
end)

test('pack preview: title, marks, why', function()
  local preview = require('context_ls.preview')
  local doc = { uri = 'file:///ws/inventory/stock.go' }
  local range = { start = { line = 24, character = 0 }, ['end'] = { line = 31, character = 0 } }
  eq(preview.title({ textDocument = doc, position = range.start, range = range }, '/ws'), 'pack for inventory/stock.go:25-31',
    'a selection ending at the start of a line leaves it out')
  eq(preview.title({ textDocument = doc, position = { line = 25, character = 3 }, query = 'why' }, '/ws',
    { items = { { source = 'caller', symbol = 'main' }, { source = 'selection', symbol = 'Stock.Reserve' } } }),
    'pack for the definition at inventory/stock.go:26 (Stock.Reserve), "why"')
  eq(preview.title({ query = 'how are invoices totalled' }, '/ws'), 'pack for "how are invoices totalled"')
  eq(preview.title({ symbol = 'Stock.Reserve' }, '/ws'), 'pack for Stock.Reserve')
  eq(preview.mark({ includeMode = 'manual', source = 'pinned' }), 'pinned')
  eq(preview.mark({ includeMode = 'always', source = 'always' }), 'always')
  eq(preview.mark({ includeMode = 'agent', source = 'query' }), '')
  eq(preview.why({ reason = 'caller of X', source = 'caller', includeMode = 'agent', score = 0.456 }), 'caller of X, score 0.46')
  eq(preview.why({ reason = 'mentions X', source = 'doc', includeMode = 'agent', score = 0.4, shortened = true }),
    'mentions X (doc), score 0.40, shortened')
  eq(preview.why({ reason = 'pinned', source = 'pinned', includeMode = 'manual', score = 1 }), 'pinned')
  eq(preview.why({ reason = vim.NIL, source = 'cochange', includeMode = 'agent' }), 'cochange')
end)

test('pack preview model (golden): items marked, dropped ones listed, <CR> targets', function()
  local preview = require('context_ls.preview')
  local res = read_json('pack.json').pack
  local st = preview.new({ textDocument = { uri = 'file:///home/dev/shop/inventory/stock.go' },
    range = { start = { line = 24, character = 0 }, ['end'] = { line = 30, character = 1 } } }, '/home/dev/shop')
  preview.drop(st, { path = 'inventory/stock_test.go', startLine = 8, endLine = 17 })
  local lines, targets = view.lines(preview.model(st, res, function()
    return ''
  end))
  golden('pack.golden', table.concat(lines, '\n') .. '\n')
  eq(lines[2], '1,234 / 1,500 tokens in 5 items, 2 dropped for the budget, 1 excluded')
  local n, dropped = 0, nil
  for lnum, e in pairs(targets) do
    n = n + 1
    if e.data.pack_item then
      eq(lines[lnum]:find(preview.key(e.data.pack_item), 1, true) ~= nil, true, 'line ' .. lnum .. ' names its item')
      eq(e.item.filename, '/home/dev/shop/' .. e.data.pack_item.path)
      eq(e.item.lnum, e.data.pack_item.startLine)
    else
      dropped = e
    end
  end
  eq(n, #res.items + 1, 'one target per item and per dropped one')
  eq({ dropped.data.dropped, dropped.item.filename, dropped.item.lnum },
    { 'inventory/stock_test.go:8-17', '/home/dev/shop/inventory/stock_test.go', 8 })
  -- nothing found: said in the list
  lines = view.lines(preview.model(preview.new({ query = 'zzz' }, '/w'), { tokens = 0, budget = 4000, dropped = 0, items = {} },
    function()
      return ''
    end))
  eq(vim.list_slice(lines, #lines - 1), { 'Items (0)', '  none: nothing relevant was found' })
end)

test('pins list model (golden), pins named for unpin, pinned items matched to their pin', function()
  local preview = require('context_ls.preview')
  local data = read_json('pack.json')
  local res = data.pins
  local lines, targets = view.lines(preview.pins_model(res, '/home/dev/shop', function()
    return ''
  end))
  golden('pins.golden', table.concat(lines, '\n') .. '\n')
  eq(vim.tbl_count(targets), #res.pins)
  eq(preview.pins_summary({ pins = {}, tokens = 0 }), 'Nothing is pinned: :ContextPin, or p in :ContextPreview, pins code into every pack.')
  eq(preview.pins_summary({ pins = { { tokens = 5 } }, tokens = 5 }), '1 pin adds 5 tokens to every context pack')
  -- a whole file is unpinned as a document, lines by their range
  local whole, lines_pin = res.pins[1], res.pins[2]
  eq(preview.pin_place(whole), { textDocument = { uri = 'file:///home/dev/shop/inventory/stock.go' } })
  eq(preview.pin_place(lines_pin), { textDocument = { uri = lines_pin.location.uri }, position = lines_pin.location.range.start,
    range = lines_pin.location.range })
  -- a pack item is pinned by its range
  local it = data.pack.items[3]
  eq(preview.item_place(it), { textDocument = { uri = it.location.uri }, position = it.location.range.start, range = it.location.range })
  -- the pinned pack item retry/backoff.py:1-6 comes from the second pin
  eq(preview.find_pin(res.pins, data.pack.items[1]), lines_pin)
  eq(preview.find_pin(res.pins, it), nil)
  eq(preview.find_pin(res.pins, { path = 'inventory/stock.go', startLine = 1, endLine = 31 }), whole, 'a whole file')
  -- a pin whose file is gone: unpin all, pin the readable others again
  local again, lost = preview.repin_plan(res.pins, res.pins[3])
  eq(again, { res.pins[1], res.pins[2], res.pins[5] })
  eq(lost, { 'old/notes.md' })
end)

test('pack text: markdown as is, json as the pack, nothing when empty', function()
  local res = read_json('pack.json').pack
  eq(render.pack_text(res), res.text)
  local j = vim.deepcopy(res)
  j.format, j.text = 'json', ''
  j.items[1].text = 'def retry():\n'
  local decoded = vim.fn.json_decode(render.pack_text(j))
  eq({ decoded.format, decoded.tokens, decoded.budget, decoded.dropped, decoded.excluded, #decoded.items, decoded.items[1].text },
    { 'json', 1234, 1500, 2, 1, 5, 'def retry():\n' })
  eq(decoded.latencyMs, nil)
  eq(render.pack_text({ text = '', format = 'markdown', items = { {} } }), '')
  eq(render.pack_text({ text = 'x', format = 'markdown', items = {} }), '', 'no items: nothing relevant')
end)

test(':help context-ls documents every command, option and mapping', function()
  vim.cmd('runtime plugin/context_ls.lua')
  local doc = table.concat(vim.fn.readfile(plugin .. '/doc/context-ls.txt'), '\n')
  for name, _ in pairs(vim.api.nvim_get_commands({})) do
    if name:find('^Context') then
      eq(doc:find('*:' .. name .. '*', 1, true) ~= nil, true, ':' .. name .. ' has a help tag')
    end
  end
  for key, _ in pairs(config.defaults()) do
    eq(doc:find('\n    ' .. key .. ' ~\n', 1, true) ~= nil, true, 'option ' .. key .. ' is documented')
  end
  for _, m in ipairs(config.MAPPINGS) do
    eq(doc:find('\n    ' .. m[1] .. '%s+' .. vim.pesc(m[2]) .. '%s') ~= nil, true, 'mapping ' .. m[1] .. ' ' .. m[2] .. ' is documented')
  end
  for _, topic in ipairs({ '*context-ls-mappings*', 'vim.lsp.buf.hover()', 'vim.lsp.buf.definition()', 'CTRL-]', ':checkhealth context_ls' }) do
    eq(doc:find(topic, 1, true) ~= nil, true, topic)
  end
  -- the keys of the pack preview and the pins list: in their help line and
  -- in their section of the help
  local preview = require('context_ls.preview')
  local section = doc:match('%*context%-ls%-preview%*(.-)\n=====')
  local previewdoc, pinsdoc = section:match('^(.-)%*context%-ls%-pins%*(.*)$')
  for _, c in ipairs({ { preview.KEYS, preview.HELP, previewdoc }, { preview.PINS_KEYS, preview.PINS_HELP, pinsdoc } }) do
    for _, k in ipairs(vim.list_extend({ { '<CR>' }, { 'q' } }, c[1])) do
      local lhs = vim.pesc(k[1])
      eq(c[2]:find(' ' .. lhs .. '[ /]') ~= nil or c[2]:find('/' .. lhs .. ' ') ~= nil, true, k[1] .. ' in the help line ' .. c[2])
      eq(c[3]:find('\n    ' .. lhs .. '%s%s+%a') ~= nil, true, k[1] .. ' documented')
    end
  end
end)

io.stdout:write(string.format('neovim unit: %d passed, %d failed\n', passed, failed))
vim.cmd(failed == 0 and 'qall!' or 'cquit 1')
