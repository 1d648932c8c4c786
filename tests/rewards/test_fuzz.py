"""Reward fuzz: junk completions (and junk records) never raise and always score a float
in [0, 1], and `verdict` gives the same score for each (a differential test of the two
entry points). A hand-written list of hostile inputs plus hypothesis."""

from __future__ import annotations

import math
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racesl.rewards import STATUSES, Verdict, score, verdict
from tests.support.tasks import OPERATORS, letters, one_per_operator, stdlib, stdlib_records, wrap

PWNED = "/tmp/racesl-fuzz-pwned"


@pytest.fixture(scope="module")
def records():
    lib = stdlib()
    recs = stdlib_records(600, 0)
    by_op = one_per_operator(recs)
    assert set(by_op) == set(OPERATORS)
    out = list(by_op.values())
    out.append({"id": "v", "operator": "sequential", "size": 2, "chain": ["numbers.add_k", "numbers.factor_pair"],
                "settings": [{"k": "5"}, {}], "input": "95", "trace": ["100", "(2, 50)"],
                "answer": "[100, (2, 50)]", "library": lib.hash, "extra": {"verify": True}})
    # a second sort and select, so re-execution sees more than one chain
    out += [r for r in recs if r["operator"] in ("sort", "select") and r not in out][:2]
    return out


def check(record, completion):
    """score is a float in [0, 1]; verdict never raises and gives that very score, with a
    known status (any status but ok with score 0) and a one-line detail."""
    v = score(record, completion)
    assert type(v) is float, (type(v), completion if not isinstance(completion, str) else completion[:200])
    assert 0.0 <= v <= 1.0 and not math.isnan(v)
    d = verdict(record, completion)
    shown = completion[:200] if isinstance(completion, str) else completion
    assert isinstance(d, Verdict) and d.score == v, (d, v, shown)
    assert d.status in STATUSES and (d.status == "ok" or v == 0.0), (d, shown)
    assert isinstance(d.detail, str) and d.detail and "\n" not in d.detail and len(d.detail) <= 400, (d, shown)
    return v


def _hand_written(records) -> list:
    big = 10 * 1024 * 1024
    deep = "[" * 10_000 + "]" * 10_000
    junk = [
        None, 0, 1, 1.0, float("nan"), True, b"<answer>1</answer>", bytearray(b"x"), ["<answer>1</answer>"],
        [{"role": "assistant", "content": "<answer>1</answer>"}], {"answer": "1"}, object(), ..., 10**100,
        "", " ", "\n", "<answer>", "</answer>", "<answer></answer>", "<answer> </answer>", "</answer><answer>",
        "<answer><answer></answer>", "<answer></answer></answer>", "<answer><answer>1</answer></answer>",
        "<answer>1</answer><answer>", "<answer>1<answer>2</answer>", "<Answer>1</Answer>", "< answer>1</ answer>",
        "x" * big, "<answer>" + "1" * big + "</answer>", "x" * big + "<answer>5</answer>",
        "<answer>5</answer>" + "y" * big, "<answer>" * 100_000 + "</answer>" * 100_000,
        wrap(deep), wrap(deep[:19_998]), wrap("[" * 10_000), wrap("]" * 10_000), wrap("(" * 5000 + ")" * 5000),
        wrap("{" * 5000 + "}" * 5000), wrap("[" * 60 + "1" + "]" * 60), wrap("[" * 49 + "1" + "]" * 49),
        wrap("9" * 10_000), wrap("-" + "9" * 10_000), wrap("9" * 4300), wrap("9" * 4301), wrap("1e10000"),
        wrap("1" + "0" * 100), wrap("10**10**10"), wrap("2**99999"), wrap("'a' * 10**9"),
        wrap("__import__('os').system('touch " + PWNED + "')"), wrap("[__import__('os')]"),
        wrap("{'a': __import__('os')}"), wrap("open('/etc/passwd').read()"), wrap("exec('1')"),
        wrap("lambda: 1"), wrap("(x for x in ())"), wrap("[x for x in range(10**9)]"), wrap("{1, 2}"),
        wrap("None"), wrap("1.5"), wrap("1j"), wrap("b'x'"), wrap("...") , wrap("f'{1}'"), wrap("{**{}}"),
        wrap("{[1]: 2}"), wrap("[1, 2"), wrap("'unterminated"), wrap('"""x"""'), wrap("\\"), wrap("'\\x00'"),
        wrap("\x00"), wrap("\x00" * 1000), wrap("\r\n\t\x0b\x0c"), wrap("\u202e\u200b\ufeff"), wrap("\ud800"),
        wrap("😀" * 1000), wrap("日本語"), wrap("Ω, Ж"), wrap("ǅ"), wrap("ＡＢ"), wrap("Ａ, Ｂ"),
        wrap("A" * 100), wrap("A, A, A"), wrap("Z"), wrap("A, Z"), wrap(", ".join(letters(26))),
        wrap(" ".join(letters(26) * 3)), wrap("a b c d e f g"), wrap("AB, CD"), wrap("A, 1"), wrap("-A"),
        wrap("[1, 2, 3] [4]"), wrap("[[1], [2]]"), wrap("[, , ,]"), wrap("[,]"), wrap("(,)"), wrap("()"),
        wrap("[]"), wrap("{}"), wrap("''"), wrap('""'), wrap("'"), wrap('"'), wrap("''''"),
        wrap("True"), wrap("False"), wrap("-0"), wrap("+-1"), wrap("--1"), wrap("0x10"), wrap("0b1"), wrap("1_0"),
        wrap("\n".join(["1. 5"] * 1000)), wrap("\n" * 10_000), wrap("step 1: " * 100),
        wrap(", ".join(["'x'"] * 5000)), wrap("[" + ", ".join(["1"] * 5000) + "]"),
        wrap("[" + ", ".join(["'" + "a" * 50 + "'"] * 300) + "]"),
    ]
    for r in records:  # answers of the wrong type, built from each record's own answer
        a = r["answer"]
        junk += [wrap(repr(a)), wrap("[" + a + "]"), wrap(a + a), wrap(a[::-1]), wrap(a.upper()), wrap(a[:-1]),
                 wrap(a * 3), wrap("{" + a + ": 1}"), wrap(a.replace(",", "")), wrap(a + "\x00"),
                 a, "<answer>" + a, a + "</answer>", wrap(wrap(a))]
    return junk


def test_hand_written_junk(records):
    junk = _hand_written(records)
    assert len(junk) * len(records) >= 1000
    n = 0
    for c in junk:
        for r in records:
            v = check(r, c)
            n += 1
            if isinstance(c, str) and "<answer>" not in c:
                assert v == 0.0
    assert n >= 1000
    assert not os.path.exists(PWNED)


def test_nested_wrap_and_raw_answers_score_zero(records):
    for r in records:
        assert check(r, r["answer"]) == 0.0  # no block: nothing to read
        assert check(r, wrap(r["answer"])) == 1.0


BROKEN = [
    None, {}, [], "record", {"operator": "sort"}, {"operator": "nosuch", "answer": "1"},
    {"operator": "sequential", "answer": "[1]"}, {"operator": "sequential", "answer": "x", "trace": []},
    {"operator": "parallel", "answer": "x", "trace": []}, {"operator": "sequential", "answer": "x", "trace": None},
    {"operator": "sort", "answer": "A", "extra": {}}, {"operator": "sort", "answer": "A", "extra": None},
    {"operator": "select", "answer": "A", "input": "((", "extra": {"candidates": [{"env": "x.y"}], "target": "1"},
     "library": "sha256:x"},
    {"operator": "loop", "answer": None}, {"operator": "branch", "answer": 5},
    {"operator": "sequential", "answer": "[5]", "trace": [5], "extra": {"verify": True}, "chain": [], "library": None},
]


@pytest.mark.parametrize("rec", BROKEN)
def test_broken_records_never_raise(rec):
    for c in ["<answer>1</answer>", "<answer>A</answer>", "<answer>[1]</answer>", "<answer>x</answer>", None]:
        check(rec, c)


def test_broken_copies_of_real_records(records):
    for r in records:
        for key in list(r):
            check({k: v for k, v in r.items() if k != key}, "<answer>A, B</answer>")
            check({**r, key: None}, wrap(r["answer"]) + "x")
            check({**r, key: 12345}, "<answer>[1]</answer>")


# ------------------------------------------------------------ hypothesis

literals = st.recursive(
    st.one_of(st.integers(min_value=-10**30, max_value=10**30), st.booleans(), st.text(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=6), st.tuples(inner, inner),
                            st.dictionaries(st.one_of(st.integers(), st.text(max_size=5)), inner, max_size=4)),
    max_leaves=25)
label_answers = st.lists(st.sampled_from(letters(8) + ["a", "z", "Z", "1", ",", " ", "->", "[", "'"]),
                         max_size=12).map("".join)
answers = st.one_of(st.text(max_size=200), literals.map(repr), label_answers,
                    st.text(alphabet="[](){}'\",: \n\\<>/answer", max_size=300))
completions = st.one_of(
    answers.map(wrap),
    st.tuples(st.text(max_size=50), answers, st.text(max_size=50)).map(lambda t: t[0] + wrap(t[1]) + t[2]),
    st.text(max_size=300),
    st.lists(st.sampled_from(["<answer>", "</answer>", "A", "1", "[", "]", ", ", "'"]), max_size=30).map("".join),
    st.none(), st.integers(), st.floats(), st.binary(max_size=20), st.lists(st.text(max_size=5), max_size=3),
)

FUZZ = settings(max_examples=250, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow,
                                                                       HealthCheck.function_scoped_fixture])


@FUZZ
@given(c=completions)
def test_hypothesis_completions(records, c):
    for r in records:
        check(r, c)


@FUZZ
@given(v=literals)
def test_hypothesis_reprs_of_values(records, v):
    """Any well-formed literal is read without raising; only the right one scores 1 for
    value-answer operators."""
    for r in records:
        got = check(r, wrap(repr(v)))
        if r["operator"] in ("branch", "loop") and got == 1.0:
            from racesl.runtime.contract import parse_literal

            want = parse_literal(r["answer"])
            assert v == want or (type(want) is str and str(v) == want)


@FUZZ
@given(perm=st.permutations(letters(6)), k=st.integers(min_value=0, max_value=6))
def test_hypothesis_label_answers(records, perm, k):
    for r in records:
        if r["operator"] in ("sort", "select"):
            check(r, wrap(", ".join(perm[:k])))
            check(r, wrap("".join(perm[:k]).lower()))
