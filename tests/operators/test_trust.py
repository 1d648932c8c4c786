"""Operators that leak nothing: no example that is an answer, letters drawn uniformly,
no Bool answers, sort tasks that need the order, select with the stated distractors, and
no answer that a constant guess hits often."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

from racesl.compile import compile_tasks
from racesl.operators.build import MIN_SELECTIONS, example_labels
from racesl.records import to_record
from racesl.rewards import score
from racesl.search.config import CompileConfig, ConfigError, Filters, parse_operators
from tests.support.tasks import letters, oracle_reaches, stdlib, stdlib_records


def _records(n: int, ops: str, seed: int = 0, **kw) -> list[dict]:
    lib = stdlib()
    tasks, _ = compile_tasks(lib, CompileConfig(n=n, seed=seed, operators=parse_operators(ops), **kw))
    return [to_record(t, k, seed, lib.hash) for k, t in enumerate(tasks)]


@pytest.fixture(scope="module")
def sorts():
    return _records(700, "sort=2-4", seed=3)  # (one-shape chains of 3 are the rarest: 100 or more)


@pytest.fixture(scope="module")
def mixed():
    return stdlib_records(600, 0)


def test_example_labels_are_never_candidates():
    for count in range(1, 27):
        shown = example_labels(count)
        words = shown.split(", ")
        assert len(words) >= 2
        assert not set(words) & set(letters(count)), count


@pytest.mark.parametrize("op", ["sort", "select"])
def test_copying_the_example_scores_zero(mixed, op):
    recs = [r for r in mixed if r["operator"] == op]
    assert recs
    for r in recs:
        example = r["prompt"].rsplit("<answer>", 1)[1].split("</answer>", 1)[0]
        assert score(r, f"<answer>{example}</answer>") == 0.0, r["id"]


def test_sort_accepts_few_orders(sorts):
    """Every order of every size <= 4 sort task, re-executed independently: at most one
    order in four (and never fewer than the reference's one) reaches the target."""
    lib = stdlib()
    for r in sorts:
        n = r["size"]
        ok = sum(oracle_reaches(lib, r, list(p)) for p in itertools.permutations(letters(n)))
        assert 1 <= ok <= max(1, 0.25 * math.factorial(n)), (r["id"], ok)


def test_sort_letters_are_uniform(sorts):
    """The answers of one size spread over all orders of the letters (a chi-square test that
    fails with probability below 1e-4 for uniform letters; the old swap rule made the chain's
    own order impossible)."""
    critical = {2: 15.1, 3: 25.7, 4: 50.2}  # chi-square quantile 1 - 1e-4 with n! - 1 degrees of freedom
    for n in (2, 3, 4):
        answers = Counter(r["answer"] for r in sorts if r["size"] == n)
        total = sum(answers.values())
        assert total >= 100, n
        cells = [", ".join(p) for p in itertools.permutations(letters(n))]
        expected = total / len(cells)
        chi2 = sum((answers[c] - expected) ** 2 / expected for c in cells)
        assert chi2 < critical[n], (n, answers)
        assert answers[", ".join(letters(n))] > 0  # the chain's own order is possible


def test_no_bool_answers(mixed):
    for r in mixed:
        values = r["trace"][1:] if r["operator"] == "branch" else r["trace"]  # a branch's condition is exempt
        assert not {"True", "False"} & set(values), r["id"]
        assert r["answer"] not in ("True", "False")


def test_bool_filter_can_be_turned_off():
    # (item_share too: two outputs are too few for a parallel item, racesl.operators.outputs)
    recs = _records(300, "parallel=3-3", seed=1, filters=Filters(bool_values=False, item_share=1.0))
    assert any({"True", "False"} & set(r["trace"]) for r in recs)
    guarded = _records(300, "parallel=3-3", seed=1, filters=Filters(bool_values=False))
    assert not any({"True", "False"} & set(r["trace"]) for r in guarded)


def test_constant_answers_are_capped():
    recs = _records(600, "loop=2-4,branch=2-3", seed=2)
    cells: dict = {}
    for r in recs:
        cells.setdefault((r["operator"], r["size"]), Counter())[r["answer"]] += 1
    for cell, answers in cells.items():
        n = sum(answers.values())
        assert answers.most_common(1)[0][1] <= max(2, 0.03 * n), (cell, answers.most_common(3))


def test_answer_share_drops_are_counted():
    lib = stdlib()
    # (item_share=1: the guessable gate, which now profiles loops as they run, would otherwise
    # leave this filter little to drop)
    cfg = CompileConfig(n=400, seed=2, operators=parse_operators("loop=4-4"),
                        filters=Filters(answer_share=0.0, item_share=1.0))
    tasks, summary = compile_tasks(lib, cfg)
    assert summary.rejections["answer_share"] > 0
    assert max(Counter(t.answer for t in tasks).values()) <= 2


def test_select_distractors_follow_the_range():
    recs = _records(200, "select=3-3", seed=4, distractors="4")
    assert recs
    assert all(len(r["extra"]["candidates"]) == 3 + 4 for r in recs)
    recs = _records(200, "select=2-2", seed=4, distractors=(2, 3))
    # short paths get more company: at least MIN_SELECTIONS ordered choices of their length
    assert all(math.perm(len(r["extra"]["candidates"]), 2) >= MIN_SELECTIONS for r in recs)


@pytest.mark.parametrize("value", [0, "5-3", "x", (1, 2, 3), [0, 2], 25, True])
def test_bad_distractor_ranges_are_refused(value):
    with pytest.raises(ConfigError):
        CompileConfig(distractors=value)


@pytest.mark.parametrize("field", ["sort_orders", "answer_share"])
@pytest.mark.parametrize("value", [-0.1, 1.5, "0.2", True])
def test_bad_shares_are_refused(field, value):
    with pytest.raises(ConfigError):
        Filters(**{field: value})


def test_distractors_from_races_toml(tmp_path):
    from racesl.search.config import from_toml

    assert CompileConfig(**from_toml({"compile": {"distractors": "2-4"}}, tmp_path)).distractors == (2, 4)
    assert CompileConfig(**from_toml({"compile": {"distractors": [3, 3]}}, tmp_path)).distractors == (3, 3)
