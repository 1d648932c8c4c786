"""Execution runtime: fuel, size guards, the wall-clock watchdog, the restricted builtins,
in-process execution (`Program`) and sandboxed worker processes (`WorkerPool`).

See docs/fuel.md for how bodies are rewritten, racesl.runtime.limits for the
bounds, and docs/language.md §4.6 for the rules users see.
"""

from racesl.runtime.builtins import SAFE_BUILTINS, SafeRng
from racesl.runtime.execute import Outcome, Program, classify
from racesl.runtime.limits import (
    DEFAULT_FUEL, DEFAULT_WALL, MAX_DEPTH, MAX_INT_BITS, MAX_LEN, MAX_RENDER, STATUSES, Cutoff,
    FuelOut, RecursionCut, SizeExceeded, Timeout,
)
from racesl.runtime.watchdog import WATCHDOG

__all__ = [
    "Program", "Outcome", "classify", "SafeRng", "SAFE_BUILTINS", "WATCHDOG", "WorkerPool",
    "DEFAULT_FUEL", "DEFAULT_WALL", "MAX_DEPTH", "MAX_INT_BITS", "MAX_LEN", "MAX_RENDER",
    "STATUSES", "Cutoff", "FuelOut", "RecursionCut", "SizeExceeded", "Timeout",
]


def __getattr__(name):  # WorkerPool pulls in multiprocessing: import it on first use
    if name == "WorkerPool":
        from racesl.runtime.sandbox import WorkerPool
        return WorkerPool
    raise AttributeError(name)
