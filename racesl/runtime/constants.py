"""Module constants at run time: evaluated once per loaded program, metered once.

The lowering turns `WORDS: List[Str] = EXPR` into a function `_races_const__<pyname>()`
returning EXPR (instrumented like any helper, so it is charged fuel), and bodies read the
global `<pyname>`. A `Program` runs those functions once, in definition order (the order of
the modules and, within one, of the source: a constant reads only the ones above it), with
CONST_FUEL steps and CONST_WALL seconds each, and stores each value under its name. Bodies
then read the value itself: a draw costs the same whatever a constant's size. The checker
guarantees that no body changes it (racesl.check.constants), so it is shared, not copied.
"""

from __future__ import annotations

from racesl.runtime.limits import FUEL_CAP

__all__ = ["CONST_INIT", "CONST_FUEL", "CONST_WALL", "ConstantFailed", "init_name", "target_of"]

CONST_INIT = "_races_const__"  # prefix of a constant's evaluating function; the rest is its global
CONST_FUEL = FUEL_CAP  # steps of one constant's evaluation (a 50,000-word split is ~50,000)
CONST_WALL = 10.0  # seconds of one constant's evaluation


def init_name(pyname: str) -> str:
    """The function that evaluates the constant stored in the global `pyname`."""
    return CONST_INIT + pyname


def target_of(function: str) -> str | None:
    """The global a constant's evaluating function fills, or None for any other function."""
    return function[len(CONST_INIT):] if function.startswith(CONST_INIT) else None


class ConstantFailed(ValueError):
    """A constant's evaluation did not give a value: `pyname` the constant's global, `status`
    the Outcome status ("fuel", "timeout", "size", "error", ...), `detail` the error."""

    def __init__(self, pyname: str, status: str, detail: str | None, steps: int = 0):
        self.pyname, self.status, self.detail, self.steps = pyname, status, detail, steps
        why = {"fuel": f"it ran out of steps (the budget is {CONST_FUEL:,})",
               "timeout": f"it ran past the wall limit ({CONST_WALL:g} s)",
               "size": "its value is larger than the size limits allow"}.get(status, detail or status)
        super().__init__(f"constant {pyname} could not be evaluated: {why}")
