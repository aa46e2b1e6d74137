-- Small helpers shared by the context-ls modules: UTF-16 offsets (LSP
-- positions count UTF-16 code units, Neovim columns count bytes), file URIs,
-- and version-independent wrappers over LSP client calls whose calling
-- convention changed after Neovim 0.7.
local M = {}

local has = function(feature)
  return vim.fn.has(feature) == 1
end

-- utf16_units returns how many UTF-16 code units the UTF-8 bytes of s
-- before byte offset `byte` (0-based, exclusive) take. Invalid bytes, and
-- the bytes of a character cut by the offset, count one unit each, so any
-- byte string and offset have an answer.
function M.utf16_units(s, byte)
  byte = math.min(byte or #s, #s)
  local units, i = 0, 1
  while i <= byte do
    local c = s:byte(i)
    local len
    if c < 0x80 then
      len = 1
    elseif c >= 0xF0 and c < 0xF8 then
      len = 4
    elseif c >= 0xE0 then
      len = 3
    elseif c >= 0xC0 then
      len = 2
    else
      len = 1 -- stray continuation byte
    end
    if i + len - 1 > byte then
      len = 1 -- a character cut by the offset: byte by byte
    end
    -- a malformed sequence (continuation bytes missing) counts byte by byte
    for k = 1, len - 1 do
      local cc = s:byte(i + k)
      if not cc or cc < 0x80 or cc >= 0xC0 then
        len = 1
        break
      end
    end
    units = units + ((len == 4) and 2 or 1)
    i = i + len
  end
  return units
end

-- byte_of_utf16 is the 0-based byte offset in s of UTF-16 offset `units`
-- (clamped to the end of s; an offset inside a surrogate pair rounds up to
-- the end of the character).
function M.byte_of_utf16(s, units)
  local seen, i = 0, 1
  while i <= #s and seen < units do
    local c = s:byte(i)
    local len = 1
    if c >= 0xF0 and c < 0xF8 then
      len = 4
    elseif c >= 0xE0 and c < 0xF0 then
      len = 3
    elseif c >= 0xC0 and c < 0xE0 then
      len = 2
    end
    for k = 1, len - 1 do
      local cc = s:byte(i + k)
      if not cc or cc < 0x80 or cc >= 0xC0 then
        len = 1
        break
      end
    end
    seen = seen + ((len == 4) and 2 or 1)
    i = i + len
  end
  return math.min(i - 1, #s)
end

-- uv is libuv's binding (vim.uv from 0.10, vim.loop before).
M.uv = vim.uv or vim.loop

-- object returns t for a JSON object: an empty Lua table would be encoded as
-- an array ([]), so it becomes vim.empty_dict(). Use it for every table
-- the protocol wants as an object (settings, initializationOptions,
-- command arguments).
function M.object(t)
  if t == nil or next(t) == nil then
    return vim.empty_dict()
  end
  return t
end

-- uri_from_fname and uri_to_fname wrap vim.uri_* (present since 0.5).
function M.uri_from_fname(path)
  return vim.uri_from_fname(path)
end

function M.uri_to_fname(uri)
  local ok, fname = pcall(vim.uri_to_fname, uri)
  if ok then
    return fname
  end
  return uri
end

-- get_clients lists running LSP clients (vim.lsp.get_clients from 0.10,
-- vim.lsp.get_active_clients before).
function M.get_clients()
  if vim.lsp.get_clients then
    return vim.lsp.get_clients()
  end
  return vim.lsp.get_active_clients()
end

-- call calls a client method: with method call syntax from 0.11
-- (client:request), field call syntax before (client.request).
local function call(client, name, ...)
  if has('nvim-0.11') then
    return client[name](client, ...)
  end
  return client[name](...)
end

-- request sends an LSP request through a client. Returns ok, request id.
function M.request(client, method, params, handler, bufnr)
  return call(client, 'request', method, params, handler, bufnr)
end

-- request_sync sends a request and waits up to timeout ms. Returns the
-- response {err, result} or nil and an error text.
function M.request_sync(client, method, params, timeout, bufnr)
  return call(client, 'request_sync', method, params, timeout, bufnr)
end

-- notify sends an LSP notification through a client.
function M.notify(client, method, params)
  return call(client, 'notify', method, params)
end

-- cancel_request cancels a request by id.
function M.cancel_request(client, id)
  return call(client, 'cancel_request', id)
end

-- stop asks a client to shut down.
function M.stop(client)
  return call(client, 'stop')
end

-- is_stopped reports whether a client has stopped.
function M.is_stopped(client)
  return call(client, 'is_stopped')
end

-- first_line is the first non-blank line of text, trimmed, at most max
-- characters (default 100).
function M.first_line(text, max)
  max = max or 100
  for line in ((text or '') .. '\n'):gmatch('(.-)\r?\n') do
    local t = line:gsub('^%s+', ''):gsub('%s+$', '')
    if t ~= '' then
      if vim.fn.strchars(t) > max then
        t = vim.fn.strcharpart(t, 0, max - 1) .. '…'
      end
      return t
    end
  end
  return ''
end

-- group_digits formats 12345 as "12,345".
function M.group_digits(n)
  local s = tostring(math.floor((tonumber(n) or 0) + 0.5))
  local sign, digits = s:match('^(-?)(%d+)$')
  if not digits then
    return s
  end
  local out = digits:reverse():gsub('(%d%d%d)', '%1,'):reverse()
  if out:sub(1, 1) == ',' then
    out = out:sub(2)
  end
  return sign .. out
end

return M
