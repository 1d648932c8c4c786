"""The formatter's view of a file: logical lines of tokens as written, with the comments and
blank lines that the lexer drops put back beside the tokens they sit next to.

A comment on the same line as a token is that token's `trailing` comment; a comment on a
line of its own joins the `leading` comments of the next token. Everything between two
tokens is whitespace, line breaks, backslash continuations or comments (strings are tokens),
so reading the gaps finds every comment and no comment is lost.
"""

from __future__ import annotations


import attrs

from racesl.syntax.lexer import LINE_BREAK, Tok

OPENERS = {"(": ")", "[": "]", "{": "}"}
CLOSERS = {")", "]", "}"}


@attrs.define(slots=True, eq=False)
class Comment:
    text: str  # "# ...", without trailing whitespace
    col: int  # 1-based column it was written at
    blank_before: int  # blank lines between it and what came before


@attrs.define(slots=True, eq=False)
class Token:
    kind: str  # the lexer's: NAME INT FLOAT STRING BYTES OP KW (formatting refuses FORBIDDEN)
    text: str  # as written
    line: int
    col: int
    leading: list[Comment] = attrs.Factory(list)
    trailing: str | None = None
    blank_before: int = 0  # blank lines between the last comment or token before and this one
    role: str | None = None  # set by spacing.assign_roles: unary, kwarg, slice, decorator

    def is_op(self, *ops: str) -> bool:
        return self.kind == "OP" and self.text in ops

    def is_kw(self, *words: str) -> bool:
        return self.kind == "KW" and self.text in words

    @property
    def opens(self) -> bool:
        return self.kind == "OP" and self.text in OPENERS

    @property
    def closes(self) -> bool:
        return self.kind == "OP" and self.text in CLOSERS


def synthetic(kind: str, text: str) -> Token:
    """A token the formatter adds (a trailing comma): it has no place in the source."""
    return Token(kind, text, 0, 0)


def outermost(tokens: list[Token]):
    """(index, token) of the tokens outside every bracket pair of the list, brackets left out:
    the level where commas, colons and operators separate a statement's parts."""
    level = 0
    for i, t in enumerate(tokens):
        if t.opens:
            level += 1
        elif t.closes:
            level = max(level - 1, 0)
        elif level == 0:
            yield i, t


def cut(tokens: list[Token], at: list[int], keep: bool) -> list[list[Token]]:
    """The runs between the indices `at`; each cut token ends its run when `keep`, else goes."""
    out, start = [], 0
    for i in at:
        out.append(tokens[start:i + 1] if keep else tokens[start:i])
        start = i + 1
    return out + [tokens[start:]]


@attrs.define(slots=True, eq=False)
class Line:
    """A logical line: the tokens of one or more statements (split later) at one depth."""

    depth: int
    tokens: list[Token]


def read_lines(text: str, toks: list[Tok]) -> tuple[list[Line], list[Comment]]:
    """The logical lines of `text` (lexed without errors into `toks`), and the comments after
    its last token."""
    lines: list[Line] = []
    cur: list[Token] = []
    depth = line_depth = 0
    prev_end: int | None = None  # where the previous real token ended (None: the file start)
    prev: Token | None = None
    for t in toks:
        if t.kind == "INDENT":
            depth += 1
        elif t.kind == "DEDENT":
            depth -= 1
        elif t.kind == "NEWLINE":
            if cur:
                lines.append(Line(line_depth, cur))
                cur = []
        elif t.kind != "EOF":
            tok = Token(t.kind, text[t.span.start:t.span.end], t.span.line, t.span.col)
            _read_gap(text[prev_end or 0:t.span.start], prev, tok, prev_end is None)
            if not cur:
                line_depth = depth
            cur.append(tok)
            prev, prev_end = tok, t.span.end
    tail = Token("EOF", "", 0, 0)
    _read_gap(text[prev_end or 0:], prev, tail, prev_end is None)
    return lines, tail.leading


def _read_gap(gap: str, before: Token | None, after: Token, at_start: bool) -> None:
    """Give the comments in `gap` (the text between two tokens) to the tokens either side."""
    parts = LINE_BREAK.split(gap)  # (at the start, the first part is a whole line too)
    if not at_start:
        first = parts.pop(0)
        if "#" in first and before is not None:
            before.trailing = first[first.index("#"):].rstrip()
        if not parts:  # the two tokens share a line
            return
    blank = 0
    for seg in parts[:-1]:
        body = seg.lstrip(" \t\f")
        if not body:
            blank += 1
        elif body.startswith("#"):
            after.leading.append(Comment(body.rstrip(), len(seg) - len(body) + 1, blank))
            blank = 0
    last = parts[-1].lstrip(" \t\f")
    if last.startswith("#"):  # the file ends in a comment without a final line break
        after.leading.append(Comment(last.rstrip(), len(parts[-1]) - len(last) + 1, blank))
        blank = 0
    after.blank_before = blank
