"""The generator reward: monotone in the gate reached, reading the gates' scores."""

import pytest

from racesl.admit.gates import Verdict
from racesl.evolve.config import REWARD_GATES, RewardSettings
from racesl.evolve.reward import calibration, generator_reward, novelty


def _nov(*pairs):
    return {"novelty": {"envs": {f"e{k}": {"behaviour": {"nearest": "x.y", "agreement": a, "shared": 10},
                                           "text": {"nearest": "x.z", "jaccard": j}}
                                 for k, (a, j) in enumerate(pairs)}, "thresholds": {}}}


def test_monotone_in_the_gate_reached():
    rewards = [generator_reward(g, {}) for g in REWARD_GATES]
    assert rewards == sorted(rewards) and len(set(rewards)) >= len(REWARD_GATES) - 1
    worst_admitted = generator_reward(None, {**_nov((1.0, 1.0)), "calibration": {"score": 0.0}})
    assert worst_admitted >= 0 > rewards[-1]


def test_admitted_reads_calibration_and_novelty():
    w = RewardSettings()
    scores = {**_nov((0.2, 0.1), (0.0, 0.6)), "calibration": {"score": 0.8825, "a_hat": 0.25}}
    assert novelty(scores) == pytest.approx(((1 - 0.2) + (1 - 0.6)) / 2)
    assert calibration(scores) == 0.8825
    expect = round(w.calibration_weight * 0.8825 + w.novelty_weight * 0.6, 4)
    assert generator_reward(None, scores, w) == expect
    v = Verdict("f", True, None, "", scores)
    assert generator_reward(v, v.scores, w) == expect  # a Verdict works as well as its gate


def test_missing_scores_are_defensive():
    w = RewardSettings(uncalibrated=0.4, novelty_weight=0.5)
    assert generator_reward(None, {}, w) == 0.4  # no calibration ran, no novelty numbers
    assert novelty({"novelty": {"envs": {"e": {"behaviour": {"agreement": "?"}}}}}) is None
    assert calibration({"calibration": {"instances": 8, "needed": 8}}) is None
    assert novelty({"novelty": {"envs": {"e": {"text": {"jaccard": 0.25}}}}}) == 0.75
    assert generator_reward(None, _nov((float("nan"), 0.5)), w) == round(0.4 + 0.5 * 0.5, 4)


def test_weights_and_penalties_apply():
    w = RewardSettings(penalty={"novelty": -0.3})
    assert generator_reward("novelty", {}, w) == -0.3 and generator_reward("parse", {}, w) == -1.0
    with pytest.raises(ValueError):
        generator_reward("nonsense", {}, w)


def test_a_falling_table_is_refused():
    from racesl.search.config import ConfigError

    with pytest.raises(ConfigError, match="review = -0.15 is below novelty = -0.05"):
        RewardSettings(penalty={"novelty": -0.05})
