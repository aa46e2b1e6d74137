-- plugin: a fixture for Lua chunking. The tjdevries grammar folds the white
-- space before a statement and the doc comment above a definition into the
-- statement: chunks must still start at the beginning of their lines.
local util = require("plugin.util")

local M = {}

M.VERSION = "1.0"
M.NAME = "plugin"

---Registers the commands.
---@param opts table|nil
function M.setup(opts)
  opts = opts or {}
  M.options = vim.tbl_extend("force", { debounce = 200, register = "+" }, opts)
  vim.api.nvim_create_user_command("PluginRun", function(args)
    M.run(args.args)
  end, { nargs = "?" })
  vim.api.nvim_create_user_command("PluginStop", function()
    M.stop()
  end, {})
end

-- run does the work: a long body that the chunker splits on statements.
function M.run(what)
  local buf = vim.api.nvim_get_current_buf()
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local out = {}
  for i, line in ipairs(lines) do
    if line:find(what, 1, true) then
      table.insert(out, { lnum = i, text = line, kind = "match", score = util.score(line, what) })
    elseif line:match("^%s*$") then
      table.insert(out, { lnum = i, text = "", kind = "blank", score = 0 })
    else
      table.insert(out, { lnum = i, text = line, kind = "other", score = util.score(line, "") })
    end
  end
  table.sort(out, function(a, b)
    if a.score ~= b.score then
      return a.score > b.score
    end
    return a.lnum < b.lnum
  end)
  local items = {}
  for _, o in ipairs(out) do
    if o.kind == "match" then
      items[#items + 1] = { bufnr = buf, lnum = o.lnum, col = 1, text = o.text }
    end
  end
  vim.fn.setqflist({}, " ", { title = "Plugin: " .. what, items = items })
  if #items == 0 then
    vim.notify("Plugin: no match for " .. what, vim.log.levels.INFO)
  else
    vim.cmd("copen")
  end
  return items
end

local function stop_timer(t)
  if t then t:stop() t:close() end
end

function M.stop()
  stop_timer(M.timer)
  M.timer = nil
end

return M
