"""Step budgets per lowered function, from `@fuel(N)` (racesl.check.fuel).

    budgets = function_budgets(library.lowered.values())   # {pyname: N}
    prog = load_program(module, "<races>", int_params=..., budgets=budgets)

A `Program` raises a call's budget to its function's entry here (`Program.limits`), so every
caller — the search, check's sampling, the rewards, `racesc run`, the worker processes —
gets it without asking. Only the function that is called gets its own budget: an
environment, a sampler, a verifier, a generator. A helper called from a body draws on its
caller's counter, as every helper does. A refinement predicate is the call that runs when a
value is checked, so `where valid(it)` with `@fuel(N) def valid(...)` gets N: a predicate's
budget is the largest of those of the helpers it calls by name.
"""

from __future__ import annotations

import ast as py
from collections.abc import Iterable

__all__ = ["function_budgets", "chain_budget"]


def function_budgets(lowered: Iterable) -> dict[str, int]:
    """{lowered function name: its declared budget} over `racesl.lower.module.Lowered`
    modules: only functions that declare one, and the predicates that call them."""
    lowered = list(lowered)
    out: dict[str, int] = {}
    for low in lowered:
        cm = low.cm
        for sig in (*cm.envs.values(), *cm.helpers.values()):
            n = getattr(sig, "fuel", None)
            if n is not None:
                out[sig.pyname] = n
    if not out:
        return out
    declared = dict(out)
    for low in lowered:
        preds = set(low.preds.values())
        for fn in low.module.body:
            if isinstance(fn, py.FunctionDef) and fn.name in preds:
                called = [declared[n.func.id] for n in py.walk(fn)
                          if isinstance(n, py.Call) and isinstance(n.func, py.Name) and n.func.id in declared]
                if called:
                    out[fn.name] = max(called)
    return out


def chain_budget(budgets: dict[str, int], pynames: Iterable[str], fuel: int) -> int:
    """The budget of a chain run as one unit: the sum of its steps' budgets, each the larger
    of `fuel` and the step's own (`Program.limits`' rule)."""
    return sum(max(fuel, budgets.get(n, 0)) for n in pynames)
