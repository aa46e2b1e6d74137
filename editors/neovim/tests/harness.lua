-- The frame of a headless test scenario (tests/e2e.lua, tests/missing.lua):
-- named checks, a results file, one line per check and a closing
-- "neovim NAME: N passed, M failed" line, and Neovim's exit status (0 when
-- every check passed). Loaded with dofile().
local M = { checks = {} }

-- check records one check and returns ok.
function M.check(name, ok, detail)
  table.insert(M.checks, { name = name, ok = ok and true or false, detail = detail and tostring(detail) or nil })
  return ok
end

local finished = false

-- finish writes {ok, checks, ...extra()} as JSON to out, prints the checks
-- and quits Neovim.
function M.finish(name, out, extra)
  if finished then
    return
  end
  finished = true
  local failed = 0
  for _, c in ipairs(M.checks) do
    failed = failed + (c.ok and 0 or 1)
  end
  local result = extra and extra() or {}
  result.ok, result.checks = failed == 0, M.checks
  local f = io.open(out, 'w')
  if f then
    f:write(vim.fn.json_encode(result))
    f:close()
  end
  for _, c in ipairs(M.checks) do
    io.stdout:write(string.format('%s %s%s\n', c.ok and 'ok  ' or 'FAIL', c.name, (not c.ok and c.detail) and (' — ' .. c.detail) or ''))
  end
  io.stdout:write(string.format('neovim %s: %d passed, %d failed\n', name, #M.checks - failed, failed))
  vim.cmd(failed == 0 and 'qall!' or 'cquit 1')
end

-- run runs scenario once Neovim has started, then finish(name, out,
-- extra); a scenario that hangs for 5 minutes fails. before_finish runs
-- first (to restore what the scenario replaced).
function M.run(name, out, scenario, extra, before_finish)
  local function done()
    if before_finish then
      before_finish()
    end
    M.finish(name, out, extra)
  end
  vim.api.nvim_create_autocmd('VimEnter', {
    once = true,
    callback = function()
      vim.defer_fn(function()
        local ok, err = xpcall(scenario, debug.traceback)
        M.check('scenario ran to the end', ok, err)
        done()
      end, 10)
    end,
  })
  vim.defer_fn(function()
    M.check('finished within 5 minutes', false)
    done()
  end, 300000)
end

return M
