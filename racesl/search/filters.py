"""The degenerate-expansion filters (paper defaults, all configurable).

Each returns the name of the filter that drops a value, or None. The search counts the
names, so the compile summary can say what each filter removed.
"""

from __future__ import annotations

from racesl.search.config import Filters


def value_filter(f: Filters, value, text: str) -> str | None:
    """Filters on one output alone (its value and canonical text)."""
    if f.drop_values and value in f.drop_values and any(
            type(v) is type(value) and v == value for v in f.drop_values):
        return "value"  # Bool is its own type: True is not the Int 1
    if type(value) is int and abs(value) > f.max_int:
        return "big_int"
    if len(text) > f.max_text:
        return "long_text"
    if f.repeated_char and type(value) is str and len(set(value)) <= 1:
        return "repeated_char"
    return None
