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
  eq(render.graph_symbols({ targets = {} }), '')
  dump('search', render.search_items(r.search, line_of))
  dump('callers', render.call_items(r.callers, line_of))
  dump('tests', render.test_items(r.tests, line_of))
  dump('related', render.related_items(r.related, line_of))
  golden('quickfix.golden', table.concat(out, '\n') .. '\n')
end)

test('render stats (golden) and messages', function()
  golden('stats.golden', table.concat(render.stats_lines(read_json('stats.json')), '\n') .. '\n')
  eq(render.stats_lines({ folders = {}, jobs = {} }), { '# context-ls index', '', 'No workspace folder is indexed.' })
  local r = read_json('results.json')
  eq(render.pack_summary(r.pack, 'a'), 'context-ls: 1,234 / 4,000 tokens, 1 snippet copied to register a')
  eq(render.pins_summary('pin', r.pins), 'context-ls: Pinned. 2 pins now add 2,000 tokens to every context pack')
  eq(render.pins_summary('unpin', { pins = {} }), 'context-ls: Unpinned. 0 pins now add 0 tokens to every context pack')
  eq(render.reindex_question(r.reindexDry), 'Re-index 2 files in 2 folders and drop 1 file no longer indexable?')
  eq(render.error_text('ContextCallers', { code = -32601, message = 'callers: not supported by this server' }),
    'context-ls: ContextCallers failed: callers: not supported by this server')
  eq(render.error_text('X', '  '), 'context-ls: X failed: unknown error')
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

test('plugin file defines every command', function()
  vim.cmd('runtime plugin/context_ls.lua')
  for _, c in ipairs({ 'ContextCopy', 'ContextQuery', 'ContextRelated', 'ContextCallers', 'ContextTests', 'ContextSearch',
    'ContextPin', 'ContextUnpin', 'ContextStats', 'ContextReindex', 'ContextRestart' }) do
    eq(vim.fn.exists(':' .. c), 2, c)
  end
end)

io.stdout:write(string.format('neovim unit: %d passed, %d failed\n', passed, failed))
vim.cmd(failed == 0 and 'qall!' or 'cquit 1')
