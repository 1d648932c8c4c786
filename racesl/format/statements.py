"""Logical lines into statements, one per output line: `a; b` becomes two lines, a body on
its header's line (`if x: return 1`) moves onto a line of its own, decorators take their
canonical order, and each statement learns the part it plays in the layout."""

from __future__ import annotations

import attrs

from racesl.format.spacing import assign_roles
from racesl.format.tokens import Line, Token, cut, outermost
from racesl.syntax.decorators import rank

_HEADERS = ("if", "elif", "else", "while", "for", "def", "env")


@attrs.define(slots=True, eq=False)
class Stmt:
    depth: int
    tokens: list[Token]
    starts_line: bool  # it began a line in the source (so its first column says its indentation)
    kind: str = "simple"  # simple | header | item (a def/env header) | decorator | docstring

    @property
    def opens_block(self) -> bool:
        return self.kind in ("header", "item")

    @property
    def continues(self) -> bool:
        """`elif` and `else` belong to the statement above them."""
        return self.tokens[0].is_kw("elif", "else")


def statements(lines: list[Line]) -> list[Stmt]:
    out: list[Stmt] = []
    for line in lines:
        parts = _split(line.tokens, ";")
        for k, toks in enumerate(parts):
            out.extend(_suite(toks, line.depth, k == 0))
    _order_decorators(out)
    _mark_docstrings(out)
    for s in out:
        assign_roles(s.tokens)
    return out


def _suite(toks: list[Token], depth: int, starts_line: bool) -> list[Stmt]:
    """A statement, or a compound header and the body written on its line."""
    first = toks[0]
    if first.is_op("@") and depth == 0:
        return [Stmt(depth, toks, starts_line, "decorator")]
    if not (first.kind == "KW" and first.text in _HEADERS):
        return [Stmt(depth, toks, starts_line)]
    kind = "item" if first.text in ("def", "env") and depth == 0 else "header"
    colon = _header_colon(toks)
    if colon is None or colon == len(toks) - 1:
        return [Stmt(depth, toks, starts_line, kind)]
    head, body = toks[:colon + 1], toks[colon + 1:]
    return [Stmt(depth, head, starts_line, kind)] + [Stmt(depth + 1, part, False) for part in _split(body, ";")]


def _header_colon(toks: list[Token]) -> int | None:
    """The colon that ends a compound statement's header: the first outside brackets that
    no lambda claims."""
    lambdas = 0
    for i, t in outermost(toks):
        if t.is_kw("lambda"):
            lambdas += 1
        elif t.is_op(":"):
            if not lambdas:
                return i
            lambdas -= 1
    return None


def _split(toks: list[Token], sep: str) -> list[list[Token]]:
    """Split at `sep` outside brackets, dropping the separators (a separator's comment moves
    to the token before it)."""
    at = [i for i, t in outermost(toks) if t.is_op(sep)]
    for i in at:
        if toks[i].trailing and i > 0:
            toks[i - 1].trailing = toks[i].trailing
    return [part for part in cut(toks, at, keep=False) if part]


def _order_decorators(stmts: list[Stmt]) -> None:
    """Each run of decorators in canonical order (same names keep theirs). The comments and
    blank lines above the first stay above the run."""
    i = 0
    while i < len(stmts):
        if stmts[i].kind != "decorator":
            i += 1
            continue
        j = i
        while j < len(stmts) and stmts[j].kind == "decorator":
            j += 1
        run = stmts[i:j]
        head = run[0].tokens[0]
        above, blank = head.leading, head.blank_before
        head.leading, head.blank_before = [], 0
        run.sort(key=lambda s: rank(s.tokens[1].text if len(s.tokens) > 1 else ""))
        first = run[0].tokens[0]
        first.leading[:0], first.blank_before = above, blank
        stmts[i:j] = run
        i = j


def _mark_docstrings(stmts: list[Stmt]) -> None:
    for prev, s in zip(stmts, stmts[1:]):
        if prev.kind == "item" and s.depth == prev.depth + 1 and len(s.tokens) == 1 and s.tokens[0].kind == "STRING":
            s.kind = "docstring"
