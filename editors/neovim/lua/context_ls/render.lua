-- Rendering server results for Neovim: quickfix items (path:line and
-- symbol), the stats buffer, and notification texts.
local util = require('context_ls.util')

local M = {}

-- The largest file read to turn a UTF-16 column into a byte column.
M.MAX_READ = 4 * 1024 * 1024

-- line_reader returns a function(fname, row) giving the text of a 0-based
-- row: from a loaded buffer, else from the file (read once per reader).
function M.line_reader()
  local cache = {}
  return function(fname, row)
    local bufnr = vim.fn.bufnr(fname)
    if bufnr ~= -1 and vim.api.nvim_buf_is_loaded(bufnr) then
      return vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
    end
    local lines = cache[fname]
    if lines == nil then
      lines = {}
      local size = vim.fn.getfsize(fname)
      if size >= 0 and size <= M.MAX_READ then
        local ok, read = pcall(vim.fn.readfile, fname)
        if ok then
          lines = read
        end
      end
      cache[fname] = lines
    end
    return lines[row + 1] or ''
  end
end

-- item turns an LSP location and a text into a quickfix item.
function M.item(loc, text, line_of)
  local fname = util.uri_to_fname(loc.uri)
  local s, e = loc.range.start, loc.range['end']
  local col = 1
  if s.character > 0 then
    col = util.byte_of_utf16(line_of(fname, s.line), s.character) + 1
  end
  return {
    filename = fname,
    lnum = s.line + 1,
    col = col,
    end_lnum = e and (e.line + 1) or nil,
    text = text,
  }
end

local function label(kind, symbol, fallback)
  local name = (symbol and symbol ~= '') and symbol or fallback
  if kind and kind ~= '' then
    return string.format('%s [%s]', name, kind)
  end
  return name
end

-- search_items: one item per hit, "symbol [kind]: first snippet line".
function M.search_items(res, line_of)
  local out = {}
  for _, h in ipairs(res.hits or {}) do
    local text = label(h.kind, h.symbol, h.path)
    local first = util.first_line(h.text)
    if first ~= '' then
      text = text .. ': ' .. first
    end
    table.insert(out, M.item(h.location, text, line_of))
  end
  return out
end

-- graph_symbols: the definitions a callers/callees/tests result is about.
function M.graph_symbols(res)
  local seen, out = {}, {}
  for _, t in ipairs(res.results or {}) do
    local sym = t.definition and t.definition.symbol
    if sym and sym ~= '' and not seen[sym] then
      seen[sym] = true
      table.insert(out, sym)
    end
  end
  return table.concat(out, ', ')
end

-- graph_omitted: items the server left out (name-only matches, past the limit).
function M.graph_omitted(res)
  local n = 0
  for _, t in ipairs(res.results or {}) do
    n = n + (tonumber(t.omitted) or 0) + (tonumber(t.truncated) or 0)
  end
  return n
end

-- join joins its non-empty arguments with ", " (nil arguments included:
-- ipairs would stop at the first one).
local function join(...)
  local out = {}
  for i = 1, select('#', ...) do
    local p = select(i, ...)
    if p ~= nil and p ~= vim.NIL and p ~= '' then
      table.insert(out, p)
    end
  end
  return table.concat(out, ', ')
end

-- sites_of: the LSP locations of a graph item's call sites (none: {}).
local function sites_of(it)
  local out = {}
  local sites = it.sites
  if sites ~= nil and sites ~= vim.NIL then
    for _, s in ipairs(sites) do
      table.insert(out, s.location)
    end
  end
  return out
end

-- call_items: one item per call site, named after the calling definition
-- with how the call was resolved; an item without call sites is listed at
-- its definition.
function M.call_items(res, line_of)
  local out = {}
  for _, t in ipairs(res.results or {}) do
    for _, it in ipairs(t.items or {}) do
      local text = string.format('%s (%s)', label(it.kind, it.symbol, '?'), join(it.confidence, it.reason))
      local sites = sites_of(it)
      if #sites == 0 then
        sites = { it.location }
      end
      for _, site in ipairs(sites) do
        table.insert(out, M.item(site, text, line_of))
      end
    end
  end
  return out
end

-- callee_items: one item per callee, at its definition, with how the
-- call was resolved.
function M.callee_items(res, line_of)
  local out = {}
  for _, t in ipairs(res.results or {}) do
    for _, it in ipairs(t.items or {}) do
      local text = string.format('%s (%s)', label(it.kind, it.symbol, '?'), join(it.confidence, it.reason))
      table.insert(out, M.item(it.location, text, line_of))
    end
  end
  return out
end

-- graph_unresolved: the calls of a callees result that match no workspace
-- definition ("fmt.Println"), each once.
function M.graph_unresolved(res)
  local seen, out = {}, {}
  for _, t in ipairs(res.results or {}) do
    local list = t.unresolved
    for _, name in ipairs((list ~= nil and list ~= vim.NIL) and list or {}) do
      if not seen[name] then
        seen[name] = true
        table.insert(out, name)
      end
    end
  end
  return out
end

-- present is v unless it is nil, JSON null or ''.
function M.present(v)
  if v == nil or v == vim.NIL or v == '' then
    return nil
  end
  return v
end
local present = M.present

-- why_via is why a graph item is listed (a test's detail, else the reason)
-- and the definition a two-hop test goes through ("via main"), or nil.
local function why_via(it)
  return present(it.detail) or it.reason, present(it.via) and ('via ' .. it.via) or nil
end

-- related_name names a related item: its symbol, else its file name.
local function related_name(it)
  return present(it.symbol) or vim.fn.fnamemodify(util.uri_to_fname(it.location.uri), ':t')
end

-- test_items: one item per test, at its definition, with why it counts.
function M.test_items(res, line_of)
  local out = {}
  for _, t in ipairs(res.results or {}) do
    for _, it in ipairs(t.items or {}) do
      local why, via = why_via(it)
      table.insert(out, M.item(it.location, string.format('%s: %s', it.symbol, join(why, via, it.confidence)), line_of))
    end
  end
  return out
end

-- related_items: one item per related snippet with its reason and cost.
function M.related_items(res, line_of)
  local out = {}
  for _, it in ipairs(res.items or {}) do
    table.insert(out, M.item(it.location, string.format('%s (%s, %d tokens)', related_name(it), it.reason or '', it.tokens or 0), line_of))
  end
  return out
end

-- score_text formats a 0..1 relevance as "0.92".
local function score_text(v)
  return string.format('score %.2f', tonumber(v) or 0)
end

local function graph_entries(res, at_definition, line_of)
  local out = {}
  for _, t in ipairs(res.results or {}) do
    for _, it in ipairs(t.items or {}) do
      local sites = sites_of(it)
      local loc = it.location
      if not at_definition and #sites > 0 then
        loc = sites[1]
      end
      local why, via = why_via(it)
      table.insert(out, { item = M.item(loc, '', line_of), name = label(it.kind, it.symbol, '?'), detail = join(it.confidence, why, via) })
    end
  end
  return out
end

-- results_model builds the results view's model (see view.lua) from the
-- outcomes of callers, callees, tests and relatedContext for one place:
-- outcomes[kind] = {err = ..., res = ...}. Definitions are what the place
-- names; callers are listed at their first call site, callees and tests at
-- their definitions; related items carry their score, reason and tokens.
function M.results_model(root, outcomes, line_of)
  local defs, seen, title = {}, {}, nil
  for _, kind in ipairs({ 'callers', 'callees', 'tests' }) do
    local o = outcomes[kind]
    for _, t in ipairs((o and o.res and o.res.results) or {}) do
      local d = t.definition
      local key = d.nameLocation.uri .. ':' .. d.nameLocation.range.start.line
      if not seen[key] then
        seen[key] = true
        title = title or d.symbol
        table.insert(defs, { item = M.item(d.nameLocation, '', line_of), name = label(d.kind, d.symbol, '?'), detail = '' })
      end
    end
  end
  local related = outcomes.related and outcomes.related.res
  title = title or (related and related.symbol ~= vim.NIL and related.symbol) or ''
  local function group(name, kind, entries_of, note_of)
    local o = outcomes[kind] or {}
    local g = { name = name, entries = {} }
    if o.err then
      g.error = M.clean_error(type(o.err) == 'table' and tostring(o.err.message) or tostring(o.err))
    elseif o.res then
      g.entries = entries_of(o.res)
      g.note = note_of and note_of(o.res) or nil
    end
    return g
  end
  local function omitted(res)
    local n = M.graph_omitted(res)
    return n > 0 and string.format('%d more left out (name-only matches or past the limit)', n) or nil
  end
  local groups = {
    { name = 'Definitions', entries = defs },
    group('Callers', 'callers', function(r)
      return graph_entries(r, false, line_of)
    end, omitted),
    group('Callees', 'callees', function(r)
      return graph_entries(r, true, line_of)
    end, function(r)
      local parts, un, left = {}, M.graph_unresolved(r), omitted(r)
      if #un > 0 then
        table.insert(parts, 'calls outside the workspace: ' .. table.concat(un, ', '))
      end
      if left then
        table.insert(parts, left)
      end
      return #parts > 0 and table.concat(parts, '; ') or nil
    end),
    group('Tests', 'tests', function(r)
      return graph_entries(r, true, line_of)
    end, omitted),
    group('Related', 'related', function(r)
      local out = {}
      for _, it in ipairs(r.items or {}) do
        table.insert(out, {
          item = M.item(it.location, '', line_of),
          name = label(present(it.kind), related_name(it), '?'),
          detail = join(score_text(it.score), it.reason, util.group_digits(it.tokens) .. ' tokens'),
        })
      end
      return out
    end),
  }
  return { title = title, root = root, groups = groups }
end

-- pack_text is what copying a pack puts into a register: its text, or
-- with format json (whose text the server leaves empty: the items carry
-- theirs) the pack as JSON, as `context-ls pack --format json` prints it.
-- '' when the pack holds nothing.
function M.pack_text(res)
  if #(res.items or {}) == 0 then
    return ''
  end
  if (res.text or '') ~= '' then
    return res.text
  end
  if res.format ~= 'json' then
    return ''
  end
  local out = {}
  for _, k in ipairs({ 'format', 'tokens', 'budget', 'dropped', 'excluded', 'items', 'notes' }) do
    out[k] = res[k]
  end
  return vim.fn.json_encode(out) .. '\n'
end

-- pack_summary: the message after a pack was copied.
function M.pack_summary(res, register)
  local n = #(res.items or {})
  return string.format('context-ls: %s / %s tokens, %d snippet%s copied to register %s', util.group_digits(res.tokens),
    util.group_digits(res.budget), n, n == 1 and '' or 's', register)
end

-- pins_summary: the message after pin or unpin: how many pins there are
-- now and what they add to every pack.
function M.pins_summary(action, res)
  local pins = res.pins or {}
  local tokens = 0
  for _, p in ipairs(pins) do
    tokens = tokens + (p.tokens or 0)
  end
  local head = action == 'pin' and 'Pinned.' or 'Unpinned.'
  if #pins == 0 then
    return 'context-ls: ' .. head .. ' No pins left.'
  end
  return string.format('context-ls: %s %d pin%s %s %s tokens to every context pack.', head, #pins, #pins == 1 and '' or 's',
    #pins == 1 and 'adds' or 'add', util.group_digits(tokens))
end

-- reindex_question: the confirmation asked before a reindex.
function M.reindex_question(dry)
  local files, removed = 0, 0
  for _, f in ipairs(dry.folders or {}) do
    files = files + (f.reindexCount or #(f.reindex or {}))
    removed = removed + (f.removeCount or #(f.remove or {}))
  end
  local nf = #(dry.folders or {})
  local drop = ''
  if removed > 0 then
    drop = string.format(' and drop %d file%s no longer indexable', removed, removed == 1 and '' or 's')
  end
  return string.format('Re-index %s file%s in %d folder%s%s?', util.group_digits(files), files == 1 and '' or 's', nf,
    nf == 1 and '' or 's', drop)
end

local function bytes(n)
  local units = { 'B', 'KiB', 'MiB', 'GiB', 'TiB' }
  local u = 1
  while n >= 1024 and u < #units do
    n = n / 1024
    u = u + 1
  end
  if u == 1 then
    return string.format('%d B', n)
  end
  return string.format('%.1f %s', n, units[u])
end

-- figure renders a number the server may not have yet.
local function figure(v, fmt, none)
  if v == nil or v == vim.NIL then
    return none
  end
  return fmt(v)
end

-- M.embeddings_text says an embeddings state in words: "ready", "off",
-- "unavailable: reason".
function M.embeddings_text(e)
  if type(e) ~= 'table' then
    return tostring(e or 'unknown')
  end
  local s = tostring(e.state or 'unknown')
  if e.reason and e.reason ~= vim.NIL and e.reason ~= '' then
    s = s .. ': ' .. e.reason
  end
  return s
end

-- stats_lines renders contextLs.stats as Markdown lines.
function M.stats_lines(stats)
  local out = { '# context-ls index', '' }
  local folders = stats.folders or {}
  if #folders == 0 then
    table.insert(out, 'No workspace folder is indexed.')
  end
  for _, f in ipairs(folders) do
    local langs = {}
    for l, n in pairs(f.languages or {}) do
      table.insert(langs, { l, n })
    end
    table.sort(langs, function(a, b)
      if a[2] ~= b[2] then
        return a[2] > b[2]
      end
      return a[1] < b[1]
    end)
    local lang_text = {}
    for _, ln in ipairs(langs) do
      table.insert(lang_text, ln[1] .. ' ' .. util.group_digits(ln[2]))
    end
    local ix = f.indexing or {}
    local q = f.queries or {}
    vim.list_extend(out, {
      '## ' .. util.uri_to_fname(f.folder),
      '',
      'index:       ' .. tostring(f.index) .. ' (' .. bytes(f.indexBytes or 0) .. ')',
      'files:       ' .. util.group_digits(f.files),
      'definitions: ' .. util.group_digits(f.symbols),
      'chunks:      ' .. util.group_digits(f.chunks),
      'lines:       ' .. util.group_digits(f.lines),
      'languages:   ' .. (#lang_text > 0 and table.concat(lang_text, ', ') or 'none'),
      string.format('indexing:    %s, %s / %s files (%d %%)%s', tostring(ix.state), util.group_digits(ix.done),
        util.group_digits(ix.total), math.floor((ix.complete or 0) * 100 + 0.5),
        (f.lastIndex and f.lastIndex ~= vim.NIL) and (', last full index ' .. f.lastIndex) or ''),
      'embeddings:  ' .. M.embeddings_text(f.embeddings),
      string.format('searches:    %s (p50 %.1f ms, p95 %.1f ms)', util.group_digits(q.count), q.p50Ms or 0, q.p95Ms or 0),
      'cache hits:  ' .. figure((f.embeddings or {}).cacheHitRate, function(v) return string.format('%.1f %%', v * 100) end, 'none yet'),
      'avg pack:    ' .. figure((f.packs or {}).avgTokens, function(v) return util.group_digits(math.floor(v + 0.5)) .. ' tokens' end, 'no pack built yet'),
      'buffers:     ' .. util.group_digits(f.openBuffers),
    })
    if f.recent and #f.recent > 0 then
      table.insert(out, '')
      table.insert(out, 'Recent activity:')
      for _, r in ipairs(f.recent) do
        table.insert(out, '- ' .. r)
      end
    end
    table.insert(out, '')
  end
  local jobs = {}
  for _, f in ipairs(folders) do
    vim.list_extend(jobs, f.jobs or {})
  end
  if #jobs > 0 then
    table.insert(out, '## Reindex jobs')
    table.insert(out, '')
    for _, j in ipairs(jobs) do
      table.insert(out, string.format('- %s: %s, %s / %s files (%d indexed, %d removed, %d failed)', j.jobId, j.status,
        util.group_digits(j.done), util.group_digits(j.total), j.indexed or 0, j.removed or 0, j.failed or 0))
    end
  end
  return out
end

-- clean_error strips what the user need not read from a server error: the
-- method and argument paths ("workspace/executeCommand: ",
-- "arguments[0].position: ") and the folder and command prefixes the
-- server chains ("/ws: similar in /ws: similar: ").
function M.clean_error(msg)
  local prev
  repeat
    prev = msg
    msg = msg:gsub('^workspace/executeCommand:%s*', '')
    msg = msg:gsub('^arguments%[%d+%][%w_%.%[%]]*:%s*', '')
    msg = msg:gsub('^(/[^:]*):%s*%a+ in %1:%s*', '') -- "/ws: similar in /ws: "
    msg = msg:gsub('^(%a+):%s*(%a+):%s*', function(a, b)
      if a == b then
        return a .. ': '
      end
    end)
  until msg == prev
  return msg
end

-- error_text is the message for a failed request: the server's own words,
-- cleaned of protocol prefixes (clean_error).
function M.error_text(what, err)
  local msg
  if type(err) == 'table' then
    msg = err.message or vim.inspect(err)
  else
    msg = tostring(err)
  end
  msg = M.clean_error(vim.trim(msg))
  if msg == '' then
    msg = 'unknown error'
  end
  return string.format('context-ls: %s failed: %s', what, msg)
end

-- mcp_registration is the mcpServers JSON a coding agent needs to run
-- `context-ls mcp` on the same workspace and index as the editor: the
-- resolved binary, --root, and --db / --model-path when the settings name
-- them (an index has one location; both servers must agree on it).
function M.mcp_registration(binary, root, settings)
  local args = { 'mcp', '--root', root }
  if settings and settings.dbPath and settings.dbPath ~= '' then
    vim.list_extend(args, { '--db', settings.dbPath })
  end
  if settings and settings.modelPath and settings.modelPath ~= '' then
    vim.list_extend(args, { '--model-path', settings.modelPath })
  end
  local quoted = {}
  for _, a in ipairs(args) do
    table.insert(quoted, vim.fn.json_encode(a))
  end
  return {
    '{',
    '  "mcpServers": {',
    '    "context-ls": {',
    '      "command": ' .. vim.fn.json_encode(binary) .. ',',
    '      "args": [' .. table.concat(quoted, ', ') .. ']',
    '    }',
    '  }',
    '}',
  }
end

return M
