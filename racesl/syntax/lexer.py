"""Tokenizer and indenter for `.races` text. Never raises: bad input becomes diagnostics.

We lex ourselves (rather than with lark's lexer and Indenter) because recovery needs the
indentation state to survive errors, and because `env module type newtype` are keywords
only at the start of a top-level line.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Iterator

import attrs

from racesl.diagnostics import Diagnostic, Span

MAX_NESTING = 64  # brackets + indentation levels; CPython's own parser stops near 200

KEYWORDS = frozenset(
    "def return pass break continue assert if elif else while for in not and or is lambda "
    "import from where".split()
)
TOP_KEYWORDS = frozenset({"env", "module", "type", "newtype"})
# Python keywords the language leaves out; they lex as FORBIDDEN so the parser driver can
# explain them instead of reporting a bare syntax error.
FORBIDDEN_WORDS = frozenset(
    "class try except finally with raise global nonlocal del yield async await as".split()
)

_OPERATORS = sorted(
    "**= //= >>= <<= -> ** // << >> <= >= == != += -= *= /= %= &= |= ^= := "
    "+ - * / % @ & | ^ ~ < > ( ) [ ] { } , : . ; = !".split(),
    key=len,
    reverse=True,
)

_STRING_START = re.compile(r"""(?i)(rb|br|fr|rf|r|u|f|b)?('''|\"\"\"|'|")""")
_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\f]+)
  | (?P<comment>\#[^\r\n]*)
  | (?P<newline>\r\n|\r|\n)
  | (?P<cont>\\(?:\r\n|\r|\n))
  | (?P<float>(?:\d(?:_?\d)*)?\.\d(?:_?\d)*(?:[eE][+-]?\d+)?[jJ]?
              |\d(?:_?\d)*\.(?!\.)(?:[eE][+-]?\d+)?[jJ]?
              |\d(?:_?\d)*[eE][+-]?\d+[jJ]?
              |\d(?:_?\d)*[jJ])
  | (?P<int>0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|\d(?:_?\d)*)
  | (?P<string>(?i:rb|br|fr|rf|r|u|f|b)?['"])
  | (?P<name>[^\W\d]\w*)
  | (?P<op>"""
    + "|".join(re.escape(o) for o in _OPERATORS)
    + r""")
    """,
    re.VERBOSE,
)
LINE_BREAK = re.compile(r"\r\n|\r|\n")  # the three line breaks of the language (and of LSP)
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")", "]", "}"}


@attrs.frozen(slots=True)
class Tok:
    """A token: kind is NAME INT FLOAT STRING BYTES OP KW FORBIDDEN NEWLINE INDENT DEDENT EOF."""

    kind: str
    value: str
    span: Span

    @property
    def starts_line(self) -> bool:
        return False


class _Lines:
    """Offset → (line, column) with columns in code points, 1-based."""

    def __init__(self, text: str):
        self.starts = [0]
        for m in LINE_BREAK.finditer(text):
            self.starts.append(m.end())

    def pos(self, offset: int) -> tuple[int, int]:
        import bisect

        i = bisect.bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1

    def span(self, start: int, end: int) -> Span:
        l1, c1 = self.pos(start)
        l2, c2 = self.pos(end)
        return Span(l1, c1, l2, c2, start, end)


@functools.lru_cache(maxsize=8)
def lines_for(text: str) -> _Lines:
    """The line table of `text`, cached (the parser and the tree builder map the offsets of
    sub-parses, f-string fields say, through the same one)."""
    return _Lines(text)


def _scan_string(text: str, i: int) -> tuple[int, bool]:
    """End offset of the string literal starting at i (prefix included), and whether it closed."""
    m = _STRING_START.match(text, i)
    assert m is not None
    prefix, quote = (m.group(1) or "").lower(), m.group(2)
    raw = "r" in prefix
    j = m.end()
    n = len(text)
    triple = len(quote) == 3
    while j < n:
        c = text[j]
        if c == "\\" and not raw:
            j += 2
            continue
        if c == "\\" and raw:
            j += 2  # a raw string still cannot end in an odd backslash
            continue
        if text.startswith(quote, j):
            return j + len(quote), True
        if not triple and c in "\r\n":
            return j, False
        j += 1
    return n, False


def tokenize(text: str, path: str = "<input>") -> tuple[list[Tok], list[Diagnostic]]:
    """Tokens with NEWLINE/INDENT/DEDENT, ending in EOF; plus diagnostics."""
    diags: list[Diagnostic] = []
    lines = _Lines(text)
    statement_follows = _StatementFollows(text)
    toks: list[Tok] = []
    indents = [0]
    brackets: list[tuple[str, Span]] = []
    at_line_start = True
    line_has_tokens = False
    tab_warned = False
    n = len(text)
    i = 0

    def err(code: str, msg: str, start: int, end: int, hint: str | None = None) -> None:
        diags.append(Diagnostic(code, msg, lines.span(start, max(end, start)), path, hint=hint))

    def emit(kind: str, value: str, start: int, end: int) -> None:
        toks.append(Tok(kind, value, lines.span(start, end)))

    while i < n:
        if at_line_start:
            # measure indentation of a new logical line
            j = i
            width = 0
            has_tab = has_space = False
            while j < n and text[j] in " \t\f":
                if text[j] == "\t":
                    has_tab = True
                    width = (width // 8 + 1) * 8
                elif text[j] == " ":
                    has_space = True
                    width += 1
                j += 1
            if j >= n or text[j] in "#\r\n":
                # blank or comment-only line: no indentation change
                i = j
                while i < n and text[i] not in "\r\n":
                    i += 1
                if i < n:
                    i += 2 if text.startswith("\r\n", i) else 1
                continue
            if has_tab and not tab_warned:
                tab_warned = True
                err("E104", "tab character in indentation" + (" mixed with spaces" if has_space else ""),
                    i, j, hint="indent with spaces only (4 per level)")
            if not brackets:
                if width > indents[-1]:
                    if len(indents) > MAX_NESTING:
                        err("E105", f"indentation nested more than {MAX_NESTING} levels", i, j,
                            hint="split the body into helper functions")
                    indents.append(width)
                    emit("INDENT", "", j, j)
                elif width < indents[-1]:
                    inner = indents[-1]
                    while width < indents[-1]:
                        inner = indents.pop()
                        emit("DEDENT", "", j, j)
                    if width != indents[-1]:
                        outer = indents[-1]
                        err("E103", f"unindent does not match any outer indentation level: {width} "
                            f"spaces, between the levels {outer} and {inner}", i, j,
                            hint=f"indent this line by {inner} spaces to continue the block at that level, "
                                 f"or by {outer} to end it" if outer else
                                 f"indent this line by {inner} spaces to continue the block at that level, "
                                 f"or not at all to end the declaration")
                        if inner - width < width - outer:  # recover at the nearer level
                            indents.append(inner)
                            toks.pop()
            i = j
            at_line_start = False
            line_has_tokens = False
            continue

        if text.startswith(("'", '"'), i) or (text[i] in "rRbBfFuU" and _STRING_START.match(text, i)):
            m = _STRING_START.match(text, i)
            if m:
                end, closed = _scan_string(text, i)
                prefix = (m.group(1) or "").lower()
                if not closed:
                    err("E102", "unterminated string literal", i, end,
                        hint=f"close the string with {m.group(2)}")
                    end_q = text[i:end] + m.group(2)
                    emit("BYTES" if "b" in prefix else "STRING", end_q, i, end)
                else:
                    emit("BYTES" if "b" in prefix else "STRING", text[i:end], i, end)
                line_has_tokens = True
                i = end
                continue

        m = _TOKEN.match(text, i)
        if m is None:
            ch = text[i]
            what = "null byte" if ch == "\0" else f"character {ch!r}"
            err("E101", f"unexpected {what}", i, i + 1,
                hint="remove it" if ch.isprintable() is False else "this character is not part of the language")
            i += 1
            continue
        kind = m.lastgroup
        value = m.group()
        start, end = m.start(), m.end()
        i = end
        if kind in ("ws", "comment", "cont"):
            continue
        if kind == "newline":
            if brackets and statement_follows(i, indents[-1]):
                opener, sp = brackets[0]
                diags.append(Diagnostic("E100", f"'{opener}' was never closed", sp, path,
                                        hint=f"add the matching '{_OPEN[opener]}'"))
                brackets.clear()
            if not brackets and line_has_tokens:
                emit("NEWLINE", "", start, start)
            if not brackets:
                at_line_start = True
            continue
        line_had_tokens, line_has_tokens = line_has_tokens, True
        if kind == "name":
            if not value.isascii():
                value = _name(value)
                if not value.isidentifier():
                    err("E101", f"'{m.group()}' is not a valid name", start, end,
                        hint="use letters, digits and '_' only")
                    continue
            if value in KEYWORDS:
                emit("KW", value, start, end)
            elif value in TOP_KEYWORDS and len(toks) > 0 and toks[-1].kind in ("NEWLINE", "DEDENT") \
                    and len(indents) == 1 and not brackets:
                emit("KW", value, start, end)
            elif value in TOP_KEYWORDS and not toks and not brackets:
                emit("KW", value, start, end)
            elif value in FORBIDDEN_WORDS:
                emit("FORBIDDEN", value, start, end)
            else:
                emit("NAME", value, start, end)
        elif kind == "int":
            emit("INT", value, start, end)
        elif kind == "float":
            emit("FLOAT", value, start, end)
        else:  # op
            if value in _OPEN:
                if len(brackets) >= MAX_NESTING:
                    err("E105", f"brackets nested more than {MAX_NESTING} deep", start, end,
                        hint="name the inner parts with assignments")
                    # stop lexing: the rest cannot be parsed meaningfully
                    emit("NEWLINE", "", start, start)
                    brackets.clear()
                    while i < n and text[i] not in "\r\n":
                        i += 1
                    break
                brackets.append((value, lines.span(start, end)))
            elif value in _CLOSE:
                if brackets and _OPEN[brackets[-1][0]] == value:
                    brackets.pop()
                elif brackets:
                    opener, sp = brackets.pop()
                    err("E100", f"closing '{value}' does not match '{opener}'", start, end,
                        hint=f"close '{opener}' with '{_OPEN[opener]}' first")
                else:
                    err("E100", f"unmatched '{value}'", start, end, hint="remove it")
                    line_has_tokens = line_had_tokens  # the dropped closer was no token
                    continue
            emit("OP", value, start, end)

    if brackets:
        opener, sp = brackets[0]
        diags.append(Diagnostic("E110", f"'{opener}' was never closed", sp, path,
                                hint=f"add the matching '{_OPEN[opener]}'"))
    if toks and toks[-1].kind not in ("NEWLINE", "DEDENT"):
        emit("NEWLINE", "", n, n)
    while len(indents) > 1:
        indents.pop()
        emit("DEDENT", "", n, n)
    emit("EOF", "", n, n)
    return toks, diags


def _name(text: str) -> str:
    """A name as CPython reads it: NFKC-normalised (PEP 3131), so `ﬁ` and `fi` are one name.
    The lowering compiles our tree in-process but source text under `--untrusted`, which
    CPython normalises; normalising here, once, makes both see the same names."""
    return unicodedata.normalize("NFKC", text)


_STATEMENT_START = re.compile(
    r"[ \t]*(?:(?:return|if|elif|else|for|while|def|env|type|newtype|module|import|from|pass|break|"
    r"continue|assert|class|try|with|raise)\b|@)"
)


class _StatementFollows:
    """Inside brackets at a line break: does the next line look like a new statement?

    Then the bracket was left open by mistake; closing it here keeps one missing ')'
    from swallowing the rest of the file. The answer is that of the next non-blank line,
    so it is remembered for every line break before that line: a run of blank or comment
    lines inside brackets is scanned once, not once per line break (which was quadratic).
    """

    def __init__(self, text: str):
        self.text = text
        self.lo = self.hi = -1  # line breaks in [lo, hi] share the cached answer
        self.indent = -1
        self.answer = False

    def __call__(self, i: int, indent: int) -> bool:
        if self.lo <= i <= self.hi and indent == self.indent:
            return self.answer
        text, n, start = self.text, len(self.text), i
        answer = False
        while i < n:
            j = i
            while j < n and text[j] in " \t":
                j += 1
            if j < n and text[j] in "#\r\n":
                while j < n and text[j] not in "\r\n":
                    j += 1
                i = j + 1
                continue
            m = _STATEMENT_START.match(text, i)
            answer = bool(m) and (j - i) <= indent
            break
        self.lo, self.hi, self.indent, self.answer = start, i, indent, answer
        return answer


def split_items(toks: list[Tok]) -> Iterator[list[Tok]]:
    """Group tokens into top-level items: decorators + header + indented block.

    Items are independent for the parser, which gives recovery at item boundaries for
    free and lets the language server re-parse only the items an edit touched.
    """
    cur: list[Tok] = []
    depth = 0
    line_first: Tok | None = None
    for k, t in enumerate(toks):
        if t.kind == "EOF":
            break
        if line_first is None and t.kind not in ("INDENT", "DEDENT", "NEWLINE"):
            line_first = t
        cur.append(t)
        if t.kind == "INDENT":
            depth += 1
        elif t.kind == "DEDENT":
            depth -= 1
            if depth == 0:
                yield cur
                cur = []
                line_first = None
        elif t.kind == "NEWLINE":
            starts_decorator = line_first is not None and line_first.value == "@" and line_first.kind == "OP"
            line_first = None
            if depth == 0 and toks[k + 1].kind != "INDENT" and not starts_decorator:
                yield cur
                cur = []
    if cur:
        yield cur
