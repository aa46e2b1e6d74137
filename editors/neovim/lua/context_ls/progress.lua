-- $/progress display: begin, throttled reports and end of each operation,
-- echoed (or sent to vim.notify). The default handler still runs, so
-- statusline plugins that read client progress keep working.
local M = {}

-- state per token: {title, message, percentage, last}
M.running = {}
-- every end seen: {title, message}, for :ContextStats and tests
M.finished = {}

local opts = { mode = 'echo', interval = 200 }

-- configure sets the display mode ('echo', 'notify' or false) and the
-- minimum milliseconds between two reports of one operation.
function M.configure(mode, interval)
  opts.mode = mode
  opts.interval = interval or 200
end

local function now()
  return (vim.uv or vim.loop).hrtime() / 1e6
end

local function show(text, level)
  if opts.mode == 'notify' then
    vim.notify(text, level or vim.log.levels.INFO)
  elseif opts.mode == 'echo' then
    vim.api.nvim_echo({ { text } }, false, {})
  end
end

local function format(p)
  local s = 'context-ls: ' .. (p.title or '')
  if p.message and p.message ~= '' then
    s = s .. ' ' .. p.message
  end
  if p.percentage then
    s = s .. string.format(' (%d%%)', p.percentage)
  end
  return s
end

-- end_text is the message at the end of an operation: "done" once, whether
-- or not the server's own message says it ("Re-indexing: reindex-1 done:
-- 6 files re-indexed", "Indexing shop done: 5/5 files").
function M.end_text(title, message)
  local text = 'context-ls: ' .. (title or '')
  if message == nil or message == vim.NIL or message == '' then
    return text .. ' done'
  end
  if message:find('%f[%a]done%f[%A]') then
    return text .. ': ' .. message
  end
  return text .. ' done: ' .. message
end

-- busy reports whether an operation is running.
function M.busy()
  return next(M.running) ~= nil
end

-- on_progress applies one $/progress value; it returns the text shown or nil.
function M.on_progress(token, value)
  if type(value) ~= 'table' then
    return nil
  end
  local key = tostring(token)
  if value.kind == 'begin' then
    local p = { title = value.title, message = value.message, percentage = value.percentage, last = now() }
    M.running[key] = p
    local text = format(p)
    show(text)
    return text
  elseif value.kind == 'report' then
    local p = M.running[key]
    if not p then
      return nil
    end
    if value.message ~= nil then
      p.message = value.message
    end
    if value.percentage ~= nil then
      p.percentage = value.percentage
    end
    local t = now()
    if t - p.last < opts.interval then
      return nil
    end
    p.last = t
    local text = format(p)
    show(text)
    return text
  elseif value.kind == 'end' then
    local p = M.running[key]
    if not p then
      return nil
    end
    M.running[key] = nil
    table.insert(M.finished, { title = p.title, message = value.message })
    local text = M.end_text(p.title, value.message)
    show(text)
    return text
  end
  return nil
end

-- handler is the client's $/progress handler.
function M.handler(err, result, ctx, config)
  local default = vim.lsp.handlers['$/progress']
  if default then
    pcall(default, err, result, ctx, config)
  end
  if result then
    M.on_progress(result.token, result.value)
    pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'ContextLsProgress', modeline = false })
  end
end

return M
