"""Exact integer bounds of a refinement by Z3 Optimize, for the sampler.

`int_bounds(preds, subject)` is the least and greatest value of `it` (an Int or Bool
subject) or of `len(it)` (a sequence subject) over the values satisfying the encodable part
of `preds`: `3 <= it and it % 2 == 1 and it < 40` → (3, 39). Opaque conjuncts only add
their axioms (`it.isalpha()` ⇒ `len(it) >= 1`), so the bounds are always implied by the
predicates (sound) and exact for predicates inside the fragment. Character classes count as
opaque here (Z3 Optimize does not handle its string theory): their length axioms remain. None is an unbounded side
(or a side the budget did not settle); `lo > hi` (returned as (1, 0)) means that no value
satisfies the predicates.

Same budget as the solver: a deterministic `rlimit` plus a timeout backstop; one reused
Optimize per subject with push/pop; results cached by normalized predicate texts.
"""

from __future__ import annotations

import time
from typing import Any, Iterable

from racesl.solver.encode import scope_of
from racesl.solver.solver import Solver, default_solver

__all__ = ["int_bounds", "EMPTY_BOUNDS"]

EMPTY_BOUNDS = (1, 0)


def int_bounds(preds: Iterable, subject: Any = "int", solver: Solver | None = None) -> tuple[int | None, int | None]:
    """(least, greatest) of `it` (or `len(it)` for str/list/set/dict/tuple subjects) over the
    values satisfying `preds`; None for an unbounded side; (1, 0) when none does."""
    s = solver or default_solver()
    t0 = time.perf_counter()
    try:
        root = scope_of(subject)
        items = [(c, root) for c in s.conjs(preds)]
        key = ("bounds", root.key, frozenset(s._key(i) for i in items))
        hit = s.memo.get(key)
        if hit is not None:
            s.cache_hits += 1
            return hit
        res = _optimize(s, root, items)
        s.memo[key] = res
        return res
    finally:
        s.time += time.perf_counter() - t0


def _optimize(s: Solver, root, items) -> tuple[int | None, int | None]:
    enc = s.encoder
    z3 = enc.z3
    if root.kind == "int":
        target = enc.value(root)
    elif root.kind == "bool":
        target = z3.If(enc.value(root), enc.num(1), enc.num(0))
    elif root.has_len:
        target = enc.length(root)
    else:
        return None, None
    if root.kind == "tuple":
        n = len(root.comps)
        return (n, n) if s.sat_items(root, items) != "unsat" else EMPTY_BOUNDS
    opt = s._optimizers.get(root.key)
    if opt is None:
        opt = s._optimizers[root.key] = z3.Optimize(ctx=enc.ctx)
        opt.set("rlimit", s.rlimit)
        opt.set("timeout", s.timeout_ms)
        opt.set(priority="box")
    es = [s.encode(i, chars=False) for i in items]  # (Optimize gives up on Z3's string theory)
    s.queries += 1
    opt.push()
    try:
        opt.add(*enc.base(root))
        for e in es:
            opt.add(e.formula, *e.axioms)
        lo_h = opt.minimize(target)
        hi_h = opt.maximize(target)
        t = time.perf_counter()
        try:
            r = opt.check()
        finally:
            s.z3_time += time.perf_counter() - t
        if r == z3.unsat:
            return EMPTY_BOUNDS
        if r != z3.sat:
            s.unknown += 1
            return None, None
        return _num(z3, opt.lower(lo_h)), _num(z3, opt.upper(hi_h))
    except z3.Z3Exception:
        return None, None
    finally:
        opt.pop()


def _num(z3, v) -> int | None:
    return v.as_long() if z3.is_int_value(v) else None
