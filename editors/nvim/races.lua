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

local M = {}

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
