"""`@fuel(N)`: a function's step budget, read from its decorator.

An environment or a helper may declare `@fuel(N)`: when it is the call that runs (an
environment's body, a sampler, a verifier, a generator, a helper a refinement calls), it gets
N steps instead of DEFAULT_FUEL, and a wall limit grown with them (racesl.runtime.limits);
a helper called from a body draws on its caller's counter. Checked here (codes in
racesl.diagnostics.CODES):

- E410: the argument is not one integer literal from 1 up (a name, an expression, zero or a
  negative number, a keyword, no argument or several);
- E411: N is above the cap: FUEL_CAP (1,000,000) for an environment and for most helpers;
  GENERATOR_FUEL_CAP (20,000,000) for a helper that an environment of the same module names in
  `@generate` or `@verify` (`role_caps`, once every environment's decorators are read). A
  generator runs once a task and a checker once an answer, where a body runs once for every
  candidate the search tries; the wall limit (at most MAX_WALL, 30 s) is the same for both;
- E403: a helper carries a decorator other than `@fuel` (the others describe environments).
"""

from __future__ import annotations

from racesl.runtime.limits import DEFAULT_FUEL, FUEL_CAP, GENERATOR_FUEL_CAP
from racesl.syntax import ast as A
from racesl.syntax.decorators import not_one_argument

_HINT = (f"write an integer literal from 1 to {FUEL_CAP:,} (to {GENERATOR_FUEL_CAP:,} for a @generate "
         f"helper or a @verify checker), e.g. @fuel(20000) (the default is {DEFAULT_FUEL})")
_ROLES = "a @generate helper or a @verify checker"


def budget(ck, d: A.Decorator, cap: int = FUEL_CAP) -> int | None:
    """The budget `@fuel(...)` declares, or None after reporting why it is not one (`ck`: the
    ModuleChecker, for `err`; `cap`: FUEL_CAP on an environment, GENERATOR_FUEL_CAP on a
    helper, whose role `role_caps` checks later)."""
    got = not_one_argument(d)
    if got is not None:
        ck.err("E410", f"@fuel takes one step budget, not {got}", d.span, _HINT)
        return None
    e = d.args[0]
    n = _literal(e)
    if n is None:
        ck.err("E410", "@fuel takes an integer literal", e.span,
               f"{_HINT}: the budget is fixed where the function is declared, not computed")
        return None
    if n < 1:
        ck.err("E410", f"a step budget of {n} leaves no step to run", e.span, _HINT)
        return None
    if n > cap:
        if cap == FUEL_CAP:  # an environment
            ck.err("E411", f"a step budget of {n:,} is above the cap of {FUEL_CAP:,} steps", e.span,
                   f"@fuel({FUEL_CAP}) at most on an environment: make the body cheaper, split the work "
                   f"over several environments, or draw the instance with @generate (whose helper may "
                   f"have up to {GENERATOR_FUEL_CAP:,})")
        else:
            ck.err("E411", f"a step budget of {n:,} is above the cap of {cap:,} steps (the cap of {_ROLES})",
                   e.span, f"@fuel({cap}) at most: make the helper cheaper (let it search less, "
                   "bound its loops by `level`)")
        return None
    return n


def role_caps(ck) -> None:
    """E411 on a helper whose `@fuel(N)` passes FUEL_CAP but that no environment of this module
    names in `@generate` or `@verify` (the larger cap is for those two roles). Run once, after
    every environment's decorators were read (`ck.out.envs` filled in)."""
    roles = {p for env in ck.out.envs.values() for p in (env.generate, env.verify) if isinstance(p, str)}
    for sig in ck.out.helpers.values():
        if sig.fuel is None or sig.fuel <= FUEL_CAP or sig.pyname in roles:
            continue
        d = next((d for d in sig.node.decorators if d.name == "fuel" and d.args), None)
        ck.err("E411", f"a step budget of {sig.fuel:,} is above the cap of {FUEL_CAP:,} steps: '{sig.name}' is "
               f"not {_ROLES} of this module", d.args[0].span if d is not None else sig.span,
               f"@fuel({FUEL_CAP}) at most here; only {_ROLES} (named by an environment of the module that "
               f"declares it) may have up to {GENERATOR_FUEL_CAP:,}")


def helper_budget(ck, fn: A.FuncDef) -> int | None:
    """The `@fuel` budget a helper declares (None: the default); any other decorator on a
    helper is E403, a second `@fuel` E404."""
    n = None
    seen = False
    for d in fn.decorators:
        if d.name != "fuel":
            ck.err("E403", f"decorators apply to environments only, @fuel excepted: '@{d.name}' "
                   f"cannot decorate helper '{fn.name}'", d.span, "declare it with `env`, or remove the decorator")
            continue
        if seen:
            ck.err("E404", "'@fuel' is given more than once", d.span, "merge them into one")
            continue
        seen = True
        n = budget(ck, d, GENERATOR_FUEL_CAP)
    return n


def _literal(e: A.Expr) -> int | None:
    """The value of an integer literal, signed or not (a Bool is not one), else None."""
    sign = 1
    while isinstance(e, A.UnaryOp) and e.op in ("-", "+"):
        sign = -sign if e.op == "-" else sign
        e = e.operand
    if isinstance(e, A.Const) and type(e.value) is int:
        return sign * e.value
    return None
