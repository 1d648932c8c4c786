"""Semantic tokens: keywords, environment/helper names, types, parameters, locals, strings,
numbers, comments and decorators, from the lexer's tokens and the resolved occurrences.

Tokens are computed per group (the incremental parser's unit) in the group's own line
numbers and cached, so a request after an edit recomputes only the edited group. Strings
that span lines are cut per line (neither VS Code nor Neovim ask for multi-line tokens);
names inside f-strings cut the string token around them (no overlapping tokens).
"""

from __future__ import annotations

import re

from lsprotocol import types as L

from racesl.lsp import index as I
from racesl.lsp.context import View
from racesl.lsp.documents import LINE_BREAK, units
from racesl.lsp.incremental import VL, Placed
from racesl.cache import SizedLRU

TOKEN_TYPES = ["keyword", "function", "method", "type", "parameter", "variable", "namespace", "string", "number",
               "comment", "decorator", "enumMember", "operator"]
ITEMS_BUDGET = 8_000_000  # characters of groups behind the token cache
TOKEN_MODIFIERS = ["declaration", "definition", "readonly", "defaultLibrary"]
LEGEND = L.SemanticTokensLegend(token_types=TOKEN_TYPES, token_modifiers=TOKEN_MODIFIERS)

_T = {t: i for i, t in enumerate(TOKEN_TYPES)}
_DECL, _DEF, _RO, _LIB = 1, 2, 4, 8

_OCC_KIND = {
    "env": ("function", 0), "helper": ("function", 0), "constant": ("variable", _RO), "member": ("function", 0), "type": ("type", 0),
    "module": ("namespace", 0), "param": ("parameter", 0), "local": ("variable", 0), "it": ("parameter", _RO),
    "builtin": ("function", _LIB), "const": ("keyword", 0), "method": ("method", _LIB),
    "decorator": ("decorator", 0), "law": ("enumMember", 0), "basetype": ("type", _LIB),
}
_COMMENT = re.compile(r"#[^\r\n]*")


def _group_tokens(view: View, p: Placed) -> list[tuple[int, int, int, int, int]]:
    """(local line 0-based, start col, end col, type, modifiers) in code points, sorted."""
    g = p.group
    text = g.text
    starts = [0] + [m.end() for m in LINE_BREAK.finditer(text)]
    base = g.slot * VL
    occs: dict[tuple[int, int], I.Occ] = {}
    inner: list[I.Occ] = []
    for it in g.items:
        for o in view.occurrences(it.node):
            occs[(o.span.line - base, o.span.col)] = o
            inner.append(o)
    out: list[tuple[int, int, int, int, int]] = []
    strings: list[tuple[int, int]] = []
    toks = g.toks
    for k, t in enumerate(toks):
        s = t.span
        if t.kind in ("KW", "FORBIDDEN"):
            out.append((s.line - 1, s.col - 1, s.end_col - 1, _T["keyword"], 0))
        elif t.kind in ("INT", "FLOAT"):
            out.append((s.line - 1, s.col - 1, s.end_col - 1, _T["number"], 0))
        elif t.kind in ("STRING", "BYTES"):
            strings.append((s.start, s.end))
            names = [o for o in inner if s.start <= o.span.start and o.span.end <= s.end
                     and o.span.line - base >= s.line and o.span.end_line - base <= s.end_line]
            _string(out, text, starts, s.start, s.end, [(o.span.start, o.span.end) for o in names])
            for o in names:
                _name(out, o, base)
        elif t.kind == "NAME":
            o = occs.get((s.line, s.col))
            if o is not None:
                _name(out, o, base)
        elif t.kind == "OP" and t.value == "@" and k + 1 < len(toks) and toks[k + 1].kind == "NAME":
            out.append((s.line - 1, s.col - 1, s.end_col - 1, _T["decorator"], 0))
    for m in _COMMENT.finditer(text):
        a = m.start()
        if any(x <= a < y for x, y in strings):
            continue
        line = _line_of(starts, a)
        out.append((line, a - starts[line], m.end() - starts[line], _T["comment"], 0))
    out.sort()
    return out


def _line_of(starts: list[int], offset: int) -> int:
    import bisect

    return bisect.bisect_right(starts, offset) - 1


def _name(out: list, o: I.Occ, base: int) -> None:
    kind = _OCC_KIND.get(o.kind)
    if kind is None:
        return
    mods = kind[1] | (_DECL | _DEF if o.is_def else 0)
    s = o.span
    if s.line != s.end_line:
        return
    out.append((s.line - base - 1, s.col - 1, s.end_col - 1, _T[kind[0]], mods))


def _string(out: list, text: str, starts: list[int], a: int, b: int, holes: list[tuple[int, int]]) -> None:
    """A string token from offset a to b, cut at line breaks and around `holes`."""
    cuts = sorted(holes)
    pieces = []
    cur = a
    for x, y in cuts:
        if x > cur:
            pieces.append((cur, x))
        cur = max(cur, y)
    if cur < b:
        pieces.append((cur, b))
    for x, y in pieces:
        while x < y:
            line = _line_of(starts, x)
            nxt = starts[line + 1] if line + 1 < len(starts) else len(text)
            m = LINE_BREAK.search(text, x, nxt)
            seg_end = min(y, m.start() if m else nxt)
            if seg_end > x:
                out.append((line, x - starts[line], seg_end - starts[line], _T["string"], 0))
            x = nxt if line + 1 < len(starts) else y


class SemanticTokens:
    """Per-group token cache for one server."""

    def __init__(self):
        self._cache = SizedLRU(ITEMS_BUDGET, 5000)  # group slot, namespace, encoding → tokens

    def _encoded(self, view: View, p: Placed) -> list[tuple[int, int, int, int, int]]:
        """(local line, start, length, type, mods) in client units."""
        key = (p.group.slot, view.ns.key, view.ns.module, view.enc)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        toks = _group_tokens(view, p)
        text = p.group.text
        starts = [0] + [m.end() for m in LINE_BREAK.finditer(text)]
        out = []
        last = (-1, -1)
        for line, c0, c1, typ, mods in toks:
            if line < 0 or line >= len(starts) or c1 <= c0 or (line, c0) < last:
                continue
            lt = text[starts[line]: (starts[line + 1] if line + 1 < len(starts) else len(text))].rstrip("\r\n")
            c1 = min(c1, len(lt))
            if c1 <= c0:
                continue
            u0 = units(lt[:c0], view.enc)
            n = units(lt[c0:c1], view.enc)
            out.append((line, u0, n, typ, mods))
            last = (line, c1)
        self._cache.put(key, out, len(text))
        return out

    def full(self, view: View, line_range: tuple[int, int] | None = None) -> L.SemanticTokens:
        data: list[int] = []
        prev_line, prev_col = 0, 0
        lo, hi = line_range if line_range is not None else (0, 1 << 60)
        for p in view.a.placement.placed:
            if p.line0 > hi or p.line0 + p.group.nlines < lo:
                continue
            for line, u0, n, typ, mods in self._encoded(view, p):
                real = p.line0 + line
                if real < lo or real > hi:
                    continue
                if real >= view.a.index.line_count:
                    continue
                dl = real - prev_line
                dc = u0 - prev_col if dl == 0 else u0
                if dl < 0 or (dl == 0 and dc < 0):
                    continue
                data.extend((dl, dc, n, typ, mods))
                prev_line, prev_col = real, u0
        return L.SemanticTokens(data=data)
