"""The racesl language server: `racesc lsp` (pygls over stdio).

One module per feature: documents (text, positions, encodings), incremental (re-parsing
only the top-level items an edit touched), sources (open buffers and cached files as
the loader reads them), recording (tables that log reads), replay (re-checking a module,
replaying what did not change), driver (cached `check_paths`), analysis (the workspace:
open documents, the last good analysis, the library), index (resolved name occurrences),
diagnostics, hover, completion, definition (and references), symbols, semantic_tokens,
code_actions, signature_help, inlay_hints (output_bounds: an Int output's inferred
bounds), sampling (the probe of `racesc check` on save, in a child process), and server
(the pygls wiring, debounce).
Only `server.py` imports pygls; the features use lsprotocol's types.
"""
