"""The decorators an environment may carry, in their canonical order, and the laws
`@laws` names: one table that the checker (which accepts only these), the formatter (which
sorts decorators by it) and the language server (completion, hover, signature help) read."""

from __future__ import annotations

DECORATORS = ("generate", "sample", "verify", "fuel", "laws", "layout", "tags")
LAWS = ("idempotent", "involution")


def rank(name: str) -> int:
    """A decorator's place in the canonical order; unknown names go last, in source order."""
    return DECORATORS.index(name) if name in DECORATORS else len(DECORATORS)


def not_one_argument(d) -> str | None:
    """What a decorator that takes exactly one positional argument got instead ("no argument",
    "a keyword", "2 arguments"), or None when it got one: the words every such message uses."""
    if not d.keywords and len(d.args) == 1:
        return None
    if not d.args and not d.keywords:
        return "no argument"
    return "a keyword" if d.keywords else f"{len(d.args)} arguments"
