"""Rewards: one entry point, `score(record, completion) -> float` in [0, 1], and
`verdict(record, completion) -> Verdict`, the same score with a status saying why.

Neither raises: an unreadable completion scores 0 (its verdict says why); a record whose
library cannot be found scores 0 with status `library_missing`, said once per library on
the `racesl.rewards` logger. Libraries are registered with `register`, `load_sidecar`,
`load_beside(DATA)` (the sidecar beside a data file) or RACESL_LIBRARY_PATH.
"""

from racesl.rewards.libraries import load_beside, load_sidecar, register, write_sidecar
from racesl.rewards.score import STATUSES, Verdict, score, verdict

__all__ = ["score", "verdict", "Verdict", "STATUSES", "register", "load_sidecar", "load_beside",
           "write_sidecar"]
