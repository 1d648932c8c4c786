"""`racesl.rewards.verdict`: the score of `score`, with a status saying why.

Each status for each kind of bad completion and each operator; a missing library; malformed
records. The differential test of `verdict(...).score == score(...)` over the fuzz corpora
is in test_fuzz.py and test_walk.py (their checks compare the two on every input)."""

from __future__ import annotations

import itertools

import attrs
import pytest

from racesl.rewards import STATUSES, Verdict, score, verdict
from racesl.rewards.parse import MAX_ANSWER
from tests.support.tasks import letters, one_per_operator, oracle_reaches, stdlib, stdlib_records, wrap

SEQ = {"id": "s", "operator": "sequential", "size": 4, "chain": ["m.a", "m.b", "m.c", "m.d"],
       "settings": [{}, {}, {}, {}], "input": "4", "trace": ["5", "'ab'", "[1, 2]", "(3, 'c')"],
       "answer": "[5, 'ab', [1, 2], (3, 'c')]", "library": "sha256:none", "extra": {}}
PAR = dict(SEQ, id="p", operator="parallel", extra={"inputs": ["1", "2", "3", "4"]})
BOGUS = "sha256:" + "f" * 64


def value_record(op: str, answer: str) -> dict:
    return {"id": "v", "operator": op, "size": 2, "trace": ["0", answer], "answer": answer, "extra": {},
            "input": "0", "library": "sha256:none"}


def V(record, text):
    """The verdict of an answer text, checked against score on the way."""
    v = verdict(record, wrap(text) if isinstance(text, str) else text)
    assert isinstance(v, Verdict) and v.status in STATUSES
    assert v.score == score(record, wrap(text) if isinstance(text, str) else text), (v, text)
    assert v.status == "ok" or v.score == 0.0
    return v


@pytest.fixture(scope="module")
def recs():
    stdlib()
    out = one_per_operator(stdlib_records(600, 0))
    out["seq"], out["par"] = SEQ, PAR
    out["loop_int"], out["branch_int"] = value_record("loop", "42"), value_record("branch", "42")
    out["loop_str"], out["branch_list"] = value_record("loop", "'abc'"), value_record("branch", "[1, 2]")
    return out


@pytest.fixture(scope="module")
def verify_record():
    lib = stdlib()
    return {"id": "v", "operator": "sequential", "size": 2, "chain": ["numbers.add_k", "numbers.factor_pair"],
            "settings": [{"k": "5"}, {}], "input": "95", "trace": ["100", "(2, 50)"],
            "answer": "[100, (2, 50)]", "library": lib.hash, "extra": {"verify": True}}


ALL = ("sequential", "parallel", "sort", "select", "branch", "loop", "seq", "par", "loop_int", "branch_int",
       "loop_str", "branch_list")


def test_verdict_is_a_frozen_attrs_class():
    v = Verdict(0.5, "ok", "2 of 4 steps right")
    assert attrs.has(Verdict) and [f.name for f in attrs.fields(Verdict)] == ["score", "status", "detail"]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        v.score = 1.0
    assert STATUSES == ("ok", "no_answer", "unparsable", "wrong_type", "wrong_length", "library_missing", "error")


# ------------------------------------------------------------ ok


@pytest.mark.parametrize("key", ALL)
def test_the_reference_is_right(recs, key):
    r = recs[key]
    assert V(r, r["answer"]) == Verdict(1.0, "ok", "right")
    c = "thinking... <answer>0</answer> more <answer>" + r["answer"] + "</answer> done"
    assert verdict(r, c) == Verdict(1.0, "ok", "right") and score(r, c) == 1.0  # the last block counts


def test_partial_and_wrong_list_answers_are_ok():
    assert V(SEQ, "[5, 'ab', [9], (3, 'c')]") == Verdict(0.5, "ok", "2 of 4 steps right")
    assert V(SEQ, "[5, 'ab', [1, 2], (3, 'c'), 7]") == Verdict(0.0, "wrong_length", "5 items where 4 are asked for")
    assert V(SEQ, "[6, 'ab', [1, 2], (3, 'c')]") == Verdict(0.0, "ok", "step 1 is wrong")
    assert V(SEQ, "[6, ab, [1,2]]").status == "ok"  # read tolerantly (split: ab is due a Str), wrong
    assert V(SEQ, "[]") == Verdict(0.0, "ok", "the answer has no items")
    assert V(SEQ, "7") == Verdict(0.0, "ok", "one value, read as the first item: step 1 is wrong")
    assert V(SEQ, "5").score == 0.25 and V(SEQ, "5").status == "ok"
    assert V(SEQ, "1. 5\n2. ab\n3. [1, 2]\n4. (3, 'x')") == Verdict(0.75, "ok", "3 of 4 steps right")
    assert V(PAR, "[0, 'ab', [9], (3, 'c')]") == Verdict(0.5, "ok", "2 of 4 items right")
    assert V(PAR, "[0, 'x', [9], (3, 'x')]") == Verdict(0.0, "ok", "no item is right")


def test_wrong_values_are_ok(recs):
    assert V(recs["loop_int"], "41") == Verdict(0.0, "ok", "wrong value")
    assert V(recs["branch_list"], "[2, 1]") == Verdict(0.0, "ok", "wrong value")
    # a Str may be written without quotes: any text is read as one
    assert V(recs["loop_str"], "abd").status == "ok" and V(recs["loop_str"], "abc").score == 1.0
    assert V(recs["loop_str"], "5") == Verdict(0.0, "ok", "wrong value")
    assert V(recs["loop_str"], "not [ a literal").status == "ok"


@pytest.mark.parametrize("op", ["sort", "select"])
def test_wrong_orders_and_selections_are_ok(recs, op):
    """Re-executed and wrong: ok, score 0 (the oracle says which labels miss the target)."""
    lib = stdlib()
    r = recs[op]
    labels = r["answer"].split(", ")
    n = len(r["extra"]["candidates"])
    pool = itertools.permutations(labels) if op == "sort" else ([lab] for lab in letters(n))
    wrong = next(list(p) for p in pool if not oracle_reaches(lib, r, list(p)))
    v = V(r, ", ".join(wrong))
    assert (v.score, v.status) == (0.0, "ok") and v.detail.startswith("wrong")
    assert V(r, " ".join(labels).lower()) == Verdict(1.0, "ok", "right")


# ------------------------------------------------------------ no_answer


@pytest.mark.parametrize("key", ALL)
def test_no_answer(recs, key):
    r = recs[key]
    for c, says in [("no block at all", "no <answer>"), (r["answer"], "no <answer>"), ("", "no <answer>"),
                    ("<answer>" + r["answer"], "no <answer>"), (r["answer"] + "</answer>", "without an <answer>"),
                    ("<answer></answer>", "empty"), ("<answer> \n\t </answer>", "empty"),
                    (wrap("1" * (MAX_ANSWER + 1)), "over the limit"),
                    (wrap(" " * (MAX_ANSWER + 1) + r["answer"]), "over the limit")]:
        v = verdict(r, c)
        assert (v.score, v.status) == (0.0, "no_answer"), (c[:50], v)
        assert says in v.detail, (c[:50], v)
        assert score(r, c) == 0.0
    assert str(MAX_ANSWER + 1) in verdict(r, wrap("1" * (MAX_ANSWER + 1))).detail


def test_an_empty_block_is_no_answer_even_for_the_empty_str():
    r = value_record("loop", "''")
    assert verdict(r, "<answer></answer>").status == "no_answer" and score(r, "<answer></answer>") == 0.0
    assert V(r, "''") == Verdict(1.0, "ok", "right")


# ------------------------------------------------------------ unparsable


@pytest.mark.parametrize("key", ["sequential", "parallel", "seq", "par"])
def test_unparsable_lists(recs, key):
    r = recs[key]
    n = len(r["trace"])
    for text in ["junk text", "[1, 2", "I think the answer is 5", "x = [1]", "{1, 2", "A, B"]:
        v = V(r, text)
        assert (v.score, v.status) == (0.0, "unparsable"), (text, v)
        assert v.detail.startswith(f"not a list of {n} items: "), v


@pytest.mark.parametrize("key", ["loop", "branch", "loop_int", "branch_int", "branch_list"])
def test_unparsable_values(recs, key):
    r = recs[key]
    for text in ["junk", "[1, 2", "5 apples", "1.5", "None", "{1, 2}", "__import__('os')"]:
        v = V(r, text)
        if r["answer"].startswith(("'", '"')):  # a Str answer reads any text, as a Str without quotes
            assert v == Verdict(0.0, "ok", "wrong (read as a Str written without quotes)"), (text, v)
            continue
        assert (v.score, v.status) == (0.0, "unparsable"), (text, v)
        assert v.detail.startswith("not a literal"), v


@pytest.mark.parametrize("op", ["sort", "select"])
def test_unparsable_labels(recs, op):
    for text in ["1, 2", "[0, 1]", "AB, CD", "->", "42"]:
        v = V(recs[op], text)
        assert (v.score, v.status) == (0.0, "unparsable"), (text, v)
        assert "label" in v.detail


# ------------------------------------------------------------ wrong_type


@pytest.mark.parametrize("key", ["seq", "par"])
def test_wrong_type_lists(recs, key):
    r = recs[key]  # the first item is an Int
    for text, got in [("{'a': 1}", "a Dict"), ("'abc'", "a Str"), ("True", "a Bool"), ("{}", "a Dict")]:
        assert V(r, text) == Verdict(0.0, "wrong_type", f"{got} where a list of 4 items is expected"), text


def test_wrong_type_values(recs):
    for key, text, want in [("loop_int", "'42'", "a Str where an Int is expected"),
                            ("loop_int", "[42]", "a List where an Int is expected"),
                            ("branch_int", "True", "a Bool where an Int is expected"),
                            ("branch_int", "{1: 42}", "a Dict where an Int is expected"),
                            ("branch_list", "(1, 2)", "a Tuple where a List is expected"),
                            ("branch_list", "1, 2", "a Tuple where a List is expected"),
                            ("branch_list", "'[1, 2]'", "a Str where a List is expected")]:
        assert V(recs[key], text) == Verdict(0.0, "wrong_type", want), (key, text)
    r = recs["loop"]  # an Int answer in the stdlib record
    assert V(r, "'" + r["answer"] + "'").status == "wrong_type"


@pytest.mark.parametrize("op", ["sort", "select"])
def test_wrong_type_labels(recs, op):
    r = recs[op]
    labels = r["answer"].split(", ")
    n = len(r["extra"]["candidates"])
    outside = letters(n + 1)[-1]
    v = V(r, ", ".join(labels[:-1] + [outside]))
    assert v == Verdict(0.0, "wrong_type", f"label {outside} is not a candidate (there are {n})")
    v = V(r, ", ".join(labels + [labels[0]]))
    assert v == Verdict(0.0, "wrong_type", f"label {labels[0]} is repeated")
    assert V(r, "Z" * 3).status == "wrong_type"
    if op == "sort":
        v = V(r, ", ".join(labels[:-1]))
        assert v == Verdict(0.0, "wrong_type", f"{n - 1} label{'s' if n > 2 else ''} for {n} candidates: "
                                               "a sort orders all of them")


# ------------------------------------------------------------ library_missing


@pytest.mark.parametrize("op", ["sort", "select"])
def test_library_missing_for_any_answer(recs, op):
    """A sort or select record with a bogus library hash: library_missing whatever the answer
    (the reference included, and answers that would be wrong_type or unparsable), and
    never a silent exact-match fallback."""
    r = dict(recs[op], library=BOGUS)
    labels = r["answer"].split(", ")
    for text in [r["answer"], " ".join(labels), " ".join(reversed(labels)), "Z", "A, A", "1, 2", "junk"]:
        v = V(r, text)
        assert (v.score, v.status) == (0.0, "library_missing"), (text, v)
        assert BOGUS in v.detail and "RACESL_LIBRARY_PATH" in v.detail
    assert verdict(r, "no answer").status == "no_answer"  # the completion's own failure comes first


def test_library_missing_for_a_verify_step(verify_record):
    """A sequential record ending in a @verify environment: the checker is needed when the
    last step is not the recorded value; without the library that is library_missing."""
    r = dict(verify_record, library=BOGUS)
    v = V(r, "[100, (4, 25)]")
    assert (v.score, v.status) == (0.0, "library_missing") and BOGUS in v.detail and "factor_pair" in v.detail
    assert V(r, "[100, (5, 21)]").status == "library_missing"
    assert V(r, "[100, (2, 50)]") == Verdict(1.0, "ok", "right")
    assert V(r, "[100, (2,50)]") == Verdict(1.0, "ok", "right")  # the recorded value, written another way
    assert V(r, "[101, (4, 25)]") == Verdict(0.0, "ok", "step 1 is wrong")  # the checker is not reached
    assert V(r, "[100]") == Verdict(0.5, "ok", "1 of 2 steps right")
    # with the library, the checker decides
    assert V(verify_record, "[100, (4, 25)]") == Verdict(1.0, "ok", "right")
    assert V(verify_record, "[100, (5, 21)]") == Verdict(0.5, "ok", "1 of 2 steps right")


# ------------------------------------------------------------ error


def test_errors_name_the_exception(recs):
    for rec, want in [(None, "TypeError"), ({}, "KeyError"), ("record", "TypeError"), ([], "TypeError"),
                      ({"operator": "sequential"}, "KeyError"),
                      ({"operator": "sequential", "answer": "x", "trace": []}, "malformed record"),
                      ({"operator": "loop", "answer": None}, "TypeError"),
                      ({"operator": "sort", "answer": "A"}, "KeyError")]:
        v = V(rec, "1")
        assert (v.score, v.status) == (0.0, "error") and v.detail.startswith(want + ":"), (rec, v)
    v = V({"operator": "select", "answer": "B", "library": recs["select"]["library"]}, "A")  # no extra
    assert (v.score, v.status, v.detail) == (0.0, "error", "KeyError: 'extra'")
    v = V({"operator": "nosuch", "answer": "1"}, "1")
    assert v == Verdict(0.0, "error", "malformed record: unknown operator 'nosuch'")
    for c in [None, 5, b"<answer>1</answer>", ["<answer>1</answer>"]]:
        v = V(SEQ, c)
        assert (v.score, v.status) == (0.0, "error") and v.detail.startswith("TypeError: the completion is"), c


@pytest.mark.parametrize("op", ["sort", "select"])
def test_records_that_contradict_their_library(recs, op):
    """A candidate the library does not have, or a setting outside its type: the record was
    edited (or made by another library): error, score 0, and no body runs."""
    r = recs[op]
    labels = r["answer"].split(", ")
    cands = r["extra"]["candidates"]
    other = ", ".join(reversed(labels)) if op == "sort" else next(x for x in letters(len(cands)) if x != r["answer"])
    gone = dict(r, extra=dict(r["extra"], candidates=[dict(c, env="nosuch.env") for c in cands]))
    v = V(gone, other)
    assert (v.score, v.status) == (0.0, "error") and "nosuch.env" in v.detail and "malformed record" in v.detail
    k = next((i for i, c in enumerate(cands) if c["settings"]), None)
    if k is not None:
        bad = [dict(c, settings={s: "'junk'" for s in c["settings"]}) if i == k else c for i, c in enumerate(cands)]
        label = letters(len(cands))[k]
        v = V(dict(r, extra=dict(r["extra"], candidates=bad)), label if op == "select" else other)
        assert (v.score, v.status) in {(0.0, "error"), (0.0, "ok")}, v  # error when the candidate is reached


def test_details_are_one_short_line(recs):
    long_op = "x\n" * 500
    v = verdict({"operator": long_op, "answer": "1"}, wrap("2"))
    assert v.status == "error" and "\n" not in v.detail and len(v.detail) <= 300
