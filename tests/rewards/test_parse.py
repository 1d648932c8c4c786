"""Reading answers out of completions: the last <answer> block, list items, labels."""

from __future__ import annotations

import pytest

from racesl.rewards.parse import MAX_ANSWER, extract_answer, matches, parse_labels, split_items


@pytest.mark.parametrize("completion, want", [
    ("<answer>5</answer>", "5"),
    ("think... <answer> 5 </answer>", "5"),
    ("<answer>\n[1, 2]\n</answer>\n", "[1, 2]"),
    ("<answer>1</answer> no wait <answer>2</answer>", "2"),
    ("<answer>1</answer> then <answer>2", "1"),  # the last COMPLETE block
    ("no answer here", None),
    ("<answer>5", None),
    ("5</answer>", None),
    ("</answer><answer>", None),
    ("", None),
    ("<answer></answer>", ""),
    ("<ANSWER>5</ANSWER>", None),
])
def test_extract_answer(completion, want):
    assert extract_answer(completion) == want


@pytest.mark.parametrize("junk", [None, 5, 5.0, b"<answer>5</answer>", ["<answer>5</answer>"], {"a": 1}, object()])
def test_extract_answer_non_text(junk):
    assert extract_answer(junk) is None


def test_extract_answer_length_limit():
    assert extract_answer("<answer>" + "1" * MAX_ANSWER + "</answer>") == "1" * MAX_ANSWER
    assert extract_answer("<answer>" + "1" * (MAX_ANSWER + 1) + "</answer>") is None


@pytest.mark.parametrize("given, expected", [
    ("5", "5"), (" 5 ", "5"), ("+5", "5"), ("-3", "-3"), ("[1,2]", "[1, 2]"), ("[ 1 , 2 ]", "[1, 2]"),
    ("(1,2)", "(1, 2)"), ("{'a':1}", "{'a': 1}"), ("True", "True"),
    ("'ab'", "'ab'"), ('"ab"', "'ab'"), ("ab", "'ab'"), ("'ab'", "'ab'"), ("12", "'12'"), ("True", "'True'"),
    ('"it\'s"', '"it\'s"'), ("it's", '"it\'s"'),
])
def test_matches_tolerant(given, expected):
    assert matches(given, expected)


@pytest.mark.parametrize("given, expected", [
    ("6", "5"), ("1", "True"), ("True", "1"), ("0", "False"), ("[1, 2]", "(1, 2)"), ("'5'", "5"),
    ("ab", "'ba'"), ("'ab", "'ab'"), ("[1, 2", "[1, 2]"), ("", "5"), ("5", "'ab'"),
])
def test_matches_strict_where_it_must_be(given, expected):
    assert not matches(given, expected)


@pytest.mark.parametrize("text, items", [
    ("[1, 2, 3]", ["1", "2", "3"]),
    ("[1, 2, 3,]", ["1", "2", "3"]),
    ("(1, 2)", ["1", "2"]),
    ("[]", []),
    ("[[1, 2], [3]]", ["[1, 2]", "[3]"]),
    ("['a, b', 'c']", ["'a, b'", "'c'"]),
    ('["a]", (1, 2)]', ['"a]"', "(1, 2)"]),
    ("[ab, cd]", ["ab", "cd"]),
    ("[{1: 2, 3: 4}, 5]", ["{1: 2, 3: 4}", "5"]),
    ("1. 5\n2. 7\n3) 9", ["5", "7", "9"]),
    ("Step 1: 5\nstep 2: [1, 2]", ["5", "[1, 2]"]),
    ("5", None),
])
def test_split_items(text, items):
    assert split_items(text) == items


def test_split_items_escaped_quote_inside_a_string():
    """A string that holds both quote characters is written with a backslash escape
    (`repr("it's \\"x\\"")` is `'it\\'s "x"'`). split_items ends the quoted run at the
    escaped quote, so the rest of the list is split wrongly and a correct sequential answer
    written with other spacing than the record's scores 0."""
    first = repr('it\'s "x"')
    assert "\\'" in first
    text = "[" + first + " ,  'b, c',  'd']"
    assert split_items(text) == [first, "'b, c'", "'d'"]


@pytest.mark.parametrize("text, labels", [
    ("A, B, C", ["A", "B", "C"]), ("A B C", ["A", "B", "C"]), ("ABC", ["A", "B", "C"]),
    ("['A', 'B']", ["A", "B"]), ("A -> B -> C", ["A", "B", "C"]), ("a, b", ["A", "B"]),
    ("C", ["C"]), ("(B)(A)", ["B", "A"]), ("A, A", ["A", "A"]),
])
def test_parse_labels(text, labels):
    assert parse_labels(text) == labels


@pytest.mark.parametrize("text", ["", "1, 2", "AB, C", "Answer: A, B", "—", "[]"])
def test_parse_labels_rejects(text):
    assert parse_labels(text) is None
