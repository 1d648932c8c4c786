"""Braces in descriptions (racesl.syntax.braces, issue 35): a dict or set in an `Example:`
sentence is a value, written as it is; `template` doubles its braces so `str.format` shows
it as written, and leaves every description that was a valid template alone."""

from __future__ import annotations

import string

import pytest

from racesl.syntax.braces import shown, template, value_groups

WRITTEN_AS_IS = [
    ("Map. Example: 5 -> {'n': 5}.", "Map. Example: 5 -> {{'n': 5}}."),
    ("Nest {k}. Example, with k = 2: 5 -> {'a': {'b': 5}}. Then {k}.",
     "Nest {k}. Example, with k = 2: 5 -> {{'a': {{'b': 5}}}}. Then {k}."),
    ("Empty. Example: {5} -> {}.", "Empty. Example: {{5}} -> {{}}."),
    ("Dots. Example: 'a. b' -> {'a. b': 1}.", "Dots. Example: 'a. b' -> {{'a. b': 1}}."),
    ("Braces. Example: 'a}' -> {'}': 1}.", "Braces. Example: 'a}}' -> {{'}}': 1}}."),
]


@pytest.mark.parametrize("desc,want", WRITTEN_AS_IS)
def test_example_values_are_doubled_for_format(desc, want):
    assert template(desc) == want
    fields = {f for _, f, _, _ in string.Formatter().parse(want) if f is not None}
    assert fields <= {"k"}  # no value reads as a placeholder any more
    assert want.format(k="{k}") == desc  # formatting shows the values as written


UNCHANGED = [
    "Add {k} to x. Example, with k = 2: 5 -> 7.",
    "Map. Example: 5 -> {{'n': 5}}.",  # the doubled form (as elsewhere) stays
    "Map. Example: 5 -> {{'a': {{'b': 5}}}}.",
    "A value outside an example, {'a': 1}, is no example's.",  # (E402 reports it)
    "Example: {k} -> 3.",  # a placeholder is no value
    "No example at all {{x}}.",
    "Example: 'a{{' -> 'a{{b'.",  # a string's braces written doubled read as before
]


@pytest.mark.parametrize("desc", UNCHANGED)
def test_valid_templates_and_text_outside_examples_are_left_alone(desc):
    assert template(desc) == desc


def test_shown_keeps_values_and_undoubles_the_rest():
    assert shown("Example: 5 -> {'a': {'b': 5}}.") == "Example: 5 -> {'a': {'b': 5}}."
    assert shown("Example: 5 -> {{'a': {{'b': 5}}}}.") == "Example: 5 -> {'a': {'b': 5}}."
    assert shown("{{'n': 5}} -> {5}") == "{'n': 5} -> {5}"


def test_value_groups_are_dicts_and_sets_only():
    text = "{k} {'a': 1} {{1: 2}} {3} {} {x: 1}"
    assert [text[a:b] for a, b in value_groups(text)] == ["{'a': 1}", "{3}", "{}"]


def test_a_prompt_shows_an_example_value_as_written(tmp_path):
    """The operators write settings in through the template: the example's dict is shown as
    written, and the example is worked again for the task's settings."""
    from racesl.check import check_paths
    from racesl.operators.build import describe

    p = tmp_path / "m.races"
    p.write_text("env keyed(x: Int where 0 <= it <= 9, k: Int where 1 <= it <= 3) -> Dict[Str, Dict[Str, Int]]:\n"
                 "    \"\"\"Map 'n' to x and {k}. Example, with k = 2: 5 -> {'n': {'m': 5, 'k': 2}}.\"\"\"\n"
                 "    return {'n': {'m': x, 'k': k}}\n", encoding="utf-8")
    checked = check_paths([p])
    assert not list(checked.diagnostics)
    env = checked.env("m.keyed")
    assert describe(env, (3,)) == "Map 'n' to x and 3. Example, with k = 2: 5 -> {'n': {'m': 5, 'k': 2}}."
