"""The racesl language server: `racesc lsp` (pygls over stdio).

One module per feature: documents (text, positions, encodings), incremental (re-parsing
only the top-level items an edit touched), analysis (cached checking, the last good
analysis, the library), index (resolved name occurrences), diagnostics, hover, completion,
definition (and references), symbols, semantic_tokens, code_actions, and server (the pygls
wiring, debounce). Only `server.py` imports pygls; the features use lsprotocol's types.
"""
