"""Parameter facts (racesl.lower.instrument.facts): the typed record and its mark spelling."""

from __future__ import annotations

import pytest

from racesl.lower.instrument import ParamFacts, facts_to_marks
from racesl.lower.instrument.facts import as_facts, marks_to_facts


@pytest.mark.parametrize("marks", [
    set(),
    {"n"},
    {"n", "n~"},
    {"xs[]", "xs[~", "xs#", "xs#<", "xs#:20"},
    {"s#", "s$", "s#:60000"},
    {"g#", "g#<", "g[#", "k", "k~"},
])
def test_marks_round_trip(marks):
    assert facts_to_marks(marks_to_facts(marks)) == marks


def test_marks_name_fields():
    facts = marks_to_facts({"n", "n~", "xs[]", "xs#", "xs#<", "xs#:20"})
    assert facts["n"] == ParamFacts(is_int=True, word=True)
    assert facts["xs"] == ParamFacts(int_elems=True, sized=True, short=True, max_len=20)
    assert as_facts(facts) is facts


def test_unknown_marks_are_refused():
    with pytest.raises(ValueError, match="not a parameter mark"):
        marks_to_facts({"xs?"})
