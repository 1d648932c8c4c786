"""Incremental parsing: re-lex and re-parse only the top-level items an edit touched.

The text is cut into *groups* at lines that start in column 0 (a top-level line; decorator
lines join the line after them). A group whose lexing ends cleanly (no open bracket, no
string running to its end, no trailing backslash) leaves racesl's lexer in the state it
starts in, so lexing groups one by one gives the same tokens as lexing the whole file; a
group that does not end cleanly is merged with the next one and lexed again. Groups are
cached by their text, so after an edit only the groups whose text changed are lexed and
parsed again (~1 ms each instead of 0.3–3 s for a 2,000-line file).

Coordinates. A cached group's AST must stay valid when the group moves (an edit above it
adds a line). So each group is parsed in its own coordinates and then moved to a private
band of *virtual* lines: line `slot * VL + k` is line k of the group with that slot. Spans
of the current document are virtual; `Placement` maps them back to real lines (columns are
unchanged, since a group starts at a line start) and real positions to virtual ones.
Offsets inside virtual spans are relative to the group's first character.
"""

from __future__ import annotations

import bisect
import itertools
import logging
import re
from typing import Iterable

import attrs

from racesl.diagnostics import Diagnostic, Label, Span
from racesl.syntax import ast as A
from racesl.syntax.lexer import Tok, split_items, tokenize
from racesl.syntax.parser import ECHO_OF, MAX_SOURCE_CHARS, parse_item_tokens

log = logging.getLogger("racesl.lsp")

VL = 10_000_000  # virtual lines per slot; slot 0 means "real coordinates"

_TOP_LINE = re.compile(r"(?:\r\n|\r|\n)(?=[^ \t\f#\r\n])")
_TRAILING_CONT = re.compile(r"\\(?:\r\n|\r|\n)\Z")
_BREAKS = re.compile(r"\r\n|\r|\n")

_slots = itertools.count(1)


@attrs.define(eq=False)
class Item:
    node: A.Node


@attrs.define(eq=False)
class Lexed:
    """One group's text, lexed on its own (group coordinates)."""

    text: str
    toks: list[Tok]
    diags: list[Diagnostic]
    dirty: bool  # lexing ended inside a bracket or string: valid only at the end of a file
    stops_lexing: bool  # the lexer gave up on the rest of the file (brackets nested too deep)
    nlines: int  # line breaks in text
    echo_at_start: bool  # a lexer error on line 1 (the parser stays quiet about that line)


@attrs.define(eq=False)
class Group:
    lexed: Lexed
    slot: int
    items: list[Item]  # virtual coordinates
    diags: list[Diagnostic]  # virtual coordinates (lexer and parser)
    skipped: frozenset[str]
    echo_at_end: bool  # an error on the line after the group (where its DEDENTs sit)

    @property
    def text(self) -> str:
        return self.lexed.text

    @property
    def toks(self) -> list[Tok]:
        return self.lexed.toks

    @property
    def nlines(self) -> int:
        return self.lexed.nlines


@attrs.define(eq=False)
class Placed:
    group: Group
    line0: int  # 0-based real line of the group's first line
    offset0: int


class Placement:
    """Virtual ↔ real coordinates for one version of one document."""

    def __init__(self, placed: list[Placed]):
        self.placed = placed
        self.by_slot = {p.group.slot: p for p in placed}
        self._lines = [p.line0 for p in placed]

    def real(self, line: int, col: int) -> tuple[int, int] | None:
        """A 1-based (line, col) of a span → 0-based real (line, code-point col); None if stale."""
        if line < VL:
            return line - 1, col - 1
        p = self.by_slot.get(line // VL)
        if p is None:
            return None
        return p.line0 + line % VL - 1, col - 1

    def real_span(self, s: Span) -> tuple[int, int, int, int] | None:
        a = self.real(s.line, s.col)
        b = self.real(s.end_line, s.end_col)
        if a is None or b is None:
            return None
        if b < a:
            b = a
        return a[0], a[1], b[0], b[1]

    def virtual(self, line: int, col: int) -> tuple[int, int]:
        """0-based real (line, code-point col) → 1-based virtual (line, col)."""
        i = bisect.bisect_right(self._lines, line) - 1
        if i < 0:
            return line + 1, col + 1
        p = self.placed[i]
        return p.group.slot * VL + (line - p.line0) + 1, col + 1

    def group_at(self, line: int) -> Placed | None:
        i = bisect.bisect_right(self._lines, line) - 1
        return self.placed[i] if i >= 0 else None

    def items(self) -> Iterable[tuple[Placed, Item]]:
        for p in self.placed:
            for it in p.group.items:
                yield p, it


@attrs.define(eq=False)
class ParseResult:
    module: A.Module
    diagnostics: list[Diagnostic]  # lexer + parser, virtual coordinates
    placement: Placement
    text: str  # the text as parsed (BOM blanked, final newline added)
    reparsed: int  # groups lexed and parsed for this version


def normalize(text: str) -> str:
    """What parse_module does before lexing: blank a BOM, end with a line break."""
    if text.startswith("\ufeff"):
        text = " " + text[1:]
    if not text.endswith(("\n", "\r")):
        text += "\n"
    return text


def _chunks(text: str) -> list[int]:
    """Start offsets of candidate groups (plus len(text) at the end)."""
    starts = [0]
    starts.extend(m.end() for m in _TOP_LINE.finditer(text))
    if starts[-1] != len(text):
        starts.append(len(text))
    return starts


def _dirty(text: str, diags: list[Diagnostic]) -> bool:
    n = len(text)
    for d in diags:
        if d.code == "E110":
            return True
        if d.code == "E102" and d.span.end >= n - 2:
            return True
    return bool(_TRAILING_CONT.search(text))


def _ends_in_decorator(toks: list[Tok]) -> bool:
    """Does the text end with a decorator line at depth 0 (an item that goes on after it)?"""
    k = len(toks) - 1
    while k >= 0 and toks[k].kind == "EOF":
        k -= 1
    if k < 0 or toks[k].kind != "NEWLINE":
        return False
    k -= 1
    while k >= 0 and toks[k].kind not in ("NEWLINE", "INDENT", "DEDENT"):
        k -= 1
    first = toks[k + 1]
    return first.kind == "OP" and first.value == "@" and (k < 0 or toks[k].kind != "INDENT")


def _shift_span(s: Span, dl: int) -> Span:
    return Span(s.line + dl, s.col, s.end_line + dl, s.end_col, s.start, s.end)


_SPAN_FIELDS: dict[type, tuple[str, ...]] = {}
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if cls not in _SPAN_FIELDS:
        names = [a.name for a in attrs.fields(cls)]
        _SPAN_FIELDS[cls] = tuple(n for n in names if n == "span" or n.endswith("_span"))
        _CHILD_FIELDS[cls] = tuple(n for n in names if n not in _SPAN_FIELDS[cls])
    return _SPAN_FIELDS[cls], _CHILD_FIELDS[cls]


def shift_tree(root: A.Node, dl: int) -> None:
    """Move every span of a freshly built tree down by `dl` lines, in place."""
    seen: set[int] = set()
    stack = [root]
    setattr_ = object.__setattr__
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        spans, kids = _fields(type(n))
        for f in spans:
            v = getattr(n, f)
            if isinstance(v, Span):
                setattr_(n, f, _shift_span(v, dl))
        for f in kids:
            v = getattr(n, f)
            if isinstance(v, A.Node):
                stack.append(v)
            elif isinstance(v, tuple):
                stack.extend(x for x in v if isinstance(x, A.Node))


def shift_diag(d: Diagnostic, dl: int) -> Diagnostic:
    labels = tuple(Label(_shift_span(l.span, dl), l.message, l.path) if l.path in (None, d.path) else l
                   for l in d.labels)
    return attrs.evolve(d, span=_shift_span(d.span, dl), labels=labels)


class IncrementalParser:
    """Parses successive versions of one document, reusing unchanged groups.

    Two caches, both keyed by a group's text: lexing, and parsing. Parsing also depends on
    one bit from each neighbour: racesl's parser stays quiet about a line on which an error
    was already reported, and a group's first and last+1 lines are shared with its
    neighbours (DEDENT tokens sit at the start of the next top-level line).
    """

    def __init__(self, path: str):
        self.path = path
        self._lexed: dict[str, Lexed] = {}
        self._groups: dict[tuple[str, bool, bool], list[Group]] = {}
        self._spare: dict[tuple[str, bool, bool], list[Group]] = {}  # the generation before, for undo

    def _lex(self, text: str, cache: dict[str, Lexed]) -> Lexed:
        lx = cache.get(text) or self._lexed.get(text)
        if lx is None:
            toks, diags = tokenize(text, self.path)
            lx = Lexed(text, toks, diags, _dirty(text, diags) or _ends_in_decorator(toks),
                       any(d.code == "E105" and d.message.startswith("brackets") for d in diags),
                       len(_BREAKS.findall(text)),
                       any(d.code in ECHO_OF and d.span.line == 1 for d in diags))
        cache[text] = lx
        return lx

    def _take(self, key: tuple[str, bool, bool]) -> Group | None:
        for pool in (self._groups, self._spare):
            lst = pool.get(key)
            if lst:
                return lst.pop()
        return None

    def _build(self, lx: Lexed, echo_before: bool, echo_after: bool) -> Group:
        slot = next(_slots)
        dl = slot * VL
        diags = list(lx.diags)
        fake: list[Diagnostic] = []
        if echo_before:
            fake.append(Diagnostic("E100", "", Span(1, 1, 1, 1)))
        if echo_after:
            fake.append(Diagnostic("E100", "", Span(lx.nlines + 1, 1, lx.nlines + 1, 1)))
        diags.extend(fake)
        skipped: set[str] = set()
        items: list[Item] = []
        for item_toks in split_items(lx.toks):
            try:
                node = parse_item_tokens(item_toks, lx.text, self.path, diags, skipped)
            except Exception:  # noqa: BLE001 — a parser bug must not take the editor down
                log.exception("racesl lsp: parsing an item of %s failed", self.path)
                continue
            if isinstance(node, A.Node):  # (anything else would be a parser bug; the checker skips it too)
                items.append(Item(node))
        diags = [d for d in diags if all(d is not f for f in fake)]
        for it in items:
            shift_tree(it.node, dl)
        end_line = lx.nlines + 1
        echo_at_end = any(d.code in ECHO_OF and d.span.line == end_line for d in diags)
        return Group(lx, slot, items, [shift_diag(d, dl) for d in diags], frozenset(skipped), echo_at_end)

    def _split(self, text: str) -> list[tuple[int, Lexed]]:
        """Cut the text into cleanly lexed groups: (start offset, lexed)."""
        starts = _chunks(text)
        lex_cache: dict[str, Lexed] = {}
        out: list[tuple[int, Lexed]] = []
        k = 0
        nchunks = len(starts) - 1
        while k < nchunks:
            j = k + 1
            while j < nchunks and text[starts[j - 1]] == "@":
                j += 1  # decorator lines belong to what follows them
            step = 1
            while True:
                lx = self._lex(text[starts[k]:starts[j]], lex_cache)
                if lx.dirty and j < nchunks:
                    # the lexer's state runs on into the next groups: lex them together, taking
                    # twice as many each time (one at a time re-lexed a long open bracket per line)
                    j = min(j + step, nchunks)
                    step *= 2
                    while j < nchunks and text[starts[j - 1]] == "@":
                        j += 1
                    continue
                break
            out.append((starts[k], lx))
            k = j
            if lx.stops_lexing:
                break
        self._lexed = lex_cache
        return out

    def parse(self, raw: str) -> ParseResult:
        if len(raw) > MAX_SOURCE_CHARS:
            d = Diagnostic("E112", f"file has {len(raw):,} characters; the limit is {MAX_SOURCE_CHARS:,}",
                           Span(1, 1, 1, 1, 0, 0), self.path, hint="split it into several modules")
            self._groups, self._spare, self._lexed = {}, {}, {}
            return ParseResult(A.Module(None, (), Span(1, 1, 1, 1, 0, 0)), [d], Placement([]), raw, 0)
        text = normalize(raw)
        split = self._split(text)
        used: dict[tuple[str, bool, bool], list[Group]] = {}
        placed: list[Placed] = []
        reparsed = 0
        line = 0
        echo_before = False
        for i, (offset, lx) in enumerate(split):
            echo_after = i + 1 < len(split) and split[i + 1][1].echo_at_start
            key = (lx.text, echo_before, echo_after)
            g = self._take(key)
            if g is None:
                g = self._build(lx, echo_before, echo_after)
                reparsed += 1
            used.setdefault(key, []).append(g)
            placed.append(Placed(g, line, offset))
            line += lx.nlines
            echo_before = g.echo_at_end
        self._spare = {k: lst for k, lst in self._groups.items() if lst}  # taken groups were popped
        self._groups = used
        return self._assemble(placed, text, reparsed)

    def _assemble(self, placed: list[Placed], text: str, reparsed: int) -> ParseResult:
        items: list[A.Node] = []
        diags: list[Diagnostic] = []
        skipped: set[str] = set()
        tab_seen = False
        for p in placed:
            g = p.group
            items.extend(it.node for it in g.items)
            for d in g.diags:
                if d.code == "E104":  # the lexer warns about tabs once per file
                    if tab_seen:
                        continue
                    tab_seen = True
                diags.append(d)
            skipped |= g.skipped
        name = next((it.name for it in items if isinstance(it, A.ModuleDecl)), None)
        nlines = sum(p.group.nlines for p in placed)
        mod = A.Module(name, tuple(items), Span(1, 1, nlines + 1, 1, 0, len(text)), frozenset(skipped))
        return ParseResult(mod, diags, Placement(placed), text, reparsed)
