"""Running a module's optimized and reference-metered variants side by side (see
tests/lower/test_reference_meter.py): the outcome of one call, and the three-budget
comparison (a generous budget, exactly the steps used, one less)."""

from __future__ import annotations

import copy

from racesl.lower.instrument import instrument
from racesl.runtime.execute import Program, compile_code
from racesl.runtime.limits import Cutoff, FuelOut

GENEROUS = 20_000


def programs(module, int_params, budgets=None):
    """(optimized, reference) Programs of one module (`budgets`: its functions' @fuel)."""
    out = []
    for opt in (True, False):
        name = f"<races-{'opt' if opt else 'ref'}>"
        out.append(Program(compile_code(instrument(module, int_params=int_params, optimize=opt), name), name,
                           budgets=budgets))
    return out


def outcome(run, args):
    """('ok', value, steps) / ('fuel',) / ('cut', status) / ('error', type) of one call."""
    try:
        v = run(*copy.deepcopy(args))
    except FuelOut:
        return ("fuel",)
    except Cutoff as e:
        return ("cut", e.status)
    except Exception as e:  # noqa: BLE001 - an exception is an outcome here
        return ("error", type(e).__name__)
    return ("ok", v, run.fuel - run.meter[0])


def entry_outcome(prog, name, args, fuel):
    return outcome(prog.function(name, fuel=fuel, wall=None), args)


def call_outcome(prog, name, args, fuel):
    out = prog.call(name, copy.deepcopy(args), fuel=fuel, wall=None)
    if out.status == "ok":
        return ("ok", out.value, out.steps)
    if out.status == "fuel":
        return ("fuel",)
    return ("error", out.status)


def compare(opt, ref, name, args, problems, route):
    """The three budgets, on one route (entry or ordinary variant)."""
    go = route
    a, b = go(opt, name, args, GENEROUS), go(ref, name, args, GENEROUS)
    shown = f"{route.__name__} {name}{tuple(args)!r:.200}"
    if a[0] != b[0] or (a[0] == "ok" and (a[1] != b[1] or a[2] != b[2])):
        problems.append(f"{shown}: optimized {a!r:.200}, reference {b!r:.200}")
        return None
    if a[0] != "ok":
        return a[0]
    steps = a[2]
    for fuel, want in ((steps, "ok"), (steps - 1, "fuel")):
        if fuel < 0:
            continue
        x, y = go(opt, name, args, fuel), go(ref, name, args, fuel)
        if x[0] != want or y[0] != want or (want == "ok" and (x[1:] != a[1:] or y[1:] != a[1:])):
            problems.append(f"{shown} at budget {fuel}: optimized {x!r:.200}, reference {y!r:.200}")
    return "ok"
