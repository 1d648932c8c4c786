"""Settings the sampler would draw from an open range (W400, issue 35).

A setting is drawn anew for each task and written into its text. An `Int` setting whose
refinement leaves a side open (`k: Int`, `k: Int where it >= 1`) and that has no @sample
helper is drawn from the default sampler's window around zero, which grows with the level:
a task may ask to "shift by -7" or by 10,000, which the author rarely means. The range is
read as the sampler reads it (racesl.types.refine, and Z3 for what the reading leaves
opaque: racesl.sample.default), so whatever the sampler draws from a closed range passes.
"""

from __future__ import annotations

from racesl.diagnostics import Severity
from racesl.syntax import ast as A
from racesl.types import refine as R
from racesl.types import types as T


def open_sides(t: T.Type) -> str | None:
    """"below", "above" or "below and above" when the values of an Int type `t` are not
    bounded on that side (or are not listed), else None; None for any other type."""
    if not isinstance(T.shape(t), T.IntT):  # (a newtype over Int draws through its own sampler)
        return None
    preds = T.preds(t)
    b = R.extract(preds) if preds else R.Bounds()
    r = b.value
    if b.empty or r.empty or b.choices is not None or r.choices is not None:
        return None
    lo, hi = r.lo, r.hi
    if (lo is None or hi is None) and b.opaque:
        try:  # (as the sampler closes an open side: racesl.sample.default._solver_tightened)
            from racesl.solver.bounds import int_bounds

            slo, shi = int_bounds(preds)
            lo = slo if lo is None else lo
            hi = shi if hi is None else hi
        except Exception:  # noqa: BLE001 — the solver only narrows; without it the reading stands
            pass
    sides = [w for w, v in (("below", lo), ("above", hi)) if v is None]
    return " and ".join(sides) or None


def unbounded_settings(checker, fn: A.FuncDef, sig, samplers: dict) -> None:
    """W400 for each Int setting of environment `fn` without bounds on a side and without
    a sampler; reported at the setting's annotation through `checker.err`."""
    for s in sig.settings:
        if s.name in samplers or s.name == sig.input_name:  # (a duplicate parameter is E408)
            continue
        sides = open_sides(s.type)
        if sides is None:
            continue
        p = next((p for p in fn.params if p.name == s.name), None)
        span = p.annotation.span if p is not None and p.annotation is not None else fn.name_span
        what, drawn = {"below": ("no lower bound", "-7"), "above": ("no upper bound", "10000")}.get(
            sides, ("no bounds", "-7 or 10000"))
        checker.err("W400", f"the Int setting '{s.name}' of '{fn.name}' has {what}: a task may draw any such "
                    f"value for it ({drawn}, say)", span,
                    f"give it a refined type (`{s.name}: Int where 1 <= it <= 9`) or a sampler "
                    f"(@sample({s.name}=helper))", Severity.WARNING)
