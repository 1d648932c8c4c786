"""Mapping the lines of instrumented Python text back to the `.races` lines it came from
(the trailing `# races-linemap:` comment of `lower_to_source`, read by `Program.from_source`).
"""

from __future__ import annotations

import ast


def _stmts(tree):
    return [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]


def line_map(instrumented: ast.Module, source: str) -> dict:
    """How lines (and, for multi-line statements, positions) of `source` — the unparsed
    text of `instrumented` — map back to the `.races` lines `instrumented` carries."""
    gen = ast.parse(source)
    a, b = list(ast.walk(instrumented)), list(ast.walk(gen))
    if len(a) != len(b) or any(type(x) is not type(y) for x, y in zip(a, b)):
        a, b = _stmts(instrumented), _stmts(gen)
        if len(a) != len(b):
            return {"lines": [], "cols": []}
    lines: dict[int, int] = {}
    for x, y in zip(a, b):
        if isinstance(y, ast.stmt) and hasattr(x, "lineno"):
            lines.setdefault(y.lineno, x.lineno)
    cols = set()
    for x, y in zip(a, b):
        if isinstance(y, ast.expr) and hasattr(x, "lineno") and hasattr(y, "lineno"):
            if lines.get(y.lineno) != x.lineno:
                cols.add((y.lineno, y.col_offset, y.end_lineno, y.end_col_offset, x.lineno))
    return {"lines": sorted(lines.items()), "cols": sorted(cols)}
