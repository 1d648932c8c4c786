"""Mapping the lines of instrumented Python text back to the `.races` lines it came from
(the trailing `# races-linemap:` comment of `lower_to_source`, read by `Program.from_source`).
"""

from __future__ import annotations

import ast
from collections import deque

from racesl.lower.instrument.build import _loc


def _stmts(tree):
    return [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]


def _as_parsed(tree) -> list:
    """The nodes of `tree` in `ast.walk` order, except that a negative number constant
    (which the instrumenter emits: `-2**30 < x`) comes as the parser reads its text back,
    a unary minus over the constant. Without this, one such constant misaligns the walk."""
    out, queue = [], deque([(tree, False)])
    while queue:
        n, operand = queue.popleft()
        if not operand and isinstance(n, ast.Constant) and type(n.value) in (int, float) and n.value < 0:
            minus = ast.UnaryOp(op=ast.USub(), operand=n)
            out.append(_loc(minus, n))
            queue.extend(((minus.op, True), (n, True)))
            continue
        out.append(n)
        queue.extend((c, False) for c in ast.iter_child_nodes(n))
    return out


def line_map(instrumented: ast.Module, source: str) -> dict:
    """How lines (and, for multi-line statements, positions) of `source` — the unparsed
    text of `instrumented` — map back to the `.races` lines `instrumented` carries."""
    gen = ast.parse(source)
    a, b = _as_parsed(instrumented), list(ast.walk(gen))
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
