-- racesl support for Neovim 0.11+: the `races` filetype and the `racesc lsp` language server.
--
-- Put this file on your runtimepath as lua/races.lua (for example
-- ~/.config/nvim/lua/races.lua) and call, in init.lua:
--
--   require("races").setup()
--
-- Options (all optional):
--   cmd          the server command (default { "racesc", "lsp" }; e.g. { "/path/to/venv/bin/racesc", "lsp" })
--   include      extra module folders, like `racesc -I`
--   debounce_ms  delay after a burst of edits before re-checking (default 75)
--   root_markers files that mark a project root (default { "races.toml", ".git" })
--   codelens     show the code lens ("composes after N · before M") above environments,
--                refreshed on BufEnter, InsertLeave and BufWritePost (default true)

local M = {}

-- The command of the server's code lens: the environments an environment composes with
-- (before and after it in the signature graph), in the quickfix list. Arguments:
-- { uri, position, locations } with LSP Locations. vim.lsp.codelens.run() calls it.
function M.show_composers(command, ctx)
  local args = command.arguments or {}
  local client = ctx and ctx.client_id and vim.lsp.get_client_by_id(ctx.client_id)
  local items = vim.lsp.util.locations_to_items(args[3] or {}, client and client.offset_encoding or "utf-8")
  vim.fn.setqflist({}, " ", { title = "racesl: " .. (command.title or "composes"), items = items })
  if #items > 0 then
    vim.cmd("botright copen")
  else
    vim.notify("racesl: no environment composes with this one", vim.log.levels.INFO)
  end
end

function M.setup(opts)
  opts = opts or {}
  if vim.fn.has("nvim-0.11") ~= 1 then
    vim.notify("races.lua needs Neovim 0.11 or newer (vim.lsp.config)", vim.log.levels.ERROR)
    return
  end

  vim.filetype.add({ extension = { races = "races" } })

  local init_options = { include = opts.include or {} }
  if opts.debounce_ms then
    init_options.debounceMs = opts.debounce_ms
  end

  vim.lsp.config("racesl", {
    cmd = opts.cmd or { "racesc", "lsp" },
    filetypes = { "races" },
    root_markers = opts.root_markers or { "races.toml", ".git" },
    init_options = init_options,
  })
  vim.lsp.enable("racesl")
  vim.lsp.commands["racesl.showComposers"] = M.show_composers

  if opts.codelens ~= false then
    vim.api.nvim_create_autocmd({ "LspAttach", "BufEnter", "InsertLeave", "BufWritePost" }, {
      pattern = "*.races",
      group = vim.api.nvim_create_augroup("races_codelens", { clear = true }),
      callback = function(args)
        if #vim.lsp.get_clients({ bufnr = args.buf, name = "racesl" }) > 0 then
          vim.lsp.codelens.refresh({ bufnr = args.buf })
        end
      end,
    })
  end

  vim.api.nvim_create_autocmd("FileType", {
    pattern = "races",
    group = vim.api.nvim_create_augroup("races_filetype", { clear = true }),
    callback = function(args)
      local bo = vim.bo[args.buf]
      bo.commentstring = "# %s"
      bo.comments = ":#"
      bo.expandtab = true
      bo.shiftwidth = 4
      bo.softtabstop = 4
      bo.tabstop = 8
      -- Python-like syntax highlighting until semantic tokens arrive
      if vim.fn.exists("syntax_on") == 1 then
        bo.syntax = "python"
      end
    end,
  })
end

return M
