-- Command arguments from editor state: the document URI (as the LSP client
-- sends it), the cursor and selection as LSP positions (UTF-16 columns).
local util = require('context_ls.util')
local protocol = require('context_ls.protocol')

local M = {}

local function line_text(bufnr, row)
  return vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
end

-- position converts a 0-based row and byte column of a buffer to an LSP position.
function M.position(bufnr, row, col)
  return { line = row, character = util.utf16_units(line_text(bufnr, row), col) }
end

-- selection describes a command range. `cmd` is the table a user command
-- receives (range, line1, line2); the visual marks refine a charwise
-- selection. Returns nil without a range, else {start = {row, col},
-- finish = {row, col}} with 0-based rows and byte columns, finish exclusive.
function M.selection(bufnr, cmd)
  if cmd == nil or (cmd.range or 0) == 0 then
    return nil
  end
  local l1, l2 = cmd.line1, cmd.line2
  local vs, ve = vim.fn.getpos("'<"), vim.fn.getpos("'>")
  local charwise = vim.fn.visualmode() == 'v' and vs[2] == l1 and ve[2] == l2
  if charwise then
    local last = line_text(bufnr, l2 - 1)
    local end_byte = math.min(ve[3], #last) -- mark columns are 1-based, inclusive
    -- include the whole multibyte character the end mark sits on
    while end_byte < #last do
      local c = last:byte(end_byte + 1)
      if c < 0x80 or c >= 0xC0 then
        break
      end
      end_byte = end_byte + 1
    end
    return { start = { l1 - 1, math.max(vs[3] - 1, 0) }, finish = { l2 - 1, end_byte } }
  end
  return { start = { l1 - 1, 0 }, finish = { l2 - 1, #line_text(bufnr, l2 - 1) } }
end

-- place builds place arguments: the document, the cursor position and,
-- with a selection, its range. The position is the selection's start when
-- there is one, the cursor otherwise.
function M.place(bufnr, cursor, sel)
  local args = { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }
  if sel then
    local s = M.position(bufnr, sel.start[1], sel.start[2])
    local e = M.position(bufnr, sel.finish[1], sel.finish[2])
    args.position = s
    args.range = { start = s, ['end'] = e }
  else
    args.position = M.position(bufnr, cursor[1], cursor[2])
  end
  return args
end

-- current returns place arguments for the current window and a command
-- range (cmd may be nil).
function M.current(cmd)
  local bufnr = vim.api.nvim_get_current_buf()
  local cur = vim.api.nvim_win_get_cursor(0) -- {1-based row, 0-based byte col}
  return M.place(bufnr, { cur[1] - 1, cur[2] }, M.selection(bufnr, cmd))
end

-- FILTERS maps a search filter prefix to the contextLs.search argument it
-- fills: "lang:go,python kind:function path:internal/** path:!**/*_test.go".
M.FILTERS = { lang = 'languages', kind = 'kinds', path = 'paths' }

-- parse_search splits what the user typed into the query words and the
-- filters (prefix:value, values separated by commas, a prefix repeated
-- adds values). Returns {query, languages, kinds, paths} (absent filters
-- nil); query is '' when only filters were typed.
function M.parse_search(text)
  local words, out = {}, {}
  for word in vim.trim(text or ''):gmatch('%S+') do
    local prefix, value = word:match('^(%a+):(.+)$')
    local key = prefix and M.FILTERS[prefix:lower()]
    if key then
      out[key] = out[key] or {}
      for v in value:gmatch('[^,]+') do
        table.insert(out[key], v)
      end
    else
      table.insert(words, word)
    end
  end
  out.query = table.concat(words, ' ')
  return out
end

-- filters_text renders the filters of a parsed search the way they are
-- typed ("lang:go kind:function"), '' without filters.
function M.filters_text(parsed)
  local parts = {}
  for _, prefix in ipairs({ 'lang', 'kind', 'path' }) do
    local values = parsed[M.FILTERS[prefix]]
    if values and #values > 0 then
      table.insert(parts, prefix .. ':' .. table.concat(values, ','))
    end
  end
  return table.concat(parts, ' ')
end

-- clamp_k keeps a k the user configured within what the command takes
-- (protocol.lua's limits), its default when none is configured.
local function clamp_k(command, k)
  local lim = protocol.limits[command].k
  return math.max(lim.min, math.min(lim.max, math.floor(k or lim.default)))
end

-- search builds contextLs.search arguments from what the user typed
-- (words and filters, see parse_search); nil without query words.
function M.search(text, k)
  local parsed = M.parse_search(text)
  if parsed.query == '' then
    return nil
  end
  parsed.k = clamp_k('search', k)
  return parsed
end

-- similar builds contextLs.similar arguments: the snippet when one is
-- given, else the place arguments.
function M.similar(text, place, k)
  local args
  if text and vim.trim(text) ~= '' then
    args = { snippet = vim.trim(text) }
  else
    args = vim.deepcopy(place)
  end
  args.k = clamp_k('similar', k)
  return args
end

-- pack builds contextLs.contextPack arguments from place args or a query.
function M.pack(place_or_query, format)
  local args
  if type(place_or_query) == 'string' then
    local q = vim.trim(place_or_query)
    if q == '' then
      return nil
    end
    args = { query = q }
  else
    args = vim.deepcopy(place_or_query)
  end
  args.format = format
  return args
end

return M
