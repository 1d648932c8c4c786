"""Lower a checked module to one Python `ast.Module` of plain functions.

Environments and helpers keep their bodies; every refinement predicate becomes a
function `def _races_p_<module>_<k>(it)`, so the runtime checks values with the same
fuel-metered machinery that runs bodies.
"""

from __future__ import annotations

import ast as py

from racesl.check.model import CheckedModule
from racesl.lower.instrument import WORD_BITS, ParamFacts, facts_to_marks
from racesl.runtime.limits import MAX_LEN
from racesl.syntax import ast as A
from racesl.syntax.emit import Emitter
from racesl.types import types as T
from racesl.types.refine import Bounds, IntRange, extract


def iter_preds(t: T.Type | None):
    """Every predicate in a type, outermost first."""
    stack = [t]
    while stack:
        t = stack.pop()
        if t is None:
            continue
        if isinstance(t, T.Refined):
            yield from t.preds
            t = t.base
        if isinstance(t, (T.ListT, T.SetT)):
            stack.append(t.elem)
        elif isinstance(t, T.TupleT):
            stack.extend(reversed(t.elems))
        elif isinstance(t, T.DictT):
            stack.extend([t.value, t.key])
        elif isinstance(t, T.NewT):
            stack.append(t.underlying)


def module_types(cm: CheckedModule):
    for t in cm.types.values():
        yield t
    for c in cm.constants.values():
        yield c.type
    for h in cm.helpers.values():
        yield from (pt for _, pt in h.params)
        yield h.returns
    for e in cm.envs.values():
        yield e.input
        yield from (s.type for s in e.settings)
        yield e.output


def pred_name(module: str, k: int) -> str:
    return f"_races_p_{module.replace('.', '_')}_{k}"


def is_int(t: T.Type | None) -> bool:
    return t is not None and isinstance(T.shape(t), T.IntT)


def is_sized(t: T.Type | None) -> bool:
    """A Str, List, Tuple, Dict or Set (through newtypes): `len` works on its values."""
    return t is not None and isinstance(T.shape(T.unwrap(t)), (T.StrT, T.ListT, T.TupleT, T.DictT, T.SetT))


def _elements(t: T.Type | None) -> tuple:
    """The element types of a List (one) or a Tuple (each), through newtypes; else ()."""
    s = None if t is None else T.shape(T.unwrap(t))
    if isinstance(s, T.ListT):
        return (s.elem,)
    return s.elems if isinstance(s, T.TupleT) else ()


def has_int_elems(t: T.Type | None) -> bool:
    """A List of Int or Bool, or a Tuple of them only (through newtypes): its elements,
    subscripts and unpacked parts are numbers."""
    elems = _elements(t)
    return bool(elems) and all(isinstance(T.shape(e), (T.IntT, T.BoolT)) for e in elems)


def declared_bounds(t: T.Type | None) -> Bounds:
    """What the refinements written on `t` itself promise about its values (through aliases
    and newtypes; not its elements' own refinements): `racesl.types.refine`' sound reading."""
    preds = []
    while t is not None:
        preds.extend(T.preds(t))
        s = T.shape(t)
        t = s.underlying if isinstance(s, T.NewT) else None
    return extract(preds)


def _word(r: IntRange | None) -> bool:
    """Does the range keep an int within WORD_BITS bits?"""
    limit = 1 << WORD_BITS
    return r is not None and r.lo is not None and r.hi is not None and -limit < r.lo and r.hi < limit


def is_word(t: T.Type | None) -> bool:
    """An Int whose declared refinement keeps it within WORD_BITS bits."""
    return is_int(t) and _word(declared_bounds(t).value)


def has_word_elems(t: T.Type | None) -> bool:
    """A List or Tuple of numbers (`has_int_elems`) each of which is such an int, by its own
    refinement or by the container's (`all(0 <= x <= 9 for x in it)`)."""
    if not has_int_elems(t):
        return False
    outer = declared_bounds(t).elem
    for e in _elements(t):
        r = declared_bounds(e).value
        if outer is not None:
            r = r.meet(outer.value)
        if not (isinstance(T.shape(e), T.BoolT) or _word(r)):
            return False
    return True


def max_len(t: T.Type | None, outer: Bounds | None = None) -> int | None:
    """The declared length bound of a sized value: a Tuple's arity, or what its refinement
    (or `outer`'s: what its container's refinement says of each element) allows; None when
    unbounded or not sized."""
    if not is_sized(t):
        return None
    s = T.shape(T.unwrap(t))
    if isinstance(s, T.TupleT):
        return len(s.elems)
    r = declared_bounds(t).length
    if outer is not None:
        r = r.meet(outer.length)
    return r.hi


def is_short(t: T.Type | None, outer: Bounds | None = None) -> bool:
    """A sized value whose declared length is at most MAX_LEN (see `max_len`)."""
    hi = max_len(t, outer)
    return hi is not None and hi <= MAX_LEN


def has_short_rows(t: T.Type | None) -> bool:
    """A List or Tuple (through newtypes) each element of which `is_short`, by its own
    refinement or by the container's (`all(len(row) <= 9 for row in it)`)."""
    elems, outer = _elements(t), declared_bounds(t).elem
    return bool(elems) and all(is_short(e, outer) for e in elems)


def has_row_words(t: T.Type | None) -> bool:
    """A List or Tuple (through newtypes) each element of which `has_word_elems`."""
    elems = _elements(t)
    return bool(elems) and all(has_word_elems(e) for e in elems)


def param_facts(t: T.Type | None) -> ParamFacts:
    """What the lowering may trust of a parameter declared `t` (racesl.lower.instrument.facts)."""
    sized = is_sized(t)
    hi = max_len(t) if sized else None
    short = hi is not None and hi <= MAX_LEN
    return ParamFacts(
        is_int=is_int(t),
        int_elems=has_int_elems(t),
        word_elems=has_word_elems(t),  # (only of int elements)
        sized=sized,
        is_str=sized and isinstance(T.shape(T.unwrap(t)), T.StrT),
        word=is_word(t),
        short=short,
        max_len=hi if short else None,
        short_rows=has_short_rows(t),
        row_words=has_row_words(t),
    )


class Lowered:
    """The Python module for one `.races` module, plus what the runtime needs to run it."""

    def __init__(self, cm: CheckedModule):
        self.cm = cm
        self.preds: dict[tuple[str, str], str] = {}  # (module, text) → python name
        self.param_facts: dict[str, dict[str, ParamFacts]] = {}  # function → parameter → facts
        resolved = cm.resolved
        emitter = Emitter(lambda n: resolved.get(id(n)), lambda a: resolved.get(id(a)))
        body: list[py.stmt] = []
        for item in cm.ast.items:
            if isinstance(item, A.ConstDef):
                c = cm.constants.get(item.name)
                if c is not None and c.node is item:  # `def _races_const__<pyname>(): return VALUE`
                    body.append(emitter.function(c.init, [], [A.Return(item.value, item.value.span)], item.span))
                    self.param_facts[c.init] = {}
                continue
            if not isinstance(item, A.FuncDef):
                continue
            sig = cm.envs.get(item.name) if item.is_env else cm.helpers.get(item.name)
            if sig is None:
                continue
            params = [p.name for p in item.params]
            fn = emitter.function(sig.pyname, params, item.body, item.span)
            if not item.body:  # a generator environment's docstring-only body: outside its domain
                fn.body = [py.copy_location(py.Assert(py.Constant(False)), fn)]  # when run (it is drawn)
            body.append(fn)
            if item.is_env:
                types = [sig.input] + [s.type for s in sig.settings]
            else:
                types = [t for _, t in sig.params]
            self.param_facts[sig.pyname] = {p: param_facts(t) for p, t in zip(params, types)}
        k = 0
        for t in module_types(cm):
            for p in iter_preds(t):
                key = (p.module, p.text)
                if key in self.preds or p.module != cm.name:
                    continue
                name = pred_name(cm.name, k)
                k += 1
                self.preds[key] = name
                body.append(emitter.predicate(name, p.expr, p.span))
        self.module = py.fix_missing_locations(py.Module(body=body, type_ignores=[]))

    @property
    def int_params(self) -> dict[str, frozenset[str]]:
        """`param_facts` in the mark spelling (`{"n", "xs[]", "s#:20"}`: see
        racesl.lower.instrument.facts), to read at a glance."""
        return {f: facts_to_marks(facts) for f, facts in self.param_facts.items()}
