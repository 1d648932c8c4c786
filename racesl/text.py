"""Words in messages: one place that counts nouns and picks articles, so no message says
"1 environments" or "a Int"."""

from __future__ import annotations

_IRREGULAR = {"child": "children", "entry": "entries", "property": "properties", "library": "libraries"}


def plural(n: int, word: str, many: str | None = None) -> str:
    """`plural(1, "task")` → "1 task"; `plural(3, "task")` → "3 tasks"; `many` for irregular nouns."""
    if n == 1:
        return f"{n} {word}"
    return f"{n} {many or _IRREGULAR.get(word) or _regular(word)}"


def _regular(word: str) -> str:
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def article(word: str) -> str:
    """`article("Int")` → "an Int"; by the first letter's sound as English speakers read type names."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"
