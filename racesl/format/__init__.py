"""`racesc fmt`: one canonical layout for `.races` files.

tokens (the source's tokens, comments and blank lines) → statements (one per line,
decorators ordered) → layout (indentation, blank lines, comments) with wrap (long
statements opened at brackets) and docstrings (wrapped to the width). Only whitespace,
line breaks, the order of decorators and commas after the last item of a list change;
tokens are kept as written. A file with syntax errors is refused, and every result is
parsed again and compared with the original tree, so formatting cannot change meaning.
"""

from __future__ import annotations

import attrs

from racesl.diagnostics import Diagnostic, Severity
from racesl.format.layout import layout
from racesl.format.statements import statements
from racesl.format.tokens import read_lines
from racesl.syntax import ast as A
from racesl.syntax.decorators import rank
from racesl.syntax.docstrings import description
from racesl.syntax.lexer import LINE_BREAK, tokenize
from racesl.syntax.parser import parse_module


class MeaningChanged(Exception):
    """The formatted text parses to another tree: a bug in the formatter, never the user's."""


@attrs.frozen
class Formatted:
    text: str  # the formatted text (the input itself when it could not be formatted)
    diagnostics: list[Diagnostic]  # the parser's; syntax errors (not ok) leave the text as it is
    ok: bool

    @property
    def syntax_errors(self) -> list[Diagnostic]:
        """Why the text was left as it is (empty when it formatted)."""
        return [d for d in self.diagnostics if is_syntax_error(d)]


def format_source(text: str, path: str = "<input>") -> Formatted:
    module, diags = parse_module(text, path)
    if any(is_syntax_error(d) for d in diags):
        return Formatted(text, diags, False)
    toks, _ = tokenize(text, path)
    lines, end_comments = read_lines(text, toks)
    out = layout(statements(lines), end_comments)
    newline = m.group() if (m := LINE_BREAK.search(text)) else "\n"
    result = newline.join(out) + newline if out else ""
    if result != text and shape(parse_module(result, path)[0]) != shape(module):
        raise MeaningChanged(f"{path}: the formatted text parses to another tree")
    return Formatted(result, diags, True)


def is_syntax_error(d: Diagnostic) -> bool:
    """E1xx: the text does not parse (recovery may have skipped parts of it). The parser's
    other errors (`/`, `@`) are found on a whole tree, which formats."""
    return d.severity is Severity.ERROR and d.code.startswith("E1")


def shape(n):
    """A tree without its spans, docstrings read as descriptions and decorators in canonical
    order: what formatting must keep."""
    if isinstance(n, tuple):
        return tuple(shape(x) for x in n)
    if not isinstance(n, A.Node):
        return n
    fields = []
    for f in attrs.fields(type(n)):
        v = getattr(n, f.name)
        if f.name.endswith("span") or f.name == "where_text":  # (where_text: as written)
            continue
        if isinstance(n, A.FuncDef) and f.name == "docstring" and v is not None:
            v = description(v.value)
        elif isinstance(n, A.FuncDef) and f.name == "decorators":
            v = tuple(sorted(v, key=lambda d: rank(d.name)))
        fields.append((f.name, shape(v)))
    return (type(n).__name__, tuple(fields))
