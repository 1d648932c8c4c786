"""The fast literal reader (`read_literal`) and the canonical-text pattern never disagree
with `parse_literal`: differential tests on hand-written hostile texts, random texts,
canonical texts of random values and mutations."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racesl.rewards.literals import CANONICAL, INVALID, UNKNOWN, read_literal
from racesl.rewards.parse import _parse, expected_value
from racesl.runtime.contract import canonical, parse_literal

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::SyntaxWarning")

HOSTILE = [
    "", " ", "5", "-5", "-0", "0", "00", "007", "-00", "+5", "- 5", "-(5)", "--5", "-True", "1_000", "0x10", "1e5",
    "1.5", "5j", "٣", "１", "9" * 600, "9" * 601, "9" * 602, "-" + "9" * 601, "9" * 4300, "9" * 4301,
    "True", "False", "true", "None", "Truex", "True1", "[True False]", "True(1)", "...",
    "''", '""', "'a'", '"a"', "'it\"s'", '"it\'s"', "'a' 'b'", "'a''b'", "['a' 'b']", "('a' 'b')", "{'a' 'b': 1}",
    "{1: 'a' 'b'}", "'''a'''", '"""a"""', "b'x'", "f'x'", "u'x'", "r'x'", "'a\\nb'", "'a\nb'", "'a\rb'",
    "'\x00'", "'\ud800'", "'\x7f'", "'\u2028'", "'\ufeff'", "'é'", "'日本'", "'#'", "'a,b]'", "\ufeff5",
    "[]", "()", "{}", "[1,]", "(1,)", "(1)", "((1))", "((1,))", "(,)", "[,]", "{,}", "[1,,]", "(1,,)", "[1, ]",
    "(1, 2,)", "[[]]", "[()]", "((),)", "[1 2]", "[1 -5]", "[1, -5]", "[1] 2", "[1][0]", "(1, 0)0", "5 6",
    "1, 2", "1,", "[1)", "(1]", "{1}", "{1, 2}", "{1: 2}", "{1: 2,}", "{1: 2 3}", "{1: 2: 3}", "{1 2: 3}",
    "{1: 2, 1: 3}", "{True: 1, 1: 2}", "{1: 1, True: 2}", "{(1, 2): 3}", "{(1, [2]): 3}", "{[1]: 2}", "{{}: 1}",
    "{([1]): 2}", "{**{}}", "[*a]", "[x]", "[1, x]", " [ 1 ,\n 2 ] ", "[1,\t2]", "[1,\r\n2]", "[1,\x0c2]",
    "\u00a05\u00a0", "[\u00a01]", "\n5\n", "(\n5\n)", "5\n6", "[1]\n[2]", "[1]\n,2", "5:3", "[1:2]", "1 if 1 else 2",
    "[" * 48 + "1" + "]" * 48, "[" * 49 + "1" + "]" * 49, "[" * 50 + "]" * 50, "[" * 51 + "1" + "]" * 51,
    "(" * 60 + "5" + ")" * 60, "[" * 300 + "]" * 300, "[1, [2, (3, {'a': [True, 'x']})], -4]",
]


def _reference(text):
    try:
        return True, parse_literal(text)
    except ValueError:
        return False, None


def _agrees(text) -> None:
    value = read_literal(text)
    ok, want = _reference(text)
    if value is UNKNOWN:
        return
    if value is INVALID:
        assert not ok, (text, want)
        return
    assert ok, text
    assert type(value) is type(want) and canonical(value) == canonical(want), (text, value, want)


def _certified(text) -> None:
    """CANONICAL only matches texts that are the canonical text of their value."""
    if CANONICAL.fullmatch(text):
        ok, value = _reference(text)
        assert ok and canonical(value) == text, text


@pytest.mark.parametrize("text", HOSTILE)
def test_reader_and_pattern_on_hostile_texts(text):
    _agrees(text)
    _certified(text)
    (ok, value), (ok_want, want) = _parse(text), _reference(text)
    assert ok == ok_want and (not ok or (type(value) is type(want) and canonical(value) == canonical(want)))


def test_reader_covers_the_common_texts():
    for text in ["5", "-12", "'ab'", "[1, 2]", "(1,)", "()", "{'a': 1, 'b': [2, 3]}", "[[1, 2], [0, 2]]", "True"]:
        assert read_literal(text) is not UNKNOWN, text
    for text in ["(1, 0)0", "[1] 2", "{1}", "5 6", "[1 -5]"]:
        assert read_literal(text) is INVALID, text


def test_expected_value_still_raises_with_a_reason():
    for text in ["(1, 0)0", "", "None", "{1}"]:
        with pytest.raises(ValueError):
            expected_value(text)


# ------------------------------------------------------------ random values and texts

PRINTABLE = [chr(c) for c in range(32, 127)]
TRICKY = list("'\"\\,[](){}#: \n\t") + ["é", "日", "\x00", "\x7f", "\u2028", "\ud800"]


def _value(rng: random.Random, depth: int = 0):
    kinds = ["int", "str", "bool"] + (["list", "tuple", "dict"] if depth < 4 else [])
    kind = rng.choice(kinds)
    if kind == "int":
        return rng.choice([0, 1, -1, 7, 42, -300, 10 ** rng.randrange(1, 30), -(10 ** 25) + 3])
    if kind == "str":
        pool = PRINTABLE if rng.random() < 0.7 else PRINTABLE + TRICKY
        return "".join(rng.choice(pool) for _ in range(rng.randrange(0, 6)))
    if kind == "bool":
        return rng.random() < 0.5
    items = [_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    if kind == "list":
        return items
    if kind == "tuple":
        return tuple(items)
    keys = [rng.choice([rng.randrange(-5, 5), "k" + str(rng.randrange(5)), (1, "a"), True]) for _ in items]
    return dict(zip(keys, items))


def _mutate(rng: random.Random, text: str) -> str:
    alphabet = "[](){},:'\" -0123456789TF#\\\nxa"
    for _ in range(rng.randrange(1, 4)):
        i = rng.randrange(len(text) + 1)
        op = rng.randrange(3)
        if op == 0:
            text = text[:i] + rng.choice(alphabet) + text[i:]
        elif op == 1 and text:
            text = text[:i] + text[i + 1:]
        elif text:
            text = text[:i] + rng.choice(alphabet) + text[i + 1:]
    return text


def test_canonical_texts_of_random_values_read_back_exactly():
    rng = random.Random(1)
    for _ in range(3000):
        value = _value(rng)
        text = canonical(value)
        got = read_literal(text)
        if got is not UNKNOWN:
            assert type(got) is type(value) and canonical(got) == text, text
        _certified(text)
        if all(c in PRINTABLE for c in text) and "{" not in text and "\\" not in text:
            assert CANONICAL.fullmatch(text), text  # the subset the pattern is meant to cover


def test_mutated_texts_agree():
    rng = random.Random(2)
    for _ in range(6000):
        text = _mutate(rng, canonical(_value(rng)))
        _agrees(text)
        _certified(text)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("[](){},:'\" -+0123456789TrueFalsNn\\\n\t_xjb.#") + ["\u00a0", "é"]),
               max_size=24))
def test_random_texts_agree(text):
    _agrees(text)
    _certified(text)
