"""Bounds of one execution and the exceptions that cut it off.

Every cut-off exception derives from `Cutoff`, a `BaseException`: a body has no `try`, and
even the runtime's own `except Exception` clauses can never swallow one by accident.

Bounds (see docs/language.md §4.6):

- `DEFAULT_FUEL` steps a call (400, the paper's "atomic steps"); no budget above `MAX_FUEL`
  (2**50, days of steps): it bounds how often one execution can run any statement, which
  lets the instrumentation leave a counter (`d += 1`) unguarded in `d * d`;
- `FUEL_CAP`: the most steps `@fuel(N)` may give one function (1,000,000; racesl.check.fuel),
  and `GENERATOR_FUEL_CAP` (20,000,000) for a helper that an environment of its module names in
  `@generate` or `@verify`: a draw or a check runs once a task, where a body runs once per
  candidate the search tries (a generator port searches, as RG's knight_swap does);
- `DEFAULT_WALL` seconds of wall clock a call (2.0); a call given more steps than
  DEFAULT_FUEL by `@fuel` gets a wall limit grown in proportion, up to `MAX_WALL` (`wall_for`):
  30 s, whatever the budget, so the larger cap of generators and checkers buys steps, not
  time (20,000,000 steps of a plain `while` loop took about 10 s on a busy 2-core machine;
  a step that runs a long C call is what the wall limit is for);
- `MAX_LEN`: no str / list / tuple / set / dict longer than 100,000 is built by a guarded
  operation, and no builtin is run over a sequence longer than that;
- `MAX_INT_BITS`: no int wider than 8,192 bits is built by `*`, `**`, `<<`, `pow` or `int()`,
  nor turned into text (`+`/`-` grow by one bit a step and are left alone);
- `MAX_DEPTH`: helper calls nest at most 200 deep;
- `MAX_RENDER`: a returned value, or a value turned into text by `str`, an f-string or `%`,
  may not render to more than 1,000,000 characters (a shared-structure "DAG bomb" such as
  `a = [a, a]` repeated 60 times is caught here before anybody calls `repr` on it);
- `MAX_WALK`: a value compared, hashed or scanned in one C call (`==`, `in`, `d[k]`, `set`,
  `sorted`, `list.count`, a contract check) may not pass 1,000,000 nodes unfolded
  (racesl.runtime.measure: shared structure counts once per occurrence).
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_FUEL", "FUEL_CAP", "GENERATOR_FUEL_CAP", "MAX_FUEL", "DEFAULT_WALL", "MAX_WALL", "MAX_LEN", "MAX_INT_BITS", "MAX_DEPTH",
    "MAX_RENDER", "MAX_WALK", "wall_for", "call_limits",
    "STATUSES", "Cutoff", "FuelOut", "Timeout", "SizeExceeded", "RecursionCut",
]

DEFAULT_FUEL = 400
FUEL_CAP = 1_000_000
GENERATOR_FUEL_CAP = 20_000_000
MAX_FUEL = 1 << 50
DEFAULT_WALL = 2.0
MAX_WALL = 30.0
MAX_LEN = 100_000
MAX_INT_BITS = 8_192
MAX_DEPTH = 200
MAX_RENDER = 1_000_000
MAX_WALK = 1_000_000

STATUSES = ("ok", "fuel", "timeout", "size", "assert", "error", "recursion")


def wall_for(fuel: int, wall: float | None = DEFAULT_WALL) -> float | None:
    """The wall limit of a call given `fuel` steps where `wall` is the limit at DEFAULT_FUEL:
    `wall` scaled by fuel / DEFAULT_FUEL, never below `wall`, never above MAX_WALL (unless
    `wall` itself is; None: no wall limit)."""
    if wall is None or fuel <= DEFAULT_FUEL:
        return wall
    return max(wall, min(MAX_WALL, wall * fuel / DEFAULT_FUEL))


def call_limits(budgets, name: str, fuel: int, wall: float | None) -> tuple[int, float | None]:
    """The budget and wall limit of a call of function `name` whose caller gives `fuel` and
    `wall`, where `budgets` maps functions to their `@fuel` budgets: the function's budget
    where that is larger, with `wall_for`'s wall; else the caller's own. The one rule that
    `Program` and the worker pool's parent both apply."""
    n = budgets.get(name)
    if n is None or n <= fuel:
        return fuel, wall
    return n, wall_for(n, wall)


class Cutoff(BaseException):
    """An execution was stopped by the runtime. `status` is the Outcome status it maps to."""

    status = "error"


class FuelOut(Cutoff):
    """The step budget ran out."""

    status = "fuel"


class Timeout(Cutoff):
    """The wall-clock limit passed (raised by the watchdog's signal handler)."""

    status = "timeout"


class SizeExceeded(Cutoff):
    """A value would have grown past a size bound; raised before it is built."""

    status = "size"


class RecursionCut(Cutoff):
    """Helper calls nested deeper than MAX_DEPTH."""

    status = "recursion"
