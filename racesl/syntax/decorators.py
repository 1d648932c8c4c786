"""The decorators an environment may carry, in their canonical order, and the laws
`@laws` names: one table that the checker (which accepts only these), the formatter (which
sorts decorators by it) and the language server (completion, hover, signature help) read."""

from __future__ import annotations

DECORATORS = ("generate", "sample", "verify", "fuel", "laws", "layout", "tags")
LAWS = ("idempotent", "involution")


def rank(name: str) -> int:
    """A decorator's place in the canonical order; unknown names go last, in source order."""
    return DECORATORS.index(name) if name in DECORATORS else len(DECORATORS)
