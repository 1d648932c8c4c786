"""Rewards: one entry point, `score(record, completion) -> float` in [0, 1], and
`verdict(record, completion) -> Verdict`, the same score with a status saying why.

Neither raises: an unreadable completion scores 0 (its verdict says why).
"""

from racesl.rewards.libraries import load_sidecar, register, write_sidecar
from racesl.rewards.score import STATUSES, Verdict, score, verdict

__all__ = ["score", "verdict", "Verdict", "STATUSES", "register", "load_sidecar", "write_sidecar"]
