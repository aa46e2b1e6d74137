-- The pack preview and the pins list: their state and their view models
-- (see view.lua), pure functions of the server's answers, tested in
-- tests/unit.lua. init.lua sends the requests and maps the keys.
--
-- The preview's state is the request it was opened for (a place, a query
-- or both), the items the user dropped (sent back as `exclude`, so the
-- freed budget goes to the next candidates) and the budget the user set.
local util = require('context_ls.util')
local render = require('context_ls.render')
local view = require('context_ls.view')
local protocol = require('context_ls.protocol')

local M = {}

-- Buffer names of the pack preview and the pins list.
M.BUFFER = 'context-ls://pack'
M.PINS_BUFFER = 'context-ls://pins'

-- The budgets contextLs.contextPack accepts.
M.MIN_BUDGET, M.MAX_BUDGET = protocol.limits.pack.budget.min, protocol.limits.pack.budget.max

-- KEYS are the pack preview's keys besides <CR> (open) and q (close),
-- which every view has: { lhs, action, description }. HELP is its help
-- line; :help context-ls-preview documents each key.
M.KEYS = {
  { 'd', 'drop', 'leave the item under the cursor out of the pack' },
  { 'u', 'undrop', 'bring back the dropped item under the cursor, else the last one dropped' },
  { 'p', 'pin', 'pin the item under the cursor, or unpin it when it is pinned' },
  { '+', 'more', 'raise the budget by a quarter' },
  { '-', 'less', 'lower the budget by a quarter' },
  { 'b', 'budget', 'set the budget' },
  { 'y', 'copy', 'copy the pack into the default register ("xy: into register x)' },
  { 'i', 'insert', 'insert the pack below the cursor of the window the preview came from' },
  { 'r', 'refresh', 'build the pack again' },
}
M.HELP = 'keys: <CR> open  d drop  u undrop  p pin/unpin  +/- budget  b set budget  y copy  i insert  r refresh  q close'

-- PINS_KEYS and PINS_HELP are the pins list's.
M.PINS_KEYS = {
  { 'd', 'unpin', 'unpin the pin under the cursor' },
  { 'D', 'clear', 'unpin every pin (asks first)' },
  { 'r', 'refresh', 'list the pins again' },
}
M.PINS_HELP = 'keys: <CR> open  d unpin  D unpin all  r refresh  q close'

local present = render.present

local function plural(n, word)
  return string.format('%s %s%s', util.group_digits(n), word, n == 1 and '' or 's')
end

-- new is the state of a preview of the pack that `base` (contextPack
-- arguments: a place and/or a query, and the format) asks for, in the
-- workspace `root`.
function M.new(base, root)
  return { base = base, root = root, exclude = {}, budget = nil, result = nil }
end

-- copy is a state to change and ask for: its own list of dropped items,
-- the rest shared (the shown answer stays until the new one comes).
function M.copy(state)
  local c = vim.tbl_extend('force', {}, state)
  c.exclude = vim.deepcopy(state.exclude)
  return c
end

-- key names a pack item as `exclude` takes it: PATH:A-B.
function M.key(item)
  return string.format('%s:%d-%d', item.path, item.startLine, item.endLine)
end

-- request is the contextPack arguments of the state: the base, the
-- dropped items as exclude and the budget the user set.
function M.request(state)
  local a = vim.deepcopy(state.base)
  if #state.exclude > 0 then
    a.exclude = vim.deepcopy(state.exclude)
  end
  if state.budget then
    a.budget = state.budget
  end
  return a
end

-- drop leaves an item out of the next packs; it returns its key, or nil
-- when it was dropped already.
function M.drop(state, item)
  local k = M.key(item)
  if vim.tbl_contains(state.exclude, k) then
    return nil
  end
  table.insert(state.exclude, k)
  return k
end

-- undrop brings back the dropped item `key` (nil: the last one dropped);
-- it returns its key, or nil when there is nothing to bring back.
function M.undrop(state, key)
  for i = #state.exclude, 1, -1 do
    if key == nil or state.exclude[i] == key then
      return table.remove(state.exclude, i)
    end
  end
  return nil
end

-- budget is the budget in effect: the one the user set, else the last
-- pack's (nil before the first answer).
function M.budget(state)
  return state.budget or (state.result and state.result.budget) or nil
end

-- step_budget is a quarter more (up) or less than budget, rounded to 100
-- tokens, within MIN_BUDGET and MAX_BUDGET.
function M.step_budget(budget, up)
  local v = up and budget * 1.25 or budget / 1.25
  v = math.floor(v / 100 + 0.5) * 100
  return math.max(M.MIN_BUDGET, math.min(M.MAX_BUDGET, v))
end

-- parse_budget reads a budget the user typed ("6000", "6,000"); nil and
-- the reason when it is not a whole number in range.
function M.parse_budget(text)
  local s = vim.trim(tostring(text or '')):gsub('[,_]', '')
  local n = tonumber(s)
  if not n or n ~= math.floor(n) then
    return nil, string.format('"%s" is not a number of tokens', vim.trim(tostring(text or '')))
  end
  if n < M.MIN_BUDGET or n > M.MAX_BUDGET then
    return nil, string.format('a budget is %s to %s tokens', util.group_digits(M.MIN_BUDGET), util.group_digits(M.MAX_BUDGET))
  end
  return n
end

-- range_lines are the 1-based lines a selection covers (one ending at the
-- start of a later line leaves that line out, as the server counts).
local function range_lines(r)
  local s, e = r.start.line + 1, r['end'].line + 1
  if r['end'].character == 0 and e > s then
    e = e - 1
  end
  return s, e
end

-- title says what a pack is for: the range, the definition at the cursor,
-- the symbol, the query (and the selected definition, once an answer
-- names it).
function M.title(base, root, res)
  local parts = {}
  local uri = (base.textDocument and base.textDocument.uri) or base.uri
  if uri then
    local where = view.rel(root, util.uri_to_fname(uri))
    if base.range then
      local s, e = range_lines(base.range)
      table.insert(parts, string.format('%s:%d-%d', where, s, e))
    elseif base.position then
      table.insert(parts, string.format('the definition at %s:%d', where, base.position.line + 1))
    else
      table.insert(parts, where)
    end
  elseif present(base.symbol) then
    table.insert(parts, base.symbol)
  end
  for _, it in ipairs((res and res.items) or {}) do
    if it.source == 'selection' and present(it.symbol) and #parts > 0 then
      parts[#parts] = parts[#parts] .. ' (' .. it.symbol .. ')'
      break
    end
  end
  if present(base.query) then
    table.insert(parts, '"' .. base.query .. '"')
  end
  return 'pack for ' .. table.concat(parts, ', ')
end

-- summary is the preview's total: tokens against the budget, items,
-- dropped and excluded counts.
function M.summary(res)
  return string.format('%s / %s tokens in %s, %d dropped for the budget, %d excluded', util.group_digits(res.tokens),
    util.group_digits(res.budget), plural(#(res.items or {}), 'item'), res.dropped or 0, res.excluded or 0)
end

-- mark says how an item is included: pinned, always (the selection, rules
-- files) or '' (chosen by relevance).
function M.mark(it)
  if it.includeMode == 'manual' or it.source == 'pinned' then
    return 'pinned'
  elseif it.includeMode == 'always' then
    return 'always'
  end
  return ''
end

-- why is why an item is in: its reason, its source when the reason does
-- not say it, its score when chosen by relevance, and whether it was
-- shortened.
function M.why(it)
  local reason, source = present(it.reason) or '', present(it.source)
  local parts = {}
  if source and not reason:lower():find(source:lower(), 1, true) then
    reason = reason ~= '' and string.format('%s (%s)', reason, source) or source
  end
  table.insert(parts, reason)
  if it.includeMode == 'agent' and tonumber(it.score) then
    table.insert(parts, string.format('score %.2f', it.score))
  end
  if it.shortened == true then
    table.insert(parts, 'shortened')
  end
  return table.concat(parts, ', ')
end

-- name is an item's definition and kind, else its file name.
local function item_name(it)
  local name = present(it.symbol) or vim.fn.fnamemodify(it.path, ':t')
  local kind = present(it.kind)
  if kind and kind ~= it.source then
    name = string.format('%s [%s]', name, kind)
  end
  return name
end

-- tokens_column renders token counts right-aligned to the widest.
local function tokens_column(list)
  local width = 0
  for _, x in ipairs(list) do
    width = math.max(width, #util.group_digits(x.tokens))
  end
  return function(n)
    local s = util.group_digits(n)
    return string.rep(' ', width - #s) .. s .. ' tokens'
  end
end

local function abs(root, path)
  return root and (root .. '/' .. path) or path
end

-- model is the preview's view model for an answer: a header with the
-- total and the server's notes, one line per item (mark, location,
-- definition, tokens, why) and the items the user dropped.
function M.model(state, res, line_of)
  local items = res.items or {}
  local tokens = tokens_column(items)
  local entries = {}
  for _, it in ipairs(items) do
    table.insert(entries, {
      item = render.item(it.location, '', line_of),
      cols = { M.mark(it), M.key(it), item_name(it), tokens(it.tokens), M.why(it) },
      data = { pack_item = it },
    })
  end
  local dropped = {}
  for _, k in ipairs(state.exclude) do
    local path, first = k:match('^(.*):(%d+)%-%d+$')
    table.insert(dropped, { item = { filename = abs(state.root, path or k), lnum = tonumber(first) or 1, col = 1 },
      cols = { k }, data = { dropped = k } })
  end
  local header = { M.summary(res) }
  for _, n in ipairs((res.notes ~= vim.NIL and res.notes) or {}) do
    table.insert(header, 'note: ' .. n)
  end
  local groups = { { name = 'Items', entries = entries, align = true, note = #entries == 0 and 'nothing relevant was found' or nil } }
  if #dropped > 0 then
    table.insert(groups, { name = 'Dropped', entries = dropped, align = true })
  end
  return { title = M.title(state.base, state.root, res), root = state.root, header = header, help = M.HELP, groups = groups }
end

-- item_place names a pack item's lines for contextLs.pin.
function M.item_place(it)
  return { textDocument = { uri = it.location.uri }, position = it.location.range.start, range = it.location.range }
end

-- pin_place names a pin for contextLs.unpin as it was pinned: its lines,
-- or the document alone for a whole file.
function M.pin_place(pin)
  local place = { textDocument = { uri = pin.location.uri } }
  if present(pin.lines) then
    place.position = pin.location.range.start
    place.range = pin.location.range
  end
  return place
end

-- find_pin is the pin a pinned pack item comes from, or nil.
function M.find_pin(pins, it)
  for _, p in ipairs(pins or {}) do
    if p.path == it.path and p.startLine == it.startLine and p.endLine == it.endLine then
      return p
    end
  end
  return nil
end

-- pin_name is a pin as the pins list shows it: PATH or PATH:A-B.
function M.pin_name(pin)
  return present(pin.lines) and (pin.path .. ':' .. pin.lines) or pin.path
end

-- repin_plan is the way around a pin whose file is gone, which the server
-- cannot unpin alone: unpin every pin, then pin again the others that can
-- be read (in their order). It returns those and the names of the other
-- pins that cannot be pinned again (their files are gone too).
function M.repin_plan(pins, gone)
  local again, lost = {}, {}
  for _, p in ipairs(pins or {}) do
    if p ~= gone and not (p.path == gone.path and p.lines == gone.lines) then
      if present(p.error) then
        table.insert(lost, M.pin_name(p))
      else
        table.insert(again, p)
      end
    end
  end
  return again, lost
end

-- pins_summary is the pins list's total.
function M.pins_summary(res)
  local pins = res.pins or {}
  if #pins == 0 then
    return 'Nothing is pinned: :ContextPin, or p in :ContextPreview, pins code into every pack.'
  end
  return string.format('%s %s %s to every context pack', plural(#pins, 'pin'), #pins == 1 and 'adds' or 'add',
    plural(res.tokens or 0, 'token'))
end

-- pins_model is the pins list's view model: one line per pin (location,
-- tokens, and "whole file" or why its text cannot be read).
function M.pins_model(res, root, line_of)
  local pins = res.pins or {}
  local tokens = tokens_column(pins)
  local entries = {}
  for _, p in ipairs(pins) do
    local detail = present(p.error) and ('error: ' .. p.error) or (present(p.lines) and '' or 'whole file')
    table.insert(entries, {
      item = render.item(p.location, '', line_of),
      cols = { M.pin_name(p), tokens(p.tokens or 0), detail },
      data = { pin = p },
    })
  end
  local title = 'pins of ' .. vim.fn.fnamemodify(root or util.uri_to_fname(res.folder or ''), ':~')
  return { title = title, root = root, header = { M.pins_summary(res) }, help = M.PINS_HELP,
    groups = { { name = 'Pins', entries = entries, align = true } } }
end

return M
