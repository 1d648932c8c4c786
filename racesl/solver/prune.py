"""Static pruning: output types whose every value a degenerate-expansion filter drops.

`always_degenerate(out_type, filters)` returns the name of a filter of
`racesl.search.filters.value_filter` ("value", "big_int", "long_text", "repeated_char")
that fires on EVERY value of `out_type`, or None. It is a proof, never a guess: each filter
is described by a condition over the encodable view of the value that is *sufficient* for
the filter to fire, and the answer is given only when the output refinement implies it:

- value: `it` among the drop values of its own type (an Int among the int ones, a Bool among
  the bool ones: Bool is its own type, so `True` is not dropped by `1`); an empty Str / List /
  Dict / Tuple when `""` / `[]` / `{}` / `()` is a drop value;
- big_int: `abs(it) > max_int` (Int only: a bool is not an int there);
- long_text: the text form is the value's `repr`: an Int has more than `max_text`
  characters exactly when `it >= 10**max_text` or `it <= -10**(max_text-1)`; a Str's repr
  has at least `len(it) + 2` characters; a List of n >= 1 elements has at least
  `2 + n*m + 2*(n - 1)` where m is a lower bound of one element's repr (worked out from the
  element type and its refinements, recursively); Dict, Set and Tuple likewise;
- repeated_char: a Str with `len(set(it)) <= 1` (so every Str of length 0 or 1).

When no single filter covers every value but together they do (`Int where it <= 1 or
it > 500`), the first filter, in `value_filter`'s order, that fires on some value is named.
"""

from __future__ import annotations

import time
from typing import Any

from racesl.solver.bounds import int_bounds
from racesl.solver.encode import flatten, scope_of
from racesl.solver.solver import Solver, default_solver
from racesl.types import types as T

__all__ = ["always_degenerate", "min_repr_len", "FILTER_ORDER"]

FILTER_ORDER = ("value", "big_int", "long_text", "repeated_char")
_MAX_TEXT_CAP = 1000  # a larger max_text is never reached by a bound worth proving


def always_degenerate(out_type: T.Type, filters: Any, solver: Solver | None = None) -> str | None:
    """The filter that drops every value of `out_type`, or None. `filters` is read by
    attribute: `drop_values`, `max_int`, `max_text`, `repeated_char` (missing: off)."""
    s = solver or default_solver()
    fk = _filter_key(filters)
    key = ("prune", out_type, tuple((type(d).__name__, repr(d)) for d in fk[0]), fk[1:])
    if key in s.memo:
        s.cache_hits += 1
        return s.memo[key]
    t0 = time.perf_counter()
    try:
        res = _always(s, out_type, *fk)
    finally:
        s.time += time.perf_counter() - t0
    s.memo[key] = res
    return res


def _filter_key(f: Any) -> tuple:
    drop = getattr(f, "drop_values", ()) or ()
    max_int = getattr(f, "max_int", None)
    max_text = getattr(f, "max_text", None)
    rep = bool(getattr(f, "repeated_char", False))
    try:
        drop = tuple(drop)
    except TypeError:
        drop = ()
    return (drop, max_int if _is_int(max_int) else None, max_text if _is_int(max_text) else None, rep)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _conditions(s: Solver, t: T.Type, drop: tuple, max_int, max_text, rep: bool) -> list[tuple[str, str]]:
    """(filter, predicate text over `it` sufficient for it to fire) pairs."""
    shape, _ = flatten(t)
    root = scope_of(shape)
    out: list[tuple[str, str]] = []
    kind = root.kind
    if kind in ("int", "bool"):
        # type-exact: an Int is dropped by int drop values, a Bool only by bool ones. Today's
        # `value in drop_values` also drops True by 1 (a bug the filter's tests mark); what is
        # claimed here holds under both readings.
        want = int if kind == "int" else bool
        ints = sorted({int(d) for d in drop if type(d) is want})
        if ints:
            out.append(("value", f"it in {tuple(ints)!r}"))
        if kind == "int" and max_int is not None:
            out.append(("big_int", f"abs(it) > {max_int}"))
        if max_text is not None:
            if kind == "int":
                if max_text < 1:
                    out.append(("long_text", "True"))
                elif max_text <= _MAX_TEXT_CAP:
                    out.append(("long_text", f"it >= {10 ** max_text} or it <= {-(10 ** (max_text - 1))}"))
            else:  # 'True' has 4 characters, 'False' 5
                if max_text < 4:
                    out.append(("long_text", "True"))
                elif max_text < 5:
                    out.append(("long_text", "not it"))
        return out
    if kind == "other":
        return out
    empty = {"str": "", "list": [], "dict": {}, "tuple": (), "set": set()}[kind]
    if any(type(d) is type(empty) and d == empty for d in drop):
        out.append(("value", "len(it) == 0"))
    if max_text is not None:
        cond = _long_text_condition(s, shape, root, max_text)
        if cond is not None:
            out.append(("long_text", cond))
    if kind == "str" and rep:
        out.append(("repeated_char", "len(set(it)) <= 1"))
    return out


def _long_text_condition(s: Solver, shape: T.Type, root, max_text: int) -> str | None:
    if max_text < 0:
        return "True"
    if max_text > _MAX_TEXT_CAP:
        return None
    cap = max_text + 1
    kind = root.kind
    if kind == "str":
        return f"len(it) >= {max_text - 1}"  # repr adds two quotes at least
    if kind in ("list", "set"):
        m = min_repr_len(shape.elem, cap, s)
        if max_text < 2:  # '[]' (or 'set()') is already too long
            return "True"
        return f"len(it) >= {max_text // (m + 2) + 1}"  # n (m + 2) > max_text
    if kind == "dict":
        mk, mv = min_repr_len(shape.key, cap, s), min_repr_len(shape.value, cap, s)
        if max_text < 2:
            return "True"
        return f"len(it) >= {max_text // (mk + mv + 4) + 1}"  # n (mk + mv + 4) > max_text
    if kind == "tuple":
        return "True" if min_repr_len(shape, cap, s) > max_text else None
    return None


def min_repr_len(t: T.Type, cap: int = 101, solver: Solver | None = None) -> int:
    """A lower bound of `len(repr(v))` over the values `v` of `t`, capped at `cap`
    (`cap` means "at least cap"). Exact for Int and Bool; for the others it follows the
    lengths the refinements force and the elements' own bounds."""
    s = solver or default_solver()
    key = ("min_repr", t, cap)
    if key in s.memo:
        return s.memo[key]
    res = min(cap, _min_repr(s, t, cap))
    s.memo[key] = res
    return res


def _min_repr(s: Solver, t: T.Type, cap: int) -> int:
    shape, preds = flatten(t)
    root = scope_of(shape)
    items = [(c, root) for c in s.conjs(preds)]
    kind = root.kind
    if kind == "int":
        if not items:
            return 1
        # the least d such that some value has a repr of at most d characters
        lo, hi = 1, cap
        while lo < hi:
            d = (lo + hi) // 2
            cond = s.conjs([f"{-(10 ** (d - 1))} < it < {10 ** d}"])
            if s.sat_items(root, items + [(c, root) for c in cond]) == "unsat":
                lo = d + 1
            else:
                hi = d
        return lo
    if kind == "bool":
        if items and s.sat_items(root, items + [(c, root) for c in s.conjs(["it"])]) == "unsat":
            return 5
        return 4
    if kind == "tuple":
        ms = [min_repr_len(e, cap, s) for e in shape.elems]
        n = len(ms)
        if n == 0:
            return 2
        if n == 1:
            return 3 + ms[0]
        return 2 + sum(ms) + 2 * (n - 1)
    if kind not in ("str", "list", "set", "dict"):
        return 0
    lo, _ = int_bounds(preds, shape, s)
    n = max(lo or 0, 0)
    if kind == "str":
        return 2 + n
    if n == 0:
        return 2
    if kind == "dict":
        per = min_repr_len(shape.key, cap, s) + min_repr_len(shape.value, cap, s) + 2
    else:
        per = min_repr_len(shape.elem, cap, s)
    return 2 + n * per + 2 * (n - 1)


def _always(s: Solver, out_type: T.Type, drop, max_int, max_text, rep) -> str | None:
    shape, preds = flatten(out_type)
    if isinstance(shape, T.AnyT):
        return None
    root = scope_of(shape)
    items = [(c, root) for c in s.conjs(preds)]
    conds = _conditions(s, out_type, drop, max_int, max_text, rep)
    for name, text in conds:
        if s.implies_items(root, items, [(c, root) for c in s.conjs([text])]) == "yes":
            return name
    if len(conds) >= 2:
        none_fires = " and ".join(f"not ({text})" for _, text in conds)
        if s.sat_items(root, items + [(c, root) for c in s.conjs([none_fires])]) == "unsat":
            for name, text in conds:
                if s.sat_items(root, items + [(c, root) for c in s.conjs([text])]) != "unsat":
                    return name
            return conds[0][0]
    return None
