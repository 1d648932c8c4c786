"""The generator's reward for one candidate, from what the gates recorded.

    rejected at gate g:  penalty[g]            (-1.0 at extract/parse … -0.1 at calibration)
    admitted:            calibration_weight × calibration + novelty_weight × novelty

`calibration` is the judge's exp(-(â - 0.3)² / (2σ²)) from scores["calibration"]["score"]
(racesl.admit.judge), or `uncalibrated` when no model ran that gate; `novelty` is the mean,
over the module's environments, of 1 - the nearest pool similarity (the larger of the
behaviour agreement and the text shingle Jaccard that racesl.admit.novelty records). Both
lie in [0, 1], so every admitted candidate scores at least 0 and above every rejected one;
a penalty table that rises along the gates (config.py checks it) keeps the reward
monotone in how far a candidate got. Nothing is recomputed here: only the scores are read.
"""

from __future__ import annotations

import math

from racesl.evolve.config import DEFAULT_PENALTY, RewardSettings


def _unit(x) -> float | None:
    if type(x) in (int, float) and math.isfinite(x):
        return min(1.0, max(0.0, float(x)))
    return None


def calibration(scores: dict) -> float | None:
    cal = scores.get("calibration") if isinstance(scores, dict) else None
    return _unit(cal.get("score")) if isinstance(cal, dict) else None


def novelty(scores: dict) -> float | None:
    """Mean over environments of 1 - max(behaviour agreement, text Jaccard); None when the
    novelty gate recorded nothing readable."""
    nov = scores.get("novelty") if isinstance(scores, dict) else None
    envs = nov.get("envs") if isinstance(nov, dict) else None
    if not isinstance(envs, dict) or not envs:
        return None
    values = []
    for row in envs.values():
        if not isinstance(row, dict):
            continue
        sims = []
        for part, key in (("behaviour", "agreement"), ("text", "jaccard")):
            sub = row.get(part)
            v = _unit(sub.get(key)) if isinstance(sub, dict) else None
            if v is not None:
                sims.append(v)
        if sims:
            values.append(1.0 - max(sims))
    return sum(values) / len(values) if values else None


def generator_reward(verdict, scores: dict, weights: RewardSettings | None = None) -> float:
    """The reward of a candidate, rounded to 4 places. `verdict`: a racesl.admit.gates.Verdict,
    or the name of the gate that rejected it ("extract" included), None when admitted."""
    gate = verdict.gate if hasattr(verdict, "gate") else verdict
    w = weights or RewardSettings()
    if gate is not None:
        table = w.penalty or DEFAULT_PENALTY
        if gate not in table:
            raise ValueError(f"no penalty for gate {gate!r}")
        return round(float(table[gate]), 4)
    cal = calibration(scores)
    nov = novelty(scores)
    value = w.calibration_weight * (w.uncalibrated if cal is None else cal) + w.novelty_weight * (nov or 0.0)
    return round(value, 4)
