-- The server binary is missing: the user must get one clear notification,
-- never an autocommand error (Neovim 0.7 shows "Error detected while
-- processing BufReadPost Autocommands" and a hit-enter prompt for an error
-- raised there; 0.10+ turns it into an error of the :edit that fired it).
--
-- run.sh runs this file twice per Neovim:
--   * headless, with CONTEXT_LS_OUT set: opens files with :edit inside
--     pcall, counts notifications, runs a command and :checkhealth, and
--     exits 0 when every check passed;
--   * in a terminal (tmux), without CONTEXT_LS_OUT: only the setup, the file
--     to open is on the command line, and run.sh reads the screen.
vim.opt.runtimepath:prepend(os.getenv('CONTEXT_LS_PLUGIN'))
vim.opt.swapfile = false
vim.cmd('runtime plugin/context_ls.lua')
local MISSING = 'no-context-ls'
require('context_ls').setup({ cmd = { MISSING, 'serve' } })

local out = os.getenv('CONTEXT_LS_OUT')
if out == nil or out == '' then
  return
end
local root = os.getenv('CONTEXT_LS_ROOT')

local notes = {}
local orig_notify = vim.notify
vim.notify = function(msg, level)
  table.insert(notes, { msg = msg, level = level })
  return orig_notify(msg, level)
end

local harness = dofile(os.getenv('CONTEXT_LS_PLUGIN') .. '/tests/harness.lua')
local check = harness.check

local function scenario()
  local want = require("context_ls").missing_text(MISSING)
  local ok, err = pcall(vim.cmd, 'edit ' .. vim.fn.fnameescape(root .. '/inventory/stock.go'))
  check('opening a file raises no error', ok, err)
  vim.wait(200, function()
    return #notes > 0
  end, 10)
  check('one notification', #notes == 1, vim.inspect(notes))
  check('it names the binary and where to look', notes[1] ~= nil and notes[1].msg == want, notes[1] and notes[1].msg)
  check('it is an error', notes[1] ~= nil and notes[1].level == vim.log.levels.ERROR)
  ok, err = pcall(vim.cmd, 'edit ' .. vim.fn.fnameescape(root .. '/cmd/shop/main.go'))
  vim.wait(200, function()
    return false
  end, 10)
  check('a second file: no error, no second notification', ok and #notes == 1, tostring(err) .. vim.inspect(notes))
  local cl = require('context_ls')
  local seq = cl.last.seq
  vim.cmd('ContextCallers')
  vim.wait(2000, function()
    return cl.last.seq > seq
  end, 10)
  local last = notes[#notes]
  check('a command says why it cannot run', #notes == 2 and last.level == vim.log.levels.ERROR
    and last.msg == 'context-ls: ContextCallers failed: no context-ls server: server binary "' .. MISSING .. '" not found',
    vim.inspect(notes))
  vim.cmd('checkhealth context_ls')
  local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  check('checkhealth: the binary is missing, with the way out', report:find('ERROR', 1, true) ~= nil
    and report:find('server binary "' .. MISSING .. '" not found', 1, true) ~= nil and report:find(cl.INSTALL_URL, 1, true) ~= nil,
    report)
  local messages = vim.fn.execute('messages')
  check('no autocommand error in :messages', not messages:find('Error detected while processing') and not messages:find('Autocommands'),
    messages)
end

harness.run('missing binary', out, scenario)
