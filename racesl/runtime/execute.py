"""Running instrumented programs: `Program`, `Outcome`.

    prog = load_program(module, "strings.races", int_params=lowered.param_facts)  # racesl.lower.program
    out = prog.call("strings__caesar", ("abc", 3))          # Outcome(value='def', ...)

    run = prog.function("strings__caesar", fuel=400)          # the hot-loop form
    with WATCHDOG.session():                                  # one timer for the whole loop
        for args in inputs:
            try:
                value = run(*args)
                steps = run.fuel - run.meter[0]
            except Cutoff as e: ...                           # e.status
            except Exception as e: ...                        # classify(e)

A program's namespace holds only its functions (each also as `_races_entry__<name>`, of
which `function` returns copies), `SAFE_BUILTINS` as `__builtins__` and the `_races_*`
runtime helpers. A Program can be used from several threads: every `call` gets its own
fuel box, and a `function` copy uses its meter as its box, so each thread needs copies of
its own. The wall-clock limit applies on the main thread only (elsewhere fuel is the only
limit; see racesl.runtime.watchdog).

What in-process execution does not stop: one C call that is exponential in *shared*
structure — `a == b`, `hash(t)`, `sorted(...)` over values like `a = [a, a]` repeated 40
times, built in 40 cheap steps — runs to the end, and no signal can interrupt it. The size
guards bound every value's length, and results are render-checked (`check_result`), but
comparing or hashing such a value is one C loop of 2**40 steps. Code that is not trusted
must run in a `WorkerPool` (racesl.runtime.sandbox), whose parent kills the worker.
"""

from __future__ import annotations

import json
import sys
import threading
import types
from collections.abc import Mapping
from itertools import islice
from typing import Any, Callable

import attrs

from racesl.runtime.abi import ENTRY, LINEMAP_TAG
from racesl.runtime.builtins import RUNTIME, safe_builtins
from racesl.runtime.constants import CONST_FUEL, CONST_WALL, ConstantFailed, target_of
from racesl.runtime.guards import check_result
from racesl.runtime.limits import (
    DEFAULT_FUEL, DEFAULT_WALL, MAX_DEPTH, MAX_FUEL, Cutoff, FuelOut, call_limits,
)
from racesl.runtime.watchdog import WATCHDOG

__all__ = ["Program", "Outcome", "classify", "compile_code"]

# A helper level costs a few Python frames (the function, a comprehension, a lambda, a
# builtin wrapper): make sure MAX_DEPTH levels fit under CPython's own limit, so that the
# outcome of deep recursion does not depend on how deep the caller's stack already is.
_RECURSION_LIMIT = 8 * MAX_DEPTH + 2000
_INF = float("inf")


@attrs.frozen
class Outcome:
    """What one call produced. `value` is None unless status is "ok"; `steps` the fuel used
    (exact for "ok", the whole budget for "fuel", a lower bound otherwise); `error` the
    exception's type and message for every status but "ok"; `line` the `.races` line where
    the failure happened, when known (in a leaf function a comprehension evaluates in place,
    the line of its call: see racesl.lower.instrument)."""

    value: Any = None
    status: str = "ok"
    steps: int = 0
    error: str | None = None
    line: int | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def classify(exc: BaseException) -> str:
    """The Outcome status for an exception a body raised."""
    if isinstance(exc, Cutoff):
        return exc.status
    if isinstance(exc, RecursionError):
        return "recursion"
    if isinstance(exc, MemoryError):
        return "size"
    if isinstance(exc, AssertionError):
        return "assert"
    return "error"


def compile_code(tree_or_text, filename: str) -> types.CodeType:
    """compile(), allowing trees as deep as a long flat operator chain makes them (CPython
    validates an AST against 3x the recursion limit)."""
    old = sys.getrecursionlimit()
    if old < _COMPILE_RECURSION:
        sys.setrecursionlimit(_COMPILE_RECURSION)
    try:
        return compile(tree_or_text, filename, "exec", dont_inherit=True, optimize=0)
    finally:
        if old < _COMPILE_RECURSION:
            sys.setrecursionlimit(old)


_COMPILE_RECURSION = 10_000  # (C recursion in compile(): ~5,000-deep trees are fine)


def _describe(exc: BaseException) -> str:
    msg = str(exc)
    name = type(exc).__name__
    return f"{name}: {msg[:500]}" if msg else name


def _check_fuel(fuel: int) -> None:
    """A budget above MAX_FUEL is refused: the instrumentation relies on it (racesl.runtime.limits)."""
    if fuel > MAX_FUEL:
        raise ValueError(f"a step budget of {fuel} is above MAX_FUEL ({MAX_FUEL})")


class Program:
    """Compiled, instrumented functions: `Program(compile_code(tree, filename), filename)`
    for a tree racesl.lower.instrument made (`racesl.lower.program.load_program` does both),
    or `from_source`. `budgets`: {function: its `@fuel` budget} (racesl.lower.budgets); a
    call of such a function gets at least that many steps, and a wall limit grown with
    them (`limits`), whatever its caller asked."""

    def __init__(self, code: types.CodeType, filename: str, line_map: Mapping | None = None,
                 budgets: Mapping[str, int] | None = None):
        if sys.getrecursionlimit() < _RECURSION_LIMIT:
            sys.setrecursionlimit(_RECURSION_LIMIT)
        ns: dict[str, Any] = {"__builtins__": safe_builtins(), **RUNTIME}
        exec(code, ns)
        self.filename = filename
        self.namespace = ns
        fns = {k: v for k, v in ns.items()
               if isinstance(v, types.FunctionType) and v.__code__.co_filename == filename}
        self._entries = {k[len(ENTRY):]: v for k, v in fns.items() if k.startswith(ENTRY)}
        self._fns: dict[str, types.FunctionType] = {
            k: v for k, v in fns.items() if not k.startswith(ENTRY)}
        self._lines = dict(line_map.get("lines", ())) if line_map else None
        self._cols = ({tuple(c[:4]): c[4] for c in line_map.get("cols", ())}
                      if line_map else None)
        self.budgets: dict[str, int] = dict(budgets or {})
        self.constant_steps: dict[str, int] = {}  # constant's global -> steps its evaluation took
        self._init_constants()

    def _init_constants(self) -> None:
        """Evaluate the module constants once, in definition order (racesl.runtime.constants);
        ConstantFailed when one does not give a value (the library says where)."""
        for name in list(self._fns):  # definition order: the namespace keeps it
            target = target_of(name)
            if target is None:
                continue
            out = self.call(name, (), fuel=CONST_FUEL, wall=CONST_WALL)
            if not out.ok:
                raise ConstantFailed(target, out.status, out.error, out.steps)
            self.namespace[target] = out.value
            self.constant_steps[target] = out.steps

    @classmethod
    def from_source(cls, source: str, filename: str, budgets: Mapping[str, int] | None = None) -> "Program":
        """Compile instrumented text from `lower_to_source` (line numbers are mapped back
        through its trailing line-map comment)."""
        line_map = None
        tail = source.rstrip("\n").rsplit("\n", 1)[-1]
        if tail.startswith(LINEMAP_TAG):
            line_map = json.loads(tail[len(LINEMAP_TAG):])
        return cls(compile_code(source, filename), filename, line_map, budgets)

    @property
    def names(self) -> list[str]:
        """The program's function names, sorted."""
        return sorted(self._fns)

    def __contains__(self, name: str) -> bool:
        return name in self._fns

    # ------------------------------------------------------------ running

    def limits(self, name: str, fuel: int = DEFAULT_FUEL,
               wall: float | None = DEFAULT_WALL) -> tuple[int, float | None]:
        """The budget and wall limit a call of `name` runs with when its caller gives `fuel`
        and `wall`: the function's `@fuel` budget where that is larger, with the wall limit
        grown in proportion (racesl.runtime.limits.wall_for); else the caller's."""
        return call_limits(self.budgets, name, fuel, wall)

    def raw(self, name: str):
        """The instrumented function itself: `fn(box, 0, *args)` with `box = [fuel + 1,
        wall]`; steps used afterwards: `fuel - box[0]`. See `function` for the fast form."""
        return self._fns[name]

    def function(self, name: str, *, fuel: int = DEFAULT_FUEL,
                 wall: float | None = DEFAULT_WALL) -> Callable[..., Any]:
        """The hot-loop form of `call`: `run(*args) -> value`. `run.meter[0]` holds the fuel
        the last call that returned left: it used `run.fuel - run.meter[0]` steps (the
        entry's counter starts at its budget and is left in the meter, which saves a
        subtraction and a store a call).

        It is a copy of the function's *entry* variant (see racesl.lower.instrument) whose
        defaults hold `fuel`, `wall` and the meter: a call costs what a call of the plain
        body costs. Each `function()` returns a new copy with its own meter, which is also
        its fuel box while it runs: keep one per thread. Pass values of the declared
        parameter types, refinements included (`Library` callers check them): the entry
        leaves out guards those types make needless. It raises what the body raises: a
        `Cutoff` (FuelOut, Timeout, SizeExceeded, RecursionCut; `.status` is the Outcome
        status) or an ordinary exception (use `classify(exc)`); the meter then holds no
        step count. The wall limit applies on the main thread inside `WATCHDOG.session()`
        — open one around the loop; a call made on the main thread outside any session
        opens one for itself (~4 µs); `wall=None`: no wall limit at all (fuel only).
        Unlike `call`, the result is size-checked only when it is an int (at most
        MAX_INT_BITS): a container result is not walked (that costs µs a value); call
        `racesl.runtime.guards.check_result(value)` before rendering a value that untrusted
        code built, or run such code in a `WorkerPool`, whose workers check every result.
        A function whose `@fuel` budget is larger than `fuel` gets it (`limits`): `run.fuel`
        is the budget it runs with."""
        entry = self._entries[name]
        fuel, wall = self.limits(name, fuel, wall)
        _check_fuel(fuel)
        meter = [fuel]
        if fuel < 0:
            def run(*args):
                raise FuelOut
        else:
            run = types.FunctionType(entry.__code__, entry.__globals__, name, (wall, fuel, meter))
        run.meter, run.fuel = meter, fuel
        return run

    def call(self, name: str, args: tuple = (), *, fuel: int = DEFAULT_FUEL,
             wall: float | None = DEFAULT_WALL, rng=None) -> Outcome:
        """Run one function; never raises for anything the body does. `rng`, when given,
        is passed as the first argument (samplers: a `SafeRng`). The result is checked with
        `check_result` (status "size" when its text would pass MAX_RENDER characters).
        `wall=None`: no wall-clock limit (fuel only; no watchdog session is opened). The
        budget and wall limit are raised to the function's own where larger (`limits`)."""
        fuel, wall = self.limits(name, fuel, wall)
        _check_fuel(fuel)
        fn = self._fns.get(name)
        if fn is None:
            return Outcome(None, "error", 0, f"NameError: no function {name!r} in {self.filename}")
        if rng is not None:
            args = (rng, *args)
        box = [fuel + 1, _INF if wall is None else wall]
        session = None
        try:
            try:
                if (wall is not None and not WATCHDOG.depth
                        and threading.current_thread() is threading.main_thread()):
                    session = WATCHDOG.session()
                    session.__enter__()
                value = fn(box, 0, *args)
                check_result(value)
            finally:
                if session is not None:
                    session.__exit__(None, None, None)
        except (Exception, Cutoff) as exc:
            status = classify(exc)
            steps = fuel if isinstance(exc, FuelOut) else min(fuel, max(0, fuel - box[0]))
            return Outcome(None, status, steps, _describe(exc), self._failure_line(exc))
        return Outcome(value, "ok", fuel - box[0])

    # ------------------------------------------------------------ lines

    def _failure_line(self, exc: BaseException) -> int | None:
        line = None
        tb = exc.__traceback__
        while tb is not None:
            code = tb.tb_frame.f_code
            if code.co_filename == self.filename:
                line = self._map(code, tb.tb_lasti, tb.tb_lineno)
            tb = tb.tb_next
        return line

    def _map(self, code, lasti: int, lineno: int | None) -> int | None:
        if self._lines is None or lineno is None:
            return lineno
        if self._cols and lasti >= 0:
            pos = next(islice(code.co_positions(), lasti // 2, None), None)
            if pos is not None:
                hit = self._cols.get((pos[0], pos[2], pos[1], pos[3]))
                if hit is not None:
                    return hit
        return self._lines.get(lineno, lineno)
