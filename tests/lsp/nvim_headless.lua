-- Driven by test_nvim.py: nvim --headless --clean -l nvim_headless.lua
-- Sets up editors/nvim/races.lua, opens a .races file, waits for the server's diagnostics,
-- asks for a hover, edits the buffer and waits for the diagnostics to clear, and writes
-- what it saw to $RACES_OUT as JSON.
local env = vim.fn.environ()
local out = { steps = {} }
local function step(name) table.insert(out.steps, name) end
local function finish()
  vim.fn.writefile({ vim.json.encode(out) }, env.RACES_OUT)
  vim.cmd("qall!")
end

local ok, err = pcall(function()
  local races = dofile(env.RACES_LUA)
  races.setup({ cmd = vim.json.decode(env.RACES_CMD), debounce_ms = 10 })
  step("setup")
  vim.cmd.edit(env.RACES_FILE)
  local buf = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[buf].filetype
  out.attached = vim.wait(30000, function() return #vim.lsp.get_clients({ bufnr = buf }) > 0 end, 20)
  step("attached")
  out.got_diagnostics = vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  local client = vim.lsp.get_clients({ bufnr = buf })[1]
  out.client = client and client.name
  out.offset_encoding = client and client.offset_encoding
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
                                    code = d.code, message = d.message, severity = d.severity })
  end
  step("diagnostics")
  local line, character = tonumber(env.RACES_HOVER_LINE), tonumber(env.RACES_HOVER_CHAR)
  local resp = client:request_sync("textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = line, character = character },
  }, 20000, buf)
  out.hover = resp and resp.result and resp.result.contents and resp.result.contents.value or vim.NIL
  step("hover")
  -- fix the error in the buffer: the server gets didChange, the diagnostics clear
  local fix_line = tonumber(env.RACES_FIX_LINE)
  vim.api.nvim_buf_set_lines(buf, fix_line, fix_line + 1, false, { env.RACES_FIX_TEXT })
  out.cleared = vim.wait(30000, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.severity == vim.diagnostic.severity.ERROR then return false end
    end
    return true
  end, 20)
  step("cleared")
end)
if not ok then out.error = tostring(err) end
finish()
