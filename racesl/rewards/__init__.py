"""Rewards: one entry point, `score(record, completion) -> float` in [0, 1].

It never raises: an unreadable completion scores 0.
"""

from racesl.rewards.libraries import load_sidecar, register, write_sidecar
from racesl.rewards.score import score

__all__ = ["score", "register", "load_sidecar", "write_sidecar"]
