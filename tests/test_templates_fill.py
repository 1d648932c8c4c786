"""`templates.fill`: a laid-out value (a `Block`) on lines of its own in every operator's
template; without a Block exactly `str.format` (prompts that lay nothing out stay byte-identical)."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from racesl import templates
from racesl.templates import Block, fill

GRID = Block("```\n1 2\n3 4\n```")


def test_without_a_block_it_is_str_format():
    for op, text in templates.DEFAULTS.items():
        values = {f: 3 if f in ("count", "times") else f"<{f}>" for f in templates.FIELDS[op]}
        assert fill(text, **values) == text.format(**values)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=string.ascii_letters + " .,:\n{}", max_size=40), st.text(max_size=20))
def test_any_template_without_a_block_is_str_format(text, value):
    try:
        want = text.format(x0=value)
    except (ValueError, KeyError, IndexError):
        return
    assert fill(text, x0=value) == want


def test_a_block_stands_on_lines_of_its_own():
    assert fill("Input: {x0}\n\nOperations:", x0=GRID) == "Input:\n```\n1 2\n3 4\n```\n\nOperations:"
    assert fill("Let x = {x0}.\n\nCondition", x0=GRID) == "Let x =\n```\n1 2\n3 4\n```\n\nCondition"
    # mid-sentence: the sentence's punctuation gives way to the line break
    assert fill("Start from {x0}. Apply it", x0=GRID) == "Start from\n```\n1 2\n3 4\n```\nApply it"
    assert fill("that turns {x0} into {target}. Answer", x0=GRID, target=GRID) == \
        "that turns\n```\n1 2\n3 4\n```\ninto\n```\n1 2\n3 4\n```\nAnswer"
    assert fill("{x0}", x0=GRID) == GRID
    assert fill("{x0}{target}", x0=GRID, target="7") == GRID + "\n7"


def test_other_fields_are_formatted_as_usual_beside_a_block():
    got = fill("{x0} {times:>3} times {name!r}", x0=GRID, times=5, name="g")
    assert got == GRID + "\n  5 times 'g'"


def test_every_default_template_keeps_its_text_around_a_block():
    for op, text in templates.DEFAULTS.items():
        values = {f: 3 if f in ("count", "times") else f"<{f}>" for f in templates.FIELDS[op]}
        if "x0" not in values:
            continue
        values["x0"] = GRID
        got = fill(text, **values)
        assert "\n```\n1 2\n3 4\n```\n" in got, op
        assert " \n" not in got, op  # no line ends in a space before a block
        for f, v in values.items():
            if f != "x0":
                assert str(v) in got, (op, f)
