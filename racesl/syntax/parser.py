"""Parse `.races` text into a `Module`, reporting every error and never raising.

Our lexer feeds lark's LALR interactive parser one top-level item at a time. Before each
statement we keep a copy of the parser state; on a syntax error we go back to it, skip the
broken statement (and its block), put a `pass` in its place and carry on, so one typo
costs one diagnostic, not the rest of the file.
"""

from __future__ import annotations

import bisect
import functools
import re
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput, UnexpectedToken

from racesl import resources
from racesl.diagnostics import Diagnostic, Span
from racesl.syntax import ast as A
from racesl.syntax.build import FIELD_TOKENS, MAX_FSTRING_FIELDS, Builder, fstring_weight
from racesl.syntax.lexer import Tok, lines_for, split_items, tokenize

MAX_TREE_DEPTH = 100  # AST nesting; lark trees themselves are transformed without recursion
MAX_ITEM_TOKENS = 20_000
MAX_SOURCE_CHARS = 2_000_000

_KIND_TO_TERMINAL = {
    "NAME": "NAME", "INT": "INT", "FLOAT": "FLOAT", "STRING": "STRING", "BYTES": "BYTES",
    "FORBIDDEN": "FORBIDDEN", "NEWLINE": "_NEWLINE", "INDENT": "_INDENT", "DEDENT": "_DEDENT",
}

_FORBIDDEN_HINTS = {
    "class": "environments are functions over values; use `type`/`newtype` for data",
    "try": "a failing input is dropped by the compiler; use `assert` to state the domain",
    "except": "a failing input is dropped by the compiler; use `assert` to state the domain",
    "finally": "there is no exception handling in bodies",
    "raise": "use `assert CONDITION` to reject an input outside the domain",
    "with": "bodies cannot open resources",
    "global": "bodies are pure: return a value instead of changing module state",
    "nonlocal": "bodies are pure: return a value instead of changing outer state",
    "del": "build a new value instead, e.g. a comprehension that leaves the item out",
    "yield": "return a list instead of yielding",
    "async": "bodies are synchronous",
    "await": "bodies are synchronous",
    "import": "put imports at the top level of the module",
    "from": "put imports at the top level of the module",
    "def": "define helpers at the top level of the module",
    "as": "import names as they are, or qualify them (`numbers.fibonacci`)",
}


_TOP_HINT = ("a module holds declarations: env, def, type, newtype, import, from, module and "
             "constants (NAME: TYPE = value); put statements inside an env or def body")


class _PositionFilter:
    """Keeps _NEWLINE/_INDENT/_DEDENT out of node spans. A class with a fixed repr, not a
    lambda: lark keys its on-disk grammar cache by the options' text, and a lambda's repr
    (with its address) would miss the cache in every process."""

    def __call__(self, n) -> bool:
        return not (isinstance(n, Token) and n.type.startswith("_"))

    def __repr__(self) -> str:
        return "racesl.position_filter"


@functools.lru_cache(maxsize=1)
def _lark() -> Lark:
    return Lark(
        resources.grammar_text(),
        parser="lalr",
        lexer="basic",
        start=["item", "fexpr"],
        propagate_positions=_PositionFilter(),
        maybe_placeholders=True,
        cache=True,
    )


@functools.lru_cache(maxsize=1)
def _terminal_table() -> dict[str, tuple[str, ...]]:
    """Maps a keyword/operator text to the terminal names that match it."""
    table: dict[str, list[str]] = {}
    words = set(
        "def return pass break continue assert if elif else while for in not and or is lambda "
        "import from where env module type newtype".split()
    )
    ops = set(
        "**= //= >>= <<= -> ** // << >> <= >= == != += -= *= /= %= &= |= ^= := "
        "+ - * / % @ & | ^ ~ < > ( ) [ ] { } , : . ; = !".split()
    )
    for term in _lark().terminals:
        pat = term.pattern
        for text in words | ops:
            if pat.type == "str" and pat.value == text or pat.type == "re" and re.fullmatch(pat.value, text):
                table.setdefault(text, []).append(term.name)
    return {k: tuple(v) for k, v in table.items()}


# Lexer codes that explain a whole line: a parse error on a line with one of them is an
# echo of it and is not reported (the language server's incremental parser keeps the rule).
ECHO_OF = frozenset({"E100", "E101", "E102", "E103", "E105", "E107", "E108", "E110"})

_READABLE = {
    "_NEWLINE": "end of line", "_INDENT": "an indented block", "_DEDENT": "end of block",
    "NAME": "a name", "INT": "a number", "STRING": "a string", "$END": "end of item",
}


def _readable(terminal: str) -> str:
    if terminal in _READABLE:
        return _READABLE[terminal]
    for text, names in _terminal_table().items():
        if terminal in names and len(text) <= 3 or terminal in names and text.isalpha():
            return f"'{text}'"
    return terminal.lower()


def _describe(t: Tok) -> str:
    return {
        "NEWLINE": "end of line", "INDENT": "indent", "DEDENT": "dedent", "EOF": "end of file",
        "STRING": "string", "INT": "number", "FLOAT": "number",
    }.get(t.kind, f"'{t.value}'")


class _DiagIndex:
    """Lines of the diagnostics in one list, for the parser's per-item and per-error
    questions. Scanning the whole list each time made a file of many small errors
    quadratic. The list only grows while a file is parsed, so the index reads what was
    appended since it last looked; the last list seen is remembered (one slot)."""

    _last: _DiagIndex | None = None

    def __init__(self, diags: list[Diagnostic]):
        self.diags = diags
        self.seen = 0
        self.echo_lines: set[int] = set()
        self.e103_lines: list[int] = []  # sorted

    @classmethod
    def of(cls, diags: list[Diagnostic]) -> _DiagIndex:
        ix = cls._last
        if ix is None or ix.diags is not diags or len(diags) < ix.seen:
            ix = cls._last = cls(diags)
        for d in diags[ix.seen:]:
            if d.code in ECHO_OF:
                ix.echo_lines.add(d.span.line)
            if d.code == "E103":
                bisect.insort(ix.e103_lines, d.span.line)
        ix.seen = len(diags)
        return ix

    def echo_on(self, line: int) -> bool:
        return line in self.echo_lines

    def e103_within(self, first: int, last: int) -> bool:
        k = bisect.bisect_left(self.e103_lines, first)
        return k < len(self.e103_lines) and self.e103_lines[k] <= last


class _Snapshot:
    """The LALR stacks of an interactive parser, restorable in time proportional to their
    depth (not to the tokens fed). Lark's LALR tree builder extends the child list of the
    leftmost tree of a reduction in place (its left-recursion optimisation), so we note
    each tree's child count and cut the lists back to it on restore."""

    __slots__ = ("states", "values", "lengths")

    def __init__(self, ip):
        st = ip.parser_state
        self.states = list(st.state_stack)
        self.values = list(st.value_stack)
        self.lengths = [(v.children, len(v.children)) for v in self.values if isinstance(v, Tree)]

    def restore(self, ip) -> None:
        for children, k in self.lengths:
            del children[k:]
        ip.parser_state.state_stack = list(self.states)
        ip.parser_state.value_stack = list(self.values)


class _ItemParser:
    """Parses the tokens of one top-level item with statement-level recovery."""

    def __init__(self, toks: list[Tok], path: str, diags: list[Diagnostic], skipped: set[str] | None = None):
        self.toks = toks
        self.path = path
        self.diags = diags
        self.skipped = skipped if skipped is not None else set()
        self.recovered: list[Span] = []

    def _lark_token(self, t: Tok, ip) -> Token:
        s = t.span
        if t.kind in ("KW", "OP"):
            names = _terminal_table().get(t.value, ("FORBIDDEN",))
            ttype = names[0]
            if len(names) > 1:
                choices = ip.choices()
                ttype = next((n for n in names if n in choices), names[0])
        else:
            ttype = _KIND_TO_TERMINAL[t.kind]
        return Token(ttype, t.value, s.start, s.line, s.col, s.end_line, s.end_col, s.end)

    def _error(self, t: Tok, exc: Exception | None, expected: set[str], k: int | None = None) -> None:
        if t.kind in ("FORBIDDEN", "KW") and t.value in _FORBIDDEN_HINTS and self._at_statement_start(t, k):
            what = "nested function definitions" if t.value == "def" else f"`{t.value}` statements"
            msg = f"{what} are not allowed in a body" if t.value not in ("as",) else "`as` is not supported"
            if t.value in ("import", "from"):
                msg = "imports are only allowed at the top level of a module"
            self.diags.append(Diagnostic("E109", msg, t.span, self.path, hint=_FORBIDDEN_HINTS[t.value]))
            return
        if t.kind == "FORBIDDEN":
            self.diags.append(Diagnostic("E109", f"`{t.value}` is not part of the language", t.span,
                                         self.path, hint=_FORBIDDEN_HINTS.get(t.value)))
            return
        if t.kind == "OP" and t.value in (":=", "!"):
            hint = "assign on a line of its own" if t.value == ":=" else "use `not` for negation"
            self.diags.append(Diagnostic("E100", f"'{t.value}' is not supported", t.span, self.path, hint=hint))
            return
        if _DiagIndex.of(self.diags).echo_on(t.span.line):
            return  # the lexer already explained this line; a parse error here is an echo
        if self.toks and t is self.toks[0] and t.kind not in ("INDENT",):
            self.diags.append(Diagnostic(
                "E100", f"unexpected {_describe(t)} at the top level of a module", t.span, self.path,
                hint=_TOP_HINT))
            return
        if k == 1 and self.toks[0].kind == "NAME" and t.value not in (":", "="):
            # `print(x)`, `x += 1` at the top level: a name starts only a constant there
            first = self.toks[0]
            self.diags.append(Diagnostic(
                "E100", "unexpected statement at the top level of a module",
                first.span, self.path, hint=_TOP_HINT))
            return
        exp = sorted({_readable(e) for e in expected})
        if {"NAME", "INT", "STRING"} <= expected:
            exp = ["an expression"]
        elif "_NEWLINE" in expected and len(expected) > 6:
            exp = ["an operator", "end of line"]
        if t.kind == "INDENT":
            msg, hint = "unexpected indent", "remove the extra indentation"
        elif "_INDENT" in expected and len(expected) == 1:
            msg, hint = "expected an indented block", "indent the body by 4 spaces"
        elif "COLON" in expected and t.kind == "NEWLINE":
            msg, hint = "expected ':'", "add ':' at the end of the line"
        else:
            msg = f"unexpected {_describe(t)}"
            hint = ("expected " + ", ".join(exp[:6]) + (" or ..." if len(exp) > 6 else "")) if exp else None
        self.diags.append(Diagnostic("E100", msg, t.span, self.path, hint=hint))

    def _at_statement_start(self, t: Tok, k: int | None = None) -> bool:
        k = self.toks.index(t) if k is None else k
        return k == 0 or self.toks[k - 1].kind in ("NEWLINE", "INDENT", "DEDENT") or \
            self.toks[k - 1].value == ":"

    def _skip_statement(self, s: int, i: int) -> int:
        """Index after the logical line containing token i, its block and its elif/else clauses."""
        toks = self.toks
        n = len(toks)
        j = i
        if toks[j].kind == "INDENT":
            return self._skip_block(j)
        while j < n and toks[j].kind != "NEWLINE":
            j += 1
        j += 1
        if j < n and toks[j].kind == "INDENT":
            j = self._skip_block(j)
        while j < n and toks[j].value in ("elif", "else", "except", "finally") and \
                toks[j].kind in ("KW", "FORBIDDEN"):
            while j < n and toks[j].kind != "NEWLINE":
                j += 1
            j += 1
            if j < n and toks[j].kind == "INDENT":
                j = self._skip_block(j)
        return j

    def _skip_block(self, j: int) -> int:
        depth = 0
        n = len(self.toks)
        while j < n:
            k = self.toks[j].kind
            if k == "INDENT":
                depth += 1
            elif k == "DEDENT":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return n

    def parse(self):
        toks = self.toks
        ip = _lark().parse_interactive(start="item")
        # Before each statement we note the parser's stacks; on an error we put them back,
        # skip the statement and feed `pass` instead. Replaying every token fed so far
        # instead made each error cost the whole item so far (quadratic in errors).
        checkpoint = (_Snapshot(ip), 0)  # (stacks, token index)
        i = 0
        n = len(toks)
        last_error_at = -1
        while i < n:
            t = toks[i]
            if i > 0 and toks[i - 1].kind in ("NEWLINE", "INDENT", "DEDENT"):
                checkpoint = (_Snapshot(ip), i)
            try:
                ip.feed_token(self._lark_token(t, ip))
                i += 1
                continue
            except UnexpectedToken as e:
                expected = set(e.expected or ())
            except UnexpectedInput:
                expected = set()
            self._error(t, None, expected, i)
            snap, s = checkpoint
            if s == 0 or i <= last_error_at:
                return None  # the header itself is broken: drop the item
            last_error_at = i
            j = self._skip_statement(s, i)
            self.skipped.update(t.value for t in toks[s:j] if t.kind == "NAME")
            self.recovered.append(toks[s].span)
            ip = _lark().parse_interactive(start="item")
            snap.restore(ip)
            try:
                if t.kind != "INDENT":
                    sp = toks[s].span
                    ip.feed_token(Token("PASS", "pass", sp.start, sp.line, sp.col, sp.line, sp.col, sp.start))
                    ip.feed_token(Token("_NEWLINE", "", sp.start, sp.line, sp.col, sp.line, sp.col, sp.start))
            except UnexpectedInput:
                return None
            i = j
        try:
            return ip.feed_eof(self._lark_token(toks[-1], ip) if toks else None)
        except UnexpectedInput as e:
            last = toks[-1]
            exp = set(getattr(e, "expected", ()) or ())
            if "_INDENT" in exp:
                self.diags.append(Diagnostic("E110", "expected an indented block", last.span, self.path,
                                             hint="indent the body by 4 spaces"))
            else:
                self.diags.append(Diagnostic("E110", "unexpected end of item", last.span, self.path,
                                             hint="complete the declaration"))
            return None


def parse_item_tokens(toks: list[Tok], text: str, path: str, diags: list[Diagnostic],
                      skipped: set[str] | None = None) -> A.Node | None:
    """One top-level item → AST node (or None when it could not be recovered)."""
    if len(toks) > MAX_ITEM_TOKENS:
        diags.append(Diagnostic("E112", f"this declaration has {len(toks):,} tokens; the limit is {MAX_ITEM_TOKENS:,}",
                                toks[0].span, path, hint="split it into smaller helpers, or move data into a sampler"))
        return None
    if not _fields_within_budget(toks, path, diags):
        return None
    if skipped is not None and toks and _DiagIndex.of(diags).e103_within(toks[0].span.line, toks[-1].span.end_line):
        skipped.add("#indent")  # the blocks are a guess: no findings that rest on them (W602, E507)
    parser = _ItemParser(toks, path, diags, skipped)
    tree = parser.parse()
    if tree is None:
        return None
    if parser.recovered:
        skipped.add("#recovered")
    node = Builder(text, path, diags, parse_fexpr).build(tree)
    if not isinstance(node, A.Node):
        return None  # an item of stray tokens only (their errors are already reported)
    return node if _shallow_enough(node, path, diags) else None


def _fields_within_budget(toks: list[Tok], path: str, diags: list[Diagnostic]) -> bool:
    """Whether the declaration's tokens, its f-strings' fields counted in (each field
    FIELD_TOKENS plus its expression's tokens: `fstring_weight`), stay within
    MAX_ITEM_TOKENS. An f-string is one token to the lexer, yet each of its fields is parsed
    and lowered on its own: counted here, before any of that work, so that a flood of fields
    (in one f-string or in many) is refused at once."""
    total = len(toks)
    for t in toks:
        if t.kind == "STRING":
            fields, inner = fstring_weight(t.value)
            if fields > MAX_FSTRING_FIELDS:
                continue  # refused by the builder on its own, before any field is parsed
            total += fields * FIELD_TOKENS + inner
            if total > MAX_ITEM_TOKENS:
                diags.append(Diagnostic("E112", f"this declaration has over {MAX_ITEM_TOKENS:,} tokens, counting "
                                        f"each f-string field as {FIELD_TOKENS} plus its expression's",
                                        t.span, path, hint="build long texts from parts, e.g. \"\".join(...) "
                                        "over a list, or split the declaration into helpers"))
                return False
    return True


def _shallow_enough(node: A.Node, path: str, diags: list[Diagnostic]) -> bool:
    d, deepest = A.depth(node, MAX_TREE_DEPTH)
    if d <= MAX_TREE_DEPTH:
        return True
    diags.append(Diagnostic("E105", f"nested more than {MAX_TREE_DEPTH} levels deep", deepest.span, path,
                            hint="name intermediate results with assignments (a long chain like "
                                 "a + b + ... or if/elif counts one level per link)"))
    return False


def parse_fexpr(src: str, base: int, text: str, path: str, diags: list[Diagnostic]) -> A.Expr | None:
    """Parse the expression of an f-string field; `base` is its offset in the whole text."""
    toks, lex_diags = tokenize(src, path)
    rebase = _Rebaser(text, base)
    toks = [Tok(t.kind, t.value, rebase(t.span)) for t in toks if t.kind not in ("NEWLINE", "INDENT", "DEDENT", "EOF")]
    for d in lex_diags:
        diags.append(Diagnostic(d.code, d.message, rebase(d.span), path, hint=d.hint))
    if not toks:
        diags.append(Diagnostic("E111", "empty expression in f-string", rebase(Span(1, 1, 1, 1, 0, 0)), path,
                                hint="put an expression between the braces"))
        return None
    ip = _lark().parse_interactive(start="fexpr")
    p = _ItemParser(toks, path, diags)
    for t in toks:
        try:
            ip.feed_token(p._lark_token(t, ip))
        except UnexpectedInput as e:
            p._error(t, None, set(getattr(e, "expected", ()) or ()))
            return None
    try:
        tree = ip.feed_eof(p._lark_token(toks[-1], ip))
    except UnexpectedInput:
        diags.append(Diagnostic("E111", "incomplete expression in f-string", toks[-1].span, path))
        return None
    node = Builder(text, path, diags, parse_fexpr).build(tree)
    return node if _shallow_enough(node, path, diags) else None


class _Rebaser:
    def __init__(self, text: str, base: int):
        self.text = text
        self.base = base

    def __call__(self, s: Span) -> Span:
        lines = lines_for(self.text)
        return lines.span(self.base + s.start, self.base + s.end)


def parse_module(text: str, path: str = "<input>") -> tuple[A.Module, list[Diagnostic]]:
    """Parse a whole module. Always returns a Module (possibly with fewer items) and diagnostics."""
    diags: list[Diagnostic] = []
    if len(text) > MAX_SOURCE_CHARS:
        diags.append(Diagnostic("E112", f"file has {len(text):,} characters; the limit is {MAX_SOURCE_CHARS:,}",
                                Span(1, 1, 1, 1, 0, 0), path, hint="split it into several modules"))
        return A.Module(None, (), Span(1, 1, 1, 1, 0, 0)), diags
    if text.startswith("\ufeff"):
        text = text[1:]  # a byte-order mark is not content (CPython ignores it too)
    if not text.endswith(("\n", "\r")):
        text += "\n"
    toks, lex_diags = tokenize(text, path)
    diags.extend(lex_diags)
    items: list[A.Node] = []
    skipped: set[str] = set()
    for item_toks in split_items(toks):
        node = parse_item_tokens(item_toks, text, path, diags, skipped)
        if node is not None:
            items.append(node)
    name = next((it.name for it in items if isinstance(it, A.ModuleDecl)), None)
    end = toks[-1].span if toks else Span(1, 1, 1, 1)
    return A.Module(name, tuple(items), Span(1, 1, end.end_line, end.end_col, 0, len(text)),
                    frozenset(skipped)), diags


def decode_source(data: bytes, path: str) -> tuple[str, list[Diagnostic]]:
    """Bytes → text. Invalid UTF-8 is reported at its position and replaced, never fatal."""
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as e:
        good = data[: e.start].decode("utf-8", errors="replace")
        line = good.count("\n") + 1
        col = len(good) - (good.rfind("\n") + 1) + 1
        text = data.decode("utf-8", errors="replace")
        d = Diagnostic("E106", f"invalid UTF-8 byte 0x{data[e.start]:02x}", Span(line, col, line, col + 1, len(good), len(good) + 1),
                       path, hint="save the file as UTF-8")
        return text, [d]


def parse_file(path: str | Path) -> tuple[A.Module, list[Diagnostic]]:
    p = Path(path)
    text, diags = decode_source(p.read_bytes(), str(path))
    mod, more = parse_module(text, str(path))
    return mod, diags + more
