"""Statements onto output lines: indentation, blank lines and own-line comments.

Blank lines: at most one anywhere; none at the top of a file or of a block, before `elif` or
`else`, or inside a run of decorators and the header they decorate; exactly one before a
top-level `def` or `env` (with its decorators and the comments right above it) and after
its body. Comments keep their place: an own-line comment between the end of a block and a
line further out stays in the block when it was written at the block's indentation.
"""

from __future__ import annotations

from racesl.format.docstrings import wrap_docstring
from racesl.format.statements import Stmt
from racesl.format.tokens import Comment
from racesl.format.wrap import INDENT, render


def layout(stmts: list[Stmt], end_comments: list[Comment]) -> list[str]:
    out: list[str] = []
    widths: dict[int, int] = {}  # the indentation each depth was written with, last seen
    prev: Stmt | None = None
    for s in stmts:
        first = s.tokens[0]
        own = _comments(first.leading, prev, s.depth, widths, out)
        glued = prev is not None and prev.kind == "decorator" and s.kind in ("decorator", "item")
        for k, c in enumerate(own):
            blank = _first_blank(s, prev, c.blank_before) if k == 0 else min(c.blank_before, 1)
            _emit(out, [INDENT * s.depth + c.text], 0 if glued else blank)
        if glued:
            blank = 0
        elif own:
            blank = 0 if s.continues else min(first.blank_before, 1)
        else:
            blank = _first_blank(s, prev, first.blank_before)
        if s.starts_line:
            widths[s.depth] = first.col - 1
        lines = (wrap_docstring(first.text, s.depth) if s.kind == "docstring" else None) or render(s.tokens, s.depth)
        _emit(out, lines, blank)
        prev = s
    tail = _comments(end_comments, prev, 0, widths, out)
    for k, c in enumerate(tail):
        _emit(out, [c.text], 1 if k == 0 and prev is not None and prev.depth > 0 else min(c.blank_before, 1))
    return out


def _comments(comments: list[Comment], prev: Stmt | None, depth: int, widths: dict[int, int],
              out: list[str]) -> list[Comment]:
    """Emit the comments that close the block above (written at its indentation); return
    the rest, which belong to the statement at `depth`."""
    if prev is None or prev.depth <= depth:
        return comments
    level = prev.depth
    for k, c in enumerate(comments):
        while level > depth and widths.get(level, 4 * level) > c.col - 1:
            level -= 1
        if level == depth:
            return comments[k:]
        _emit(out, [INDENT * level + c.text], min(c.blank_before, 1))
    return []


def _first_blank(s: Stmt, prev: Stmt | None, written: int) -> int:
    """Blank lines before the first line a statement brings (a comment or its code)."""
    if prev is None or prev.opens_block and s.depth > prev.depth:
        return 0
    if s.depth == 0 and (s.kind in ("decorator", "item") or prev.depth > 0):
        return 1
    if s.continues:
        return 0
    return min(written, 1)


def _emit(out: list[str], lines: list[str], blank: int) -> None:
    if out and blank:
        out.append("")
    out.extend(lines)
