"""Helpers for the solver tests: predicates and types from source text, Python evaluation."""

from __future__ import annotations

from racesl.solver import parse_pred
from racesl.types.types import BOOL, INT, STR, DictT, ListT, NewT, Refined, SetT, TupleT  # noqa: F401

SAFE_BUILTINS = {name: __builtins__[name] if isinstance(__builtins__, dict) else getattr(__builtins__, name)
                 for name in ("abs", "all", "any", "bool", "int", "len", "max", "min", "range", "set", "sorted")}


def pred(src: str, module: str = "m"):
    return parse_pred(src, module)


def refined(base, *srcs: str):
    return Refined(base, tuple(pred(s) for s in srcs)) if srcs else base


def py_holds(src: str, value) -> bool:
    """What the runtime decides: the predicate returns exactly True, exceptions reject."""
    try:
        return eval(src, {"__builtins__": SAFE_BUILTINS, "it": value}) is True
    except Exception:
        return False


def encodings(solver, src: str, subject: str):
    from racesl.solver.encode import scope_of

    root = scope_of(subject)
    return [solver.encode((c, root)) for c in solver.conjs([src])]


def z3_holds(solver, src: str, subject: str, value) -> bool:
    """The encoded predicate evaluated at one value (Int / Bool subjects)."""
    from racesl.solver.encode import scope_of

    root = scope_of(subject)
    enc = solver.encoder
    z3 = enc.z3
    es = [solver.encode((c, root)) for c in solver.conjs([src])]
    f = enc.And(e.formula for e in es)
    v = enc.value(root)
    val = enc.num(value) if subject == "int" else (enc.TRUE if value else enc.FALSE)
    r = z3.simplify(z3.substitute(f, (v, val)))
    assert z3.is_true(r) or z3.is_false(r), (src, value, r)
    return z3.is_true(r)
