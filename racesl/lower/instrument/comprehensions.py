"""Lambdas, comprehensions and generator expressions inside an expression.

`_Comprehensions` is part of the expression rewrite `_Ex` (expressions.py): each `for`
clause charges one step an element, element by element (`_races_tick_iter`); the clauses'
own scope rebinds names (`_minus`). A
comprehension charged ahead by its statement is the business of ahead.py.
"""

from __future__ import annotations

import ast

from racesl.lower.instrument.build import _call, _clone, _loc, _name
from racesl.lower.instrument.facts import ELEM_WORD, ELEMS, ROW_WORDS, STR, WORD, WORD_BITS
from racesl.lower.instrument.scope import CHAR, _iter_num, _minus, _range_bits, _rows_of
from racesl.lower.instrument.syntax import _is_call_to, _special_iter, _target_names
from racesl.runtime import abi
from racesl.runtime.abi import BOX


class _Comprehensions:
    """The nested scopes of `_Ex`: lambdas, comprehensions, generators."""

    def _elements_charge(self, g) -> bool:
        """Do the conditions or the element of `g` (one `for` clause) charge the box? Judged
        on a copy, visited as the clause's own scope."""
        probe = self.child()
        bound = set(_target_names(g.generators[0].target))
        probe.num, probe.shadow = _minus(self.num, bound), self.shadow | bound
        trial = _clone(g)
        for c in trial.generators[0].ifs:
            probe.visit(c)
        probe.visit(trial.elt)
        return probe.box

    # -- nested scopes

    def v_Lambda(self, e):
        a = e.args
        params = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
        params |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
        num = _minus(self.num, params)
        row = getattr(e, "_races_row_arg", None)  # the `key=` of a builtin over rows of words
        if row is not None and row in params:
            num |= {row + ELEMS, row + ELEM_WORD}
        c = self.child(num=num, shadow=self.shadow | params)
        t = _call(abi.LAMBDA_TICK, [_name(BOX)])
        e.body = _loc(ast.BoolOp(op=ast.Or(), values=[t, c.visit(e.body)]), e.body)
        return e

    def v_ListComp(self, e):
        return self.v_comp(e, full=True)

    v_SetComp = v_DictComp = v_ListComp

    def v_GeneratorExp(self, e):
        """A generator that escapes the statement creating it (stored, passed to a helper,
        to zip/enumerate, returned) is consumed later, possibly between synchronisation
        points while the local counter is the truth — so it must not charge anything then.
        With one `for` clause and elements that charge nothing themselves, it stays lazy
        (late binding intact) and its source is charged whole when it is created
        (`_races_esc`); otherwise it is evaluated eagerly, `iter([...])`, charged like a
        list comprehension. (Consuming it only partly still costs its whole length.)"""
        if len(e.generators) == 1:
            g = e.generators[0]
            if not self._elements_charge(e):
                bound = set(_target_names(g.target))
                outer = self.child(nested=self.nested)
                g.iter = _loc(_call(abi.ESC, [_name(BOX), outer.visit(g.iter)]), g.iter)
                self.absorb(outer)
                inner = self.child(num=_minus(self.num, bound), shadow=self.shadow | bound)
                g.ifs = [inner.visit(c) for c in g.ifs]
                e.elt = inner.visit(e.elt)
                self.box = True
                return e
        comp = _loc(ast.ListComp(elt=e.elt, generators=e.generators), e)
        return _loc(_call(abi.ITER, [self.v_comp(comp, full=True)]), e)

    def v_comp(self, e, full: bool):
        gens = e.generators
        bound, ranged, chars = set(), set(), set()
        for g in gens:  # targets over `range` or a name whose elements are numbers, or a Str
            names = _target_names(g.target)
            ranged.difference_update(names)
            ranged.difference_update(n + m for n in names for m in (WORD, ELEMS, ELEM_WORD))
            chars.difference_update(names)
            outer = _minus(self.num, bound) | ranged
            if isinstance(g.target, ast.Name) and _iter_num(g.iter, outer):
                ranged.add(g.target.id)
                b = _range_bits(g.iter, outer) if _is_call_to(g.iter, {"range"}) else (
                    WORD_BITS if g.iter.id + ELEM_WORD in outer else None)
                if b is not None and b <= WORD_BITS:
                    ranged.add(g.target.id + WORD)
            elif isinstance(g.target, ast.Name) and isinstance(g.iter, ast.Name) and g.iter.id + STR in outer:
                chars.add(g.target.id)
            elif isinstance(g.target, ast.Name) and _rows_of(g.iter, {
                    n[:-len(ROW_WORDS)] for n in outer if n.endswith(ROW_WORDS)}):  # a row of a parameter whose rows hold words
                ranged.update((g.target.id + ELEMS, g.target.id + ELEM_WORD))
            bound.update(names)
        shadow = self.shadow | bound
        lazy = isinstance(e, ast.GeneratorExp) and not full
        outer = self.child(nested=self.nested)  # the first iterable: enclosing scope, box only
        inner = self.child(num=_minus(self.num, bound) | ranged | {c + CHAR for c in chars}, shadow=shadow)

        hoisted = getattr(e, "_races_src", None) if full else None

        def source(g, ex, first):
            it = g.iter
            if getattr(g, "_races_src_free", False) and self.fx.src_fast:
                return ex.visit(it)  # charged ahead with the rows (`_Fx._nested_charge`)
            if first and hoisted is not None:  # charged ahead by the statement (`_hoist_source`)
                src = _name(hoisted)
                return src if self.fx.src_fast else _loc(_call(abi.TICK_ITER, [_name(BOX), src]), it)
            # element by element: `zip`/`enumerate`/`reversed` pay the builtin's own charge first
            kind = None if lazy else _special_iter(it, ex.shadow)
            if kind is not None:
                it = _call(abi.builtin(kind), [_name(BOX), *[ex.visit(a) for a in it.args]], ex._kws(it.keywords))
            else:
                it = ex.visit(it)
            return _loc(_call(abi.TICK_ITER, [_name(BOX), it]), g.iter)

        gens[0].iter = source(gens[0], outer, True)
        self.absorb(outer)
        for g in gens[1:]:
            g.iter = source(g, inner, False)
        for g in gens:
            g.ifs = [inner.visit(c) for c in g.ifs]
        if isinstance(e, ast.DictComp):
            e.key = inner.visit(e.key)
            e.value = inner.visit(e.value)
        else:
            e.elt = inner.visit(e.elt)
        self.absorb(inner)
        self.box = True
        return e
