"""Fast reading of the literals that answers and records usually hold.

`parse_literal` (ast.parse + a vetting walk + literal_eval) costs tens of microseconds even
for `5`; scoring calls it on every answer item that is not textually right, so it dominated
the reward's cost. This module holds the cheaper pieces scoring uses first:

- `read_literal(text)`: a reader for a strict subset of literals (ASCII decimal ints without
  leading zeros, True/False, quoted strings without backslashes, lists, tuples, dicts with
  hashable keys). It returns exactly what `parse_literal` would return, or `UNKNOWN` when the
  text is outside the subset (the caller then asks `parse_literal`, which also produces the
  errors). It never returns a value for a text `parse_literal` refuses.
- `CANONICAL`: a regular expression that only matches texts that are `canonical()` texts of
  a value (ints, bools, printable-ASCII strings, lists and tuples, nested at most
  `CANONICAL_DEPTH` deep). Matching it certifies a text without building the value.
"""

from __future__ import annotations

import re

from racesl.runtime.contract import MAX_LITERAL_CHARS, MAX_LITERAL_DEPTH

UNKNOWN = object()  # "not in the fast subset": ask parse_literal
INVALID = object()  # certainly not a literal: parse_literal would raise

# Python refuses NUL and lone surrogates anywhere in a source; a backslash starts an escape
# and a line break ends a one-line string, so strings holding any of them take the slow path.
_STR_BODY = r"[^{q}\\\n\r\x00\ud800-\udfff]*+"
# An int of at most 601 digits stays far below any `sys.set_int_max_str_digits` limit (>= 640).
_INT = r"-?[1-9][0-9]{0,600}+(?![0-9])|-?0(?![0-9])"


def _token_pattern(group: str) -> str:
    """One token (after spaces, tabs or newlines): an int, a string, a bool, or punctuation.
    `group` is "(" for the capturing form, "(?:" for the one that only checks a whole text."""
    return (r"[ \t\n]*+(?:"
            rf"{group}{_INT})"
            rf"|'{group}{_STR_BODY.format(q=chr(39))})'"
            rf"|\"{group}{_STR_BODY.format(q=chr(34))})\""
            rf"|{group}True|False)(?![A-Za-z0-9_])"
            rf"|{group}[\[\](){{}},:]))")


_TOKEN = re.compile(_token_pattern("("))
_ALL_TOKENS = re.compile(rf"(?:{_token_pattern('(?:')})*+")
# the commonest whole texts, read without the tokenizer
_WHOLE_INT = re.compile(_INT)
_WHOLE_STR = re.compile(rf"'({_STR_BODY.format(q=chr(39))})'|\"({_STR_BODY.format(q=chr(34))})\"")


def read_literal(text):
    """The value `parse_literal(text)` returns; or INVALID where parse_literal raises for
    sure; or UNKNOWN. Never a value where parse_literal returns another or raises.

    INVALID is only said for a text made entirely of the reader's tokens whose grammar
    breaks where Python's breaks too: with these tokens Python accepts only the reader's
    grammar plus adjacent strings (`'a' 'b'`), a bare tuple (`1, 2`) and deeper nesting,
    and those three stay UNKNOWN. Anything else (`[1] 2`, `(1, 0)0`, `{1}`, `1 -5`) is a
    syntax error, or an expression (a set, a call, a subscript, arithmetic) that
    parse_literal refuses."""
    if type(text) is not str or len(text) > MAX_LITERAL_CHARS:
        return UNKNOWN
    src = text.strip()
    if _WHOLE_INT.fullmatch(src):
        return int(src)
    m = _WHOLE_STR.fullmatch(src)
    if m:
        return m.group(1) if src[0] == "'" else m.group(2)
    if not _ALL_TOKENS.fullmatch(src):
        return UNKNOWN  # also for an empty text: parse_literal raises, let it say why
    tokens = _TOKEN.findall(src)
    if not tokens:
        return UNKNOWN
    try:
        value, end = _value(tokens, 0, 0)
    except _Unknown:
        return UNKNOWN
    except _Broken as exc:
        return UNKNOWN if exc.at < len(tokens) and _strings_meet(tokens, exc.at) else INVALID
    if end == len(tokens):
        return value
    return UNKNOWN if tokens[end][4] == "," or _strings_meet(tokens, end) else INVALID


def _strings_meet(tokens, i) -> bool:
    """Is tokens[i] a string right after a string (implicit concatenation)?"""
    def is_str(t):
        return not (t[0] or t[3] or t[4])
    return i > 0 and is_str(tokens[i]) and is_str(tokens[i - 1])


class _Unknown(Exception):
    """Raised inside the reader for a text outside the subset that may still be a literal."""


class _Broken(Exception):
    """Raised inside the reader where the grammar breaks: token `at` cannot come next."""

    def __init__(self, at: int):
        self.at = at


def _value(tokens, i, level):
    """The value starting at tokens[i] inside `level` brackets, and the index after it."""
    if i >= len(tokens):
        raise _Broken(i)
    num, sq, dq, boolean, punct = tokens[i]
    if num:
        return int(num), i + 1
    if punct == "":
        if boolean:
            return boolean == "True", i + 1
        return (sq if sq else dq), i + 1  # an empty string has no group: both are ""
    if level + 1 >= MAX_LITERAL_DEPTH:
        raise _Unknown  # ast's depth rule, counted conservatively (parentheses count too)
    if punct == "[":
        items, i = _sequence(tokens, i + 1, level + 1, "]")
        return items, i
    if punct == "(":
        return _parenthesised(tokens, i + 1, level + 1)
    if punct == "{":
        return _dict(tokens, i + 1, level + 1)
    raise _Broken(i)


def _sequence(tokens, i, level, close):
    """Comma-separated values up to `close`; one trailing comma is allowed, as in Python."""
    items = []
    while True:
        if i < len(tokens) and tokens[i][4] == close:
            return items, i + 1
        value, i = _value(tokens, i, level)
        items.append(value)
        if i < len(tokens) and tokens[i][4] == ",":
            i += 1
        elif i < len(tokens) and tokens[i][4] == close:
            return items, i + 1
        else:
            raise _Broken(i)


def _parenthesised(tokens, i, level):
    """`()`, `(x,)`, `(x, y)` are tuples; `(x)` is x itself."""
    if i < len(tokens) and tokens[i][4] == ")":
        return (), i + 1
    first, i = _value(tokens, i, level)
    if i < len(tokens) and tokens[i][4] == ")":
        return first, i + 1
    if not (i < len(tokens) and tokens[i][4] == ","):
        raise _Broken(i)
    rest, i = _sequence(tokens, i + 1, level, ")")
    return (first, *rest), i


def _dict(tokens, i, level):
    """`{k: v, ...}` with int/bool/str/tuple keys; later duplicates win, as in literal_eval."""
    out = {}
    while True:
        if i < len(tokens) and tokens[i][4] == "}":
            return out, i + 1
        key, i = _value(tokens, i, level)
        if type(key) in (list, dict):
            raise _Unknown  # refused, but let parse_literal say so
        if not (i < len(tokens) and tokens[i][4] == ":"):
            raise _Broken(i)  # a set, or worse
        value, i = _value(tokens, i + 1, level)
        try:
            out[key] = value
        except TypeError:  # a tuple key holding a list
            raise _Unknown from None
        if i < len(tokens) and tokens[i][4] == ",":
            i += 1
        elif not (i < len(tokens) and tokens[i][4] == "}"):
            raise _Broken(i)


# ---------------------------------------------------------------- canonical texts

CANONICAL_DEPTH = 4  # containers nested deeper than this are certified the slow way


def _canonical_pattern(depth: int) -> str:
    """A value's canonical text (`repr`), containers at most `depth` deep: ints without
    leading zeros (and no `-0`), True/False, printable-ASCII strings in repr's own quoting
    (single quotes unless the text holds a `'` and no `"`), `[a, b]`, `()`, `(a,)`, `(a, b)`.
    Each alternative begins with its own character, so matching never backtracks far."""
    scalar = (r"-?[1-9][0-9]{0,600}+|0|True|False"
              r"|'[ -&(-\[\]-~]*+'"
              r"|\"[ !#-&(-\[\]-~]*+'[ !#-\[\]-~]*+\"")
    if depth == 0:
        return f"(?>{scalar})"
    inner = _canonical_pattern(depth - 1)
    listed = rf"\[(?:{inner}(?:, (?!\])|(?=\])))*+\]"
    tupled = rf"\((?:{inner}(?:,(?=\))|(?:, {inner})++))?\)"
    return f"(?>{scalar}|{listed}|{tupled})"


CANONICAL_PATTERN = _canonical_pattern(CANONICAL_DEPTH)
CANONICAL = re.compile(CANONICAL_PATTERN)
