"""The contract and novelty gates on their own: perturbed answers are wrong answers, the
reference scores 1 on tasks through the candidate, a reward that accepts anything is caught,
and novelty prints the thresholds it read off the pool."""

from pathlib import Path

import pytest

from racesl.admit import contract, front, novelty
from racesl.admit.gates import Candidate

CANDIDATES = Path(__file__).parent / "candidates"


@pytest.fixture
def ctx(stdlib_ctx):
    """The stdlib admission context the admit tests share (conftest), warmed once a session."""
    return stdlib_ctx


def checked(ctx, name):
    path = CANDIDATES / f"{name}.races"
    cand = Candidate(str(path), path.read_text(encoding="utf-8"))
    for gate in (front.parse, front.check, front.composes):
        assert gate(cand, ctx) is None
    return cand


@pytest.mark.parametrize("answer, op", [("D, B", "select"), ("C, A, B", "sort"), ("[3, 14]", "sequential"),
                                        ("'abc'", "loop"), ("(2, 'x')", "parallel")])
def test_perturbations_differ_from_the_answer(answer, op):
    wrong = contract.perturbations(answer, op)
    assert wrong and answer not in wrong
    if op == "select":  # a choice: reordering it would be the same answer
        assert all(set(w.split(", ")) != set(answer.split(", ")) for w in wrong)


def test_reference_answers_score_one_on_tasks_through_the_candidate(ctx):
    cand = checked(ctx, "valid_alternating")
    assert contract.contract(cand, ctx) is None
    s = cand.scores["contract"]
    assert s["tasks"] >= 6 and s["reference_ok"] == s["tasks"]
    assert len(s["by_operator"]) >= 3  # the operators are taken in turn
    assert s["perturbed_rejected"] == s["perturbed"] > 0
    assert all("alternating.alternating_sum" in r["chain"] for r in cand.material["instances"])
    again = checked(ctx, "valid_alternating")
    contract.contract(again, ctx)
    assert again.scores["contract"] == s  # seeded: the same tasks


def test_a_reward_that_accepts_wrong_answers_is_caught(ctx, monkeypatch):
    cand = checked(ctx, "valid_alternating")
    monkeypatch.setattr("racesl.rewards.score", lambda record, completion: 1.0)
    reason = contract.contract(cand, ctx)
    assert reason and "accepts wrong answers" in reason


def test_a_reference_the_reward_refuses_is_caught(ctx, monkeypatch):
    cand = checked(ctx, "valid_alternating")
    monkeypatch.setattr("racesl.rewards.score", lambda record, completion: 0.5)
    reason = contract.contract(cand, ctx)
    assert reason and "scores 0.5, not 1" in reason


def test_novelty_prints_its_thresholds_and_nearest_neighbours(ctx):
    cand = checked(ctx, "valid_weighted_digits")
    assert novelty.novelty(cand, ctx) is None
    s = cand.scores["novelty"]
    t = s["thresholds"]
    assert t["behaviour"] >= novelty.BEHAVIOUR_FLOOR and t["text"] >= novelty.TEXT_FLOOR
    row = s["envs"]["weighted_digit_sum"]
    assert row["behaviour"]["agreement"] < t["behaviour"] and row["text"]["jaccard"] < t["text"]
    assert set(cand.fingerprints) == {"weighted_digits.weighted_digit_sum", "text"}


def test_a_renamed_copy_is_close_in_text_and_identical_in_behaviour(ctx):
    cand = checked(ctx, "renamed_copy")
    reason = novelty.novelty(cand, ctx)
    row = cand.scores["novelty"]["envs"]["figure_total"]
    assert "numbers.digit_sum" in reason
    assert row["behaviour"]["nearest"] == "numbers.digit_sum" and row["behaviour"]["agreement"] == 1.0
    assert row["text"]["nearest"] == "numbers.digit_sum" and row["text"]["jaccard"] >= 0.7
