"""Diagnostics are values: a code, a message, a located span and a hint.

Every stage appends to a list of these instead of printing or raising, so the CLI,
the language server and the golden tests read exactly the same data.
"""

from __future__ import annotations

import enum
from typing import Iterable

import attrs


@attrs.frozen(slots=True, order=True)
class Span:
    """A source range. Lines are 1-based; columns are 1-based code points; ends exclusive.

    Offsets index the decoded text, so the language server can convert a span to
    UTF-8 or UTF-16 units without re-lexing.
    """

    line: int
    col: int
    end_line: int
    end_col: int
    start: int = 0
    end: int = 0

    @staticmethod
    def point(line: int, col: int, offset: int = 0) -> "Span":
        return Span(line, col, line, col + 1, offset, offset + 1)

    def cover(self, other: "Span") -> "Span":
        first, last = (self, other) if (self.line, self.col) <= (other.line, other.col) else (other, self)
        end = max((self.end_line, self.end_col, self.end), (other.end_line, other.end_col, other.end))
        return Span(first.line, first.col, end[0], end[1], first.start, end[2])


NO_SPAN = Span(1, 1, 1, 1, 0, 0)


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@attrs.frozen(slots=True)
class Label:
    """A secondary span with a short caption ("first defined here")."""

    span: Span
    message: str
    path: str | None = None


@attrs.frozen(slots=True)
class Diagnostic:
    code: str
    message: str
    span: Span
    path: str = "<input>"
    severity: Severity = Severity.ERROR
    hint: str | None = None
    labels: tuple[Label, ...] = ()

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def sort_key(self) -> tuple:
        return (self.path, self.span.line, self.span.col, self.code, self.message)

    def headline(self) -> str:
        """`path:line:col: error[CODE]: message` — the one-line form used by tools and tests."""
        s = self.span
        return f"{self.path}:{s.line}:{s.col}: {self.severity.value}[{self.code}]: {self.message}"


# The catalogue of codes. Each code has a title; golden tests cover every one of them.
CODES: dict[str, str] = {
    # syntax
    "E100": "unexpected token",
    "E101": "unexpected character",
    "E102": "unterminated string",
    "E103": "inconsistent indentation",
    "E104": "tab in indentation",
    "E105": "nesting too deep",
    "E106": "invalid UTF-8",
    "E107": "float literal",
    "E108": "bytes literal",
    "E109": "statement not allowed",
    "E110": "unexpected end of file",
    "E111": "invalid f-string",
    "E112": "file too large",
    "E113": "integer literal too long",
    "E114": "text not encodable as UTF-8",
    # modules and names
    "E200": "unknown name",
    "E201": "duplicate definition",
    "E202": "module not found",
    "W202": "not a regular file (skipped)",
    "E203": "import cycle",
    "E204": "name not found in module",
    "E205": "misplaced module declaration",
    # types and signatures
    "E300": "unknown type",
    "E301": "wrong number of type arguments",
    "E302": "refinement is not a predicate",
    "E303": "type mismatch",
    "E304": "missing annotation",
    "E305": "not a type",
    "W300": "unsatisfiable refinement",
    "W301": "environment never composes",
    # environments and decorators
    "E400": "missing description",
    "E401": "setting missing from description",
    "E402": "unknown placeholder",
    "E403": "unknown decorator",
    "E404": "invalid decorator arguments",
    "E405": "invalid sampler",
    "E406": "invalid verifier",
    "E407": "missing input",
    "E408": "duplicate parameter",
    "W400": "unbounded setting",
    "E410": "invalid step budget",
    "E411": "step budget above the cap",
    "E420": "invalid generator",
    "E421": "generator does not fit its environment",
    "E422": "decorator conflicts with @generate",
    "E423": "body missing without @generate",
    "E430": "invalid layout",
    "E431": "layout does not fit the environment's types",
    "E440": "invalid constant",
    "E441": "constant changed",
    "E442": "constant shared",
    "E443": "constant evaluation failed",
    # bodies
    "E500": "construct not allowed",
    "E501": "attribute access not allowed",
    "E502": "dunder name",
    "E503": "unknown method",
    "E504": "wrong number of arguments",
    "E505": "division operator",
    "E506": "not callable",
    "E507": "missing return",
    "E508": "assignment to a reserved name",
    "E509": "value without a text form",
    # running environments (racesc check)
    "E600": "contract violation",
    "E601": "nondeterministic environment",
    "E602": "sampler failed",
    "E603": "law does not hold",
    "E604": "worked example does not hold",
    "E610": "generator failed",
    "E611": "nondeterministic generator",
    "E612": "generator disagrees with its environment",
    "W600": "environment rarely succeeds",
    "W601": "unused import",
    "W602": "unreachable code",
    "W603": "unreadable worked example",
    "W604": "unreadable example in prose",
}


def render_plain(diags: Iterable[Diagnostic]) -> str:
    """Headlines only, sorted: the form golden tests compare against."""
    return "\n".join(d.headline() for d in sorted(diags, key=Diagnostic.sort_key))


def has_errors(diags: Iterable[Diagnostic]) -> bool:
    return any(d.is_error for d in diags)
