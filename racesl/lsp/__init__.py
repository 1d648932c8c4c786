"""The racesl language server: `racesc lsp` (pygls over stdio).

One module per feature. Everything except `server.py` is plain Python over racesl's own
data (no pygls import), so features are testable without a client and `racesc check`
never pays for pygls.
"""
