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


def test_a_module_constant_run_is_parenthesized_one_literal_a_line():
    words = " ".join(f'"w{i:04d} word of the list "' for i in range(200))  # one line of ~5,000 columns
    result = format_source(f"WORDS: Str = {words}\n", "m.races")
    assert result.ok
    lines = result.text.splitlines()
    assert lines[0] == "WORDS: Str = (" and lines[-1] == ")" and len(lines) == 202
    assert max(len(line) for line in lines) <= WIDTH
    assert format_source(result.text, "m.races").text == result.text


# ---------------------------------------------------------------- property (HOSTILE.md: huge inputs)
#
# Modules holding runs of adjacent string literals in every place a run can stand — a
# return, an assignment, a call's argument, a list's element, a membership test, a module
# constant — written one literal a line inside brackets (no line over WIDTH) or all on one
# line, with comments after some literals: formatting is a fixed point after one pass, keeps
# the meaning (format_source re-parses and compares the trees) and, where the input had no
# line over WIDTH, gives none.

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_CHARS = st.text(alphabet=st.sampled_from("abcxyz ABC019_-.,:;!?'é\\"), min_size=0, max_size=60)
_WORD = st.one_of(_CHARS, st.from_regex(r"[a-z ]{20,60}", fullmatch=True))  # (runs past the width)


def _literal(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


@st.composite
def _run(draw) -> tuple[list[str], bool, list[bool]]:
    lits = [_literal(s) for s in draw(st.lists(_WORD, min_size=1, max_size=120))]
    return lits, draw(st.booleans()), [draw(st.booleans()) and draw(st.booleans()) for _ in lits]


def _written(run, indent: str) -> str:
    """The run as an expression: one literal a line inside parentheses (comments after some),
    or all on one line."""
    lits, one_line, comments = run
    if one_line:
        return " ".join(lits)
    inner = "".join(f"{indent}    {lit}{'  # note' if c else ''}\n" for lit, c in zip(lits, comments))
    return "(\n" + inner + indent + ")"


_PLACES = {
    "return": lambda r: f"def f(x: Int) -> Str:\n    return {_written(r, '    ')}\n",
    "assign": lambda r: f"def f(x: Int) -> Str:\n    s = {_written(r, '    ')}\n    return s\n",
    "argument": lambda r: f"def f(x: Int) -> Str:\n    return g(x, {_written(r, '    ')}, x)\n",
    "element": lambda r: f"def f(x: Int) -> List[Str]:\n    return [str(x), {_written(r, '    ')}]\n",
    "member": lambda r: f"def f(s: Str) -> Bool:\n    if s in {_written(r, '    ')}:\n        return True\n"
                        "    return False\n",
    "constant": lambda r: f"WORDS: Str = {_written(r, '')}\n",
}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(sorted(_PLACES)), _run()), min_size=1, max_size=4))
def test_string_runs_format_to_a_fixed_point_within_the_width(parts):
    text = "\n\n".join(_PLACES[place](run).replace("def f(", f"def f{k}(").replace("WORDS", f"WORDS{k}")
                       for k, (place, run) in enumerate(parts))
    once = format_source(text, "m.races")  # (raises MeaningChanged if the tree differs)
    assert once.ok, [str(d) for d in once.diagnostics]
    twice = format_source(once.text, "m.races")
    assert twice.ok and twice.text == once.text
    if max(len(line) for line in text.splitlines()) <= WIDTH:
        assert max(len(line) for line in once.text.splitlines()) <= WIDTH, once.text
