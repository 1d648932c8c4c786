"""`racesl.rewards.score`: the reward of each operator, tolerant reading, re-execution."""

from __future__ import annotations

import pytest

from racesl.rewards import score
from tests.support.tasks import letters, one_per_operator, oracle_reaches, stdlib, stdlib_records, wrap

SEQ = {"id": "s", "operator": "sequential", "size": 4, "chain": ["m.a", "m.b", "m.c", "m.d"],
       "settings": [{}, {}, {}, {}], "input": "4", "trace": ["5", "'ab'", "[1, 2]", "(3, 'c')"],
       "answer": "[5, 'ab', [1, 2], (3, 'c')]", "library": "sha256:none", "extra": {}}
PAR = dict(SEQ, id="p", operator="parallel", extra={"inputs": ["1", "2", "3", "4"]})


def S(text, rec=SEQ):
    return score(rec, wrap(text))


# ------------------------------------------------------------ sequential and parallel


@pytest.mark.parametrize("k", range(5))
def test_sequential_prefix_is_k_over_t(k):
    t = len(SEQ["trace"])
    right = SEQ["trace"][:k]
    assert S("[" + ", ".join(right) + "]") == k / t  # only the prefix
    if k < t:
        wrong = right + ["'zz'"] + SEQ["trace"][k + 1:]  # everything else right
        assert S("[" + ", ".join(wrong) + "]") == k / t


def test_sequential_tolerant_forms():
    for text in [
        "[5, 'ab', [1, 2], (3, 'c')]",
        "[5,'ab',[1,2],(3,'c')]",
        "  [ 5 ,  'ab' , [ 1 , 2 ] , ( 3 , 'c' ) ]  ",
        '[5, "ab", [1, 2], (3, "c")]',
        "[5, ab, [1, 2], (3, 'c')]",  # a Str item without quotes
        "(5, 'ab', [1, 2], (3, 'c'))",
        "1. 5\n2. ab\n3. [1, 2]\n4. (3, 'c')",
        "5\n'ab'\n[1,2]\n(3, 'c')",
        "[5, 'ab', [1, 2], (3, 'c'),]",
    ]:
        assert S(text) == 1.0, text
    assert score(SEQ, "blah <answer>[0]</answer> blah <answer>\n" + SEQ["answer"] + "\n</answer> end") == 1.0


def test_sequential_value_types_are_strict():
    assert S("[5, 'ab', (1, 2), (3, 'c')]") == 0.5  # a tuple is not a list
    assert S("['5', 'ab', [1, 2], (3, 'c')]") == 0.0  # a Str is not an Int
    assert S("[True, 'ab']") == 0.0
    assert S("5") == 0.25  # one bare value: the first item


def test_parallel_mean():
    t = PAR["trace"]
    assert S(PAR["answer"], PAR) == 1.0
    assert S("[5, 'ab', [1, 2], (3, 'x')]", PAR) == 0.75
    assert S("[0, 'ab', [1, 2], (3, 'c')]", PAR) == 0.75  # not a prefix: any item counts
    assert S("[0, 'ab', [9], (3, 'c')]", PAR) == 0.5
    assert S("[5]", PAR) == 0.25
    assert S("[]", PAR) == 0.0
    assert S("[" + ", ".join(reversed(t)) + "]", PAR) == 0.0
    assert S("[5, ab, [1,2], (3,'c')]", PAR) == 1.0


# ------------------------------------------------------------ branch and loop


@pytest.mark.parametrize("op", ["branch", "loop"])
@pytest.mark.parametrize("answer, good, bad", [
    ("'abc'", ["abc", " abc ", "'abc'", '"abc"', "\n'abc'\n"], ["ab", "'abcd'", "ABC", "['abc']"]),
    ("[1, 2]", ["[1,2]", " [ 1, 2 ] ", "[1, 2,]"], ["(1, 2)", "[2, 1]", "[1, 2, 3]", "'[1, 2]'"]),
    ("42", ["42", " 42", "+42", "\n42\n"], ["41", "'42'", "42.0", "[42]"]),
    ("True", ["True", " True "], ["1", "true", "'True'"]),
    ("'12'", ["12", "'12'", '"12"'], ["13", "'012'"]),
])
def test_value_answers(op, answer, good, bad):
    rec = {"operator": op, "answer": answer, "trace": ["0", answer], "extra": {}}
    for g in good:
        assert score(rec, wrap(g)) == 1.0, g
    for b in bad:
        assert score(rec, wrap(b)) == 0.0, b


# ------------------------------------------------------------ sort and select (stdlib, re-executed)


@pytest.fixture(scope="module")
def recs():
    stdlib()
    return one_per_operator(stdlib_records(600, 0))


@pytest.mark.parametrize("op", ["sort", "select"])
def test_label_formats(recs, op):
    r = recs[op]
    labels = r["answer"].split(", ")
    for text in [", ".join(labels), " ".join(labels), "".join(labels), str(labels), " -> ".join(labels),
                 ", ".join(labels).lower(), "\n".join(labels)]:
        assert score(r, wrap(text)) == 1.0, text


@pytest.mark.parametrize("op", ["sort", "select"])
def test_label_violations(recs, op):
    r = recs[op]
    labels = r["answer"].split(", ")
    n = len(r["extra"]["candidates"])
    outside = letters(n + 1)[-1]
    for text in [", ".join(labels + [labels[0]]),  # repeated
                 ", ".join(labels[:-1] + [outside]),  # out of range
                 ", ".join(labels + [outside]),
                 "Z" * 3, "", "1, 2", "[0, 1]"]:
        assert score(r, wrap(text)) == 0.0, text


def test_sort_needs_every_candidate(recs):
    r = recs["sort"]
    labels = r["answer"].split(", ")
    assert score(r, wrap(", ".join(labels[:-1]))) == 0.0


def test_select_any_selection_that_reaches_the_target(recs):
    """select scores by re-execution, so a selection other than the recorded one counts
    when it reaches the target; the oracle says which do."""
    lib = stdlib()
    for r in [x for x in stdlib_records(600, 0) if x["operator"] == "select"][:40]:
        n = len(r["extra"]["candidates"])
        for lab in letters(n):
            want = 1.0 if oracle_reaches(lib, r, [lab]) else 0.0
            assert score(r, wrap(lab)) == want, (r["id"], lab)


def test_sort_select_without_the_library(recs):
    """A record whose library cannot be found: nothing can be judged, so everything scores
    0, the recorded answer too (no silent exact-match fallback: it used to score 1, which
    hid a missing library from a run whose model answered as recorded), and nothing
    raises. `verdict` says library_missing (tests/rewards/test_verdict.py)."""
    for op in ("sort", "select"):
        r = dict(recs[op], library="sha256:" + "f" * 64)
        labels = r["answer"].split(", ")
        assert score(r, wrap(r["answer"])) == 0.0
        assert score(r, wrap(" ".join(labels))) == 0.0
        assert score(r, wrap(" ".join(reversed(labels)))) == 0.0


# ------------------------------------------------------------ @verify: any accepted answer


def test_verify_terminal_accepts_any_valid_answer():
    lib = stdlib()
    assert lib.envs["numbers.factor_pair"].terminal
    rec = {"id": "v", "operator": "sequential", "size": 2, "chain": ["numbers.add_k", "numbers.factor_pair"],
           "settings": [{"k": "5"}, {}], "input": "95", "trace": ["100", "(2, 50)"],
           "answer": "[100, (2, 50)]", "library": lib.hash, "extra": {"verify": True}}
    assert S("[100, (2, 50)]", rec) == 1.0
    assert S("[100, (4, 25)]", rec) == 1.0
    assert S("[100, (10, 10)]", rec) == 1.0
    assert S("[100, (5, 21)]", rec) == 0.5  # 105
    assert S("[100, (25, 4)]", rec) == 0.5  # a <= b
    assert S("[100, (1, 100)]", rec) == 0.5  # outside the declared output type
    assert S("[100, 'x']", rec) == 0.5
    assert S("[101, (4, 25)]", rec) == 0.0
    # without the library the checker cannot run: an answer that needs it scores 0 (status
    # library_missing; it used to score 0.5, judged against the recorded value alone); the
    # recorded value needs no checker; an answer wrong before the last step needs none either
    other = dict(rec, library="sha256:" + "e" * 64)
    assert S("[100, (4, 25)]", other) == 0.0
    assert S("[100, (2, 50)]", other) == 1.0
    assert S("[101, (4, 25)]", other) == 0.0
    assert S("[100]", other) == 0.5


def test_settings_of_the_wrong_type_never_reach_a_body(recs, monkeypatch):
    """Bodies run on values of their declared types only (entries drop guards on that
    ground): a record edited to carry a setting of another type scores 0 without running."""
    from racesl.library import Library

    lib = stdlib()
    ran = []
    real = Library.run
    monkeypatch.setattr(Library, "run", lambda self, env, x, settings=(), **kw: ran.append(env.qualname)
                        or real(self, env, x, settings, **kw))
    for op in ("sort", "select"):
        r = recs[op]
        cands = r["extra"]["candidates"]
        k = next((i for i, c in enumerate(cands) if c["settings"]), None)
        if k is None:
            continue
        bad = [dict(c, settings={s: "'junk'" for s in c["settings"]}) if i == k else c for i, c in enumerate(cands)]
        r = dict(r, extra=dict(r["extra"], candidates=bad))
        label = letters(len(cands))[k]
        ran.clear()
        assert score(r, wrap(label if op == "select" else ", ".join(reversed(r["answer"].split(", "))))) == 0.0
        assert bad[k]["env"] not in ran
        assert lib.envs[bad[k]["env"]].settings  # the test meant something
