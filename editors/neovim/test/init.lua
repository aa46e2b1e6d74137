-- Headless Neovim harness for the context-ls real-client test
-- (lsp/neovim_test.go). It uses only APIs of Neovim 0.7 (Debian's
-- package): vim.lsp.start_client, vim.lsp.buf_attach_client and
-- client.request_sync. It starts the server on a workspace, waits for the
-- bootstrap index, asks for a definition, runs commands, edits a buffer
-- and searches for the unsaved text, stops the server, and writes what it
-- saw as JSON to $CONTEXT_LS_OUT. It never asserts: the Go test does.

local bin = assert(os.getenv("CONTEXT_LS_BIN"), "CONTEXT_LS_BIN unset")
local root = assert(os.getenv("CONTEXT_LS_ROOT"), "CONTEXT_LS_ROOT unset")
local out = assert(os.getenv("CONTEXT_LS_OUT"), "CONTEXT_LS_OUT unset")
local db = assert(os.getenv("CONTEXT_LS_DB"), "CONTEXT_LS_DB unset")
local timeout = 20000

local results = { steps = {} }

local function step(name)
  table.insert(results.steps, name)
end

-- request sends one request and records {result=…} or {error=…}.
local function request(client, bufnr, method, params)
  local resp, err = client.request_sync(method, params, timeout, bufnr)
  if resp == nil then
    return { error = "no response: " .. tostring(err) }
  end
  if resp.err then
    return { error = resp.err.message or vim.inspect(resp.err), code = resp.err.code }
  end
  return { result = resp.result }
end

local function command(client, bufnr, name, args)
  return request(client, bufnr, "workspace/executeCommand", { command = name, arguments = { args } })
end

-- position returns the LSP position (UTF-16) of the first occurrence of
-- needle in line lnum (0-based) of the buffer.
local function position(bufnr, lnum, needle)
  local line = vim.api.nvim_buf_get_lines(bufnr, lnum, lnum + 1, true)[1]
  local byte = assert(string.find(line, needle, 1, true), needle .. " not on line " .. lnum) - 1
  local _, utf16 = vim.str_utfindex(line, byte)
  return { line = lnum, character = utf16 }
end

local function run()
  vim.lsp.set_log_level("warn")
  local bootstrap_done = false
  local exit_code = nil
  local client_id = vim.lsp.start_client({
    name = "context-ls",
    cmd = { bin, "serve" },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = "ws" } },
    init_options = { dbPath = db },
    handlers = {
      ["$/progress"] = function(_, result)
        if result and result.value and result.value.kind == "end"
          and result.value.message and string.find(result.value.message, "files", 1, true) then
          bootstrap_done = true
        end
      end,
    },
    on_exit = function(code)
      exit_code = code
    end,
  })
  assert(client_id, "start_client failed")
  local client = vim.lsp.get_client_by_id(client_id)
  step("started")

  results.bootstrap = vim.wait(timeout, function() return bootstrap_done end, 20)
  step("bootstrap")

  vim.cmd("edit " .. vim.fn.fnameescape(root .. "/cmd/app/main.go"))
  local bufnr = vim.api.nvim_get_current_buf()
  results.attached = vim.lsp.buf_attach_client(bufnr, client_id)
  step("attached")

  -- Line 10 (0-based) calls geo.NewCircle after an emoji.
  local pos = position(bufnr, 10, "NewCircle")
  results.position = pos
  results.definition = request(client, bufnr, "textDocument/definition", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = pos,
  })
  step("definition")

  results.search = command(client, bufnr, "contextLs.search", { query = "TotalArea", k = 3 })
  results.callers = command(client, bufnr, "contextLs.callers", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = pos,
  })
  step("commands")

  -- An unsaved edit, sent by Neovim's own (incremental) sync.
  vim.api.nvim_buf_set_lines(bufnr, -1, -1, false, {
    "",
    "// Volume of the unit cube, only in the editor.",
    "func Volume() float64 { return 1 }",
  })
  local found = nil
  for _ = 1, 100 do
    local r = command(client, bufnr, "contextLs.search", { query = "Volume", k = 3 })
    if r.result and r.result.hits then
      for _, hit in ipairs(r.result.hits) do
        if hit.symbol == "Volume" then
          found = hit
        end
      end
    end
    if found then
      break
    end
    vim.wait(100)
  end
  results.edit_hit = found or vim.NIL
  step("edit")

  client.stop()
  results.stopped = vim.wait(timeout, function() return exit_code ~= nil end, 20)
  results.exit_code = exit_code
  step("stopped")
end

local ok, err = pcall(run)
if not ok then
  results.error = tostring(err)
end
local f = assert(io.open(out, "w"))
f:write(vim.fn.json_encode(results))
f:close()
vim.cmd("qall!")
