"""The degenerate-expansion filters (paper defaults, all configurable).

Each returns the name of the filter that drops a value, or None. The search counts the
names, so the compile summary can say what each filter removed.
"""

from __future__ import annotations

from collections import Counter

from racesl.search.config import Filters


def value_filter(f: Filters, value, text: str) -> str | None:
    """Filters on one output alone (its value and canonical text)."""
    if f.bool_values and type(value) is bool:
        return "bool"  # half of all guesses are right
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


class AnswerShare:
    """The constant-guess filter: within an operator × size cell, one final answer may make
    up at most `share` of the tasks kept so far (two are always allowed), so no constant
    guess collects more. It applies where the answer is one value (branch, loop and
    individual: a loop that converges from most starts answers the same value again and again). Tasks arrive
    in index order, so what it keeps does not depend on the number of workers."""

    OPERATORS = ("branch", "loop", "individual")

    def __init__(self, share: float):
        self.share = share
        self.cells: Counter = Counter()
        self.answers: Counter = Counter()

    def admit(self, operator: str, size: int, answer: str) -> bool:
        if operator not in self.OPERATORS:
            return True
        cell = (operator, size)
        if self.answers[cell, answer] + 1 > max(2, self.share * (self.cells[cell] + 1)):
            return False
        self.cells[cell] += 1
        self.answers[cell, answer] += 1
        return True
