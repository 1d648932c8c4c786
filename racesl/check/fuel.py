"""`@fuel(N)`: a function's step budget, read from its decorator.

An environment or a helper may declare `@fuel(N)`: when it is the call that runs (an
environment's body, a sampler, a verifier, a generator, a helper a refinement calls), it gets
N steps instead of DEFAULT_FUEL, and a wall limit grown with them (racesl.runtime.limits);
a helper called from a body draws on its caller's counter. Checked here (codes in
racesl.diagnostics.CODES):

- E410: the argument is not one integer literal from 1 up (a name, an expression, zero or a
  negative number, a keyword, no argument or several);
- E411: N is above FUEL_CAP;
- E403: a helper carries a decorator other than `@fuel` (the others describe environments).
"""

from __future__ import annotations

from racesl.runtime.limits import DEFAULT_FUEL, FUEL_CAP
from racesl.syntax import ast as A

_HINT = f"write an integer literal from 1 to {FUEL_CAP:,}, e.g. @fuel(20000) (the default is {DEFAULT_FUEL})"


def budget(ck, d: A.Decorator) -> int | None:
    """The budget `@fuel(...)` declares, or None after reporting why it is not one (`ck`: the
    ModuleChecker, for `err`)."""
    if d.keywords or len(d.args) != 1:
        got = "no argument" if not d.args and not d.keywords else (
            "a keyword" if d.keywords else f"{len(d.args)} arguments")
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
    if n > FUEL_CAP:
        ck.err("E411", f"a step budget of {n:,} is above the cap of {FUEL_CAP:,} steps", e.span,
               f"@fuel({FUEL_CAP}) at most: make the body cheaper, or split the work over "
               "several environments")
        return None
    return n


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
        n = budget(ck, d)
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
