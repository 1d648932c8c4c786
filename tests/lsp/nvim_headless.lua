-- Driven by test_nvim.py: nvim --headless --clean -l nvim_headless.lua
-- Sets up editors/nvim/races.lua, opens a .races file, waits for the server's diagnostics,
-- asks for a hover, edits the buffer and waits for the diagnostics to clear, renames through
-- vim.lsp.buf.rename, runs the code lens command's handler, formats through vim.lsp.buf.format,
-- and writes what it saw to
-- $RACES_OUT as JSON.
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

  -- ---- rename (test_nvim.py: RACES_RENAMES) ------------------------------------------
  -- Each { line, col (bytes), new }: the cursor goes there, vim.lsp.buf.rename (prepareRename,
  -- then rename, then Neovim applies the WorkspaceEdit); the buffer's lines after each.
  out.renamed = {}
  for _, r in ipairs(vim.json.decode(env.RACES_RENAMES or "[]")) do
    local tick = vim.api.nvim_buf_get_changedtick(buf)
    vim.api.nvim_win_set_cursor(0, { r.line + 1, r.col })
    vim.lsp.buf.rename(r.new, { bufnr = buf })
    vim.wait(30000, function() return vim.api.nvim_buf_get_changedtick(buf) ~= tick end, 20)
    table.insert(out.renamed, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  end
  step("renamed")
  -- ---- end rename ---------------------------------------------------------------------

  -- ---- code lens command (test_nvim.py: RACES_LENS_LINE) ------------------------------
  -- The lens of the environment on that line, resolved, run through races.lua's handler of
  -- racesl.showComposers: the quickfix list gets one item per location.
  if env.RACES_LENS_LINE then
    local lens_line = tonumber(env.RACES_LENS_LINE)
    local resp = client:request_sync("textDocument/codeLens",
      { textDocument = { uri = vim.uri_from_bufnr(buf) } }, 20000, buf)
    for _, lens in ipairs(resp and resp.result or {}) do
      if lens.range.start.line == lens_line then
        local done = client:request_sync("codeLens/resolve", lens, 60000, buf)
        local cmd = done and done.result and done.result.command
        if cmd then
          vim.lsp.commands[cmd.command](cmd, { client_id = client.id, bufnr = buf })
          out.lens = { title = cmd.title, locations = #cmd.arguments[3], quickfix = #vim.fn.getqflist(),
                       qf_title = vim.fn.getqflist({ title = 1 }).title }
        end
      end
    end
  end
  step("lens")
  -- ---- end code lens ------------------------------------------------------------------

  -- ---- formatting (test_nvim.py: RACES_MESSY) ----------------------------------------
  -- The buffer replaced by messy text, then vim.lsp.buf.format (textDocument/formatting,
  -- Neovim applies the edits); the buffer's lines after it.
  if env.RACES_MESSY then
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(env.RACES_MESSY, "\n", { plain = true }))
    vim.cmd("cclose")  -- (the lens step opened the quickfix window; format asks for the current buffer)
    vim.api.nvim_set_current_buf(buf)
    vim.lsp.buf.format({ bufnr = buf, async = false, timeout_ms = 30000 })
    out.formatted = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  end
  step("formatted")
  -- ---- end formatting -----------------------------------------------------------------
end)
if not ok then out.error = tostring(err) end
finish()
