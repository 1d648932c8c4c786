"""Braces in descriptions (racesl.syntax.braces, issue 35): a dict or set in an `Example:`
sentence is a value, written as it is; `template` doubles its braces so `str.format` shows
it as written, and leaves every description that was a valid template alone."""

from __future__ import annotations

import string

import pytest

from racesl.syntax.braces import fill, shown, template, value_groups

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


# (description, values, as a prompt writes it): a value that is not one atom is parenthesised
# where an operator binds it, and only there
FILLED = [
    ("the sum of p[i] * {k}^i (for x = {k})", {"k": "-2"}, "the sum of p[i] * (-2)^i (for x = -2)"),
    ("return (x + {a}, y - {b})", {"a": "-4", "b": "-1"}, "return (x + (-4), y - (-1))"),
    ("{k} * p[i], then {k}**2, then 7 mod {k}", {"k": "-3"}, "-3 * p[i], then (-3)**2, then 7 mod (-3)"),
    ("shift by {k}; the pair ({k}, {k})", {"k": "-5"}, "shift by -5; the pair (-5, -5)"),
    ("x * {k}^i and x - {k}", {"k": "3"}, "x * 3^i and x - 3"),  # an atom stays as it is
    ("x * {w} and x + {s}", {"w": "[-1, 2]", "s": "'a - b'"}, "x * [-1, 2] and x + 'a - b'"),
    ("keep {{k}} as written; x * {k}", {"k": "1 + y"}, "keep {k} as written; x * (1 + y)"),
    ("Scale by {k}. Example: 5 -> {'n': 5}.", {"k": "-1"}, "Scale by -1. Example: 5 -> {'n': 5}."),
]


@pytest.mark.parametrize("desc, values, want", FILLED)
def test_fill_parenthesises_values_an_operator_binds(desc, values, want):
    assert fill(desc, values) == want


def test_a_stdlib_prompt_parenthesises_a_negative_setting():
    from racesl.operators.build import describe
    from tests.support.tasks import stdlib

    env = stdlib().envs["polys.evaluate_at"]
    ks = [s.name for s in env.settings]
    text = describe(env, tuple(-2 if n == "k" else 0 for n in ks))
    assert "p[i] * (-2)^i" in text and "-2^i" not in text.replace("(-2)^i", "")
