"""Adjacent string literals (an implicit concatenation) break one a line inside brackets,
instead of being joined into one line thousands of columns wide (issue 48: 1,050 literals
became one 57,074-column line)."""

from __future__ import annotations

import pytest

from racesl.format import format_source
from racesl.format.wrap import WIDTH


def _module(n: int, parenthesized: bool) -> str:
    words = [f'"w{i:04d} "' for i in range(n)]
    value = "(\n" + "".join(f"        {w}\n" for w in words) + "    )" if parenthesized else " ".join(words)
    return f"module m\n\ndef words(rng, level) -> Str:\n    text = {value}\n    return text\n"


@pytest.mark.parametrize("n", [3, 40, 1050])
@pytest.mark.parametrize("parenthesized", [True, False])
def test_string_runs_stay_within_the_width(n, parenthesized):
    result = format_source(_module(n, parenthesized), "m.races")
    assert result.ok
    assert max(len(line) for line in result.text.splitlines()) <= WIDTH
    again = format_source(result.text, "m.races")
    assert again.ok and again.text == result.text  # a fixed point


def test_a_short_run_stays_on_one_line():
    text = 'module m\n\ndef f(rng, level) -> Str:\n    return "ab" "cd"\n'
    assert format_source(text, "m.races").text == text
