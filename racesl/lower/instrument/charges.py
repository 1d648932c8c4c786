"""Fuel charged by expressions: calls of helpers, charging builtins and methods, `in`.

`_Charges` is part of the expression rewrite `_Ex` (expressions.py). A charge goes to the
function's local counter inline where the statement allows it (mode "local"), else to the
box through the runtime's charging builtins (docs/fuel.md, "Charges").
"""

from __future__ import annotations

import ast

from racesl.lower.instrument.build import _call, _clone, _const, _loc, _name, _paid
from racesl.lower.instrument.facts import ROW_WORDS, STR
from racesl.lower.instrument.scope import _bits, _is_num, _is_sized
from racesl.lower.instrument.syntax import _BUILTINS, _CONSTS, _FULL, _INLINE_CHARGED
from racesl.runtime import abi
from racesl.runtime.abi import BOX
from racesl.runtime.builtins import CHARGING_BUILTINS
from racesl.runtime.guards import POW_MOD_COST, pow_mod_cost
from racesl.runtime.limits import MAX_LEN
from racesl.types import builtins as B

_GUARDED_METHODS = B.WRAPPED_METHODS
_NO_POST = B.UNCHECKED_RESULT_BUILTINS  # builtins whose result is not size-checked
_ONE_ARG = B.ONE_ARG_BUILTINS
_KEYED = frozenset(e.name for e in B.builtins() if "key" in e.keywords)  # sorted, max, min


def _mark_row_key(name, e, num) -> None:
    """`sorted(p, key=lambda r: ...)` (also `max`, `min`) over a parameter whose rows hold
    words (`ROW_WORDS` in `num`): the lambda is called with rows of p only, so its parameter
    gets the rows' marks (`v_Lambda`)."""
    if name not in _KEYED or len(e.args) != 1 or not isinstance(e.args[0], ast.Name):
        return
    if e.args[0].id + ROW_WORDS not in num:
        return
    for k in e.keywords:
        lam = k.value
        if k.arg == "key" and isinstance(lam, ast.Lambda) and len(lam.args.args) == 1 and not (
                lam.args.vararg or lam.args.kwarg or lam.args.kwonlyargs or lam.args.posonlyargs):
            lam._races_row_arg = lam.args.args[0].arg


class _Charges:
    """The charging part of `_Ex`: `in`, calls."""

    # -- membership

    def _charge_in(self, c, n):
        """`c`, the (visited) right side of an `in` whose length `n` is known now (None: not),
        charged its length before the test: to the local counter inline where the context
        allows, else through the box (`_races_in_arg`)."""
        if self.mode == "local" and not self.nested and "inline" in self.fx.fast_paths:
            self.local = True
            if n is not None:  # literal: charge its known length
                dec, val = _const(n), c
            elif isinstance(c, ast.Name) and c.id + STR in self.num:  # a str: its length
                dec, val = _call(abi.LEN, [_clone(c)]), c
            else:
                t = self.fx.tmp("t")  # (len(t) if type(t := c) in {str, list, tuple} else 0)
                dec = ast.IfExp(
                    test=ast.Compare(left=_call(abi.TYPE, [ast.NamedExpr(target=_name(t, True), value=c)]),
                                     ops=[ast.In()], comparators=[_name(abi.SEQ)]),
                    body=_call(abi.LEN, [_name(t)]), orelse=_const(0))
                val = _name(t)
            return _loc(ast.IfExp(test=_paid(dec), body=val, orelse=_call(abi.FUEL_OUT, [])), c)
        self.box = True
        return _loc(_call(abi.IN_ARG, [_name(BOX), c]), c)

    # -- calls

    def _args(self, args, full_first=False):
        out = []
        for i, a in enumerate(args):
            if i == 0 and full_first and isinstance(a, ast.GeneratorExp):
                out.append(self.v_comp(a, full=True))
            else:
                out.append(self.visit(a))
        return out

    def _kws(self, kws):
        for k in kws:
            k.value = self.visit(k.value)
        return kws

    def v_Call(self, e):
        f = e.func
        if isinstance(f, ast.Name):
            name = f.id
            if name in self.shadow:  # a local holding a lambda
                self.box = True
                return self.generic(e)
            plain = not any(isinstance(a, ast.Starred) for a in e.args)
            if (name in ("max", "min") and plain and len(e.args) >= 2  # not over a sequence
                    and not any(k.arg == "key" for k in e.keywords)):  # (a key may charge)
                return _loc(_call(abi.plain(name), self._args(e.args), self._kws(e.keywords)), e)
            if (name in ("any", "all") and len(e.args) == 1 and not e.keywords
                    and isinstance(e.args[0], ast.GeneratorExp)):
                return self._any_all(name, e)
            reverse_only = name == "sorted" and all(  # (a name or literal: nothing to charge or raise)
                k.arg == "reverse" and isinstance(k.value, (ast.Name, ast.Constant)) for k in e.keywords)
            if (name in _INLINE_CHARGED and plain and len(e.args) == 1 and (not e.keywords or reverse_only)
                    and self.mode == "local" and self.walrus and not isinstance(e.args[0], ast.GeneratorExp)
                    and "inline" in self.fx.fast_paths):
                return self._charged_inline(name, e)
            if getattr(e, "_races_ahead", False) and self.fx.src_fast:  # see `_nested_charge`
                return _loc(_call(abi.plain(name), self._args(e.args)), e)
            if name in CHARGING_BUILTINS:
                self.box = True
                _mark_row_key(name, e, self.num)
                args = self._args(e.args, full_first=name in _FULL)
                if name in _ONE_ARG and plain and len(args) == 1 and not e.keywords:
                    if name in _NO_POST and isinstance(e.args[0], ast.GeneratorExp):
                        # an unsized argument: the builtin charges nothing (its elements
                        # are charged as they are drawn) and checks nothing after
                        return _loc(_call(abi.plain(name), args), e)
                    return _loc(_call(abi.builtin1(name), [_name(BOX), *args]), e)
                return _loc(_call(abi.builtin(name), [_name(BOX), *args], self._kws(e.keywords)), e)
            if name == "str" and len(e.args) == 1 and not e.keywords and _is_num(e.args[0], self.num):
                return _loc(_call(abi.STR, self._args(e.args)), e)
            if name == "pow" and plain and len(e.args) == 3 and not e.keywords:
                # `pow(a, b, m)`: its work is bounded by the operands' bits (`pow_mod_cost`);
                # the builtin itself where their known bounds keep it within POW_MOD_COST
                bits = [_bits(a, self.num) for a in e.args]
                small = None not in bits and pow_mod_cost(bits[0], bits[1] + 1, bits[2]) <= POW_MOD_COST
                return _loc(_call(abi.plain("pow") if small else abi.POW_MOD, self._args(e.args)), e)
            if name in _BUILTINS or name in _CONSTS:
                return self.generic(e)
            inline = getattr(e, "_races_inline", None)
            if inline is not None and self.fx.src_fast:  # its step is charged with the source
                return self.visit(_clone(inline))
            self.box = True  # a program function
            self.fx.calls = True
            if self.fx.variants is not None and name not in self.shadow:  # (passing.py)
                f.id = self.fx.variants.callee(self.fx.scope, name, e)
            args = self._args(e.args)
            e.args = [_name(BOX), self._depth1(), *args]
            e.keywords = self._kws(e.keywords)
            return e
        if isinstance(f, ast.Attribute):
            attr = f.attr
            recv = self.visit(f.value)
            if attr == "join" and len(e.args) == 1 and not e.keywords:
                if (self.mode == "local" and self.walrus and not isinstance(e.args[0], ast.GeneratorExp)
                        and "inline" in self.fx.fast_paths):
                    return self._charged_inline("join", e, recv=recv)
                self.box = True
                arg = self._args(e.args, full_first=True)
                if getattr(e, "_races_join_free", False) and self.fx.src_fast:  # see `_bounded_join`
                    f.value, e.args = recv, arg
                    return e
                if (isinstance(e.args[0], ast.GeneratorExp) and isinstance(f.value, ast.Constant)
                        and isinstance(f.value.value, str)):
                    # `"sep".join(gen)`: nothing to charge up front (the generator charges its
                    # elements as it makes them), only the size of the text to check
                    return _loc(_call(abi.G_JOIN, [recv, *arg]), e)
                return _loc(_call(abi.method("join"), [_name(BOX), recv, *arg]), e)
            if attr == "sort":
                self.box = True
                return _loc(_call(abi.method("sort"), [_name(BOX), recv, *self._args(e.args)],
                                  self._kws(e.keywords)), e)
            if attr in _GUARDED_METHODS:
                return _loc(_call(abi.method(attr), [recv, *self._args(e.args)],
                                  self._kws(e.keywords)), e)
            f.value = recv
            e.args = self._args(e.args)
            e.keywords = self._kws(e.keywords)
            return e
        self.box = True
        return self.generic(e)

    def _charged_inline(self, name, e, recv=None):
        """`sum(x)` (also max min any all sorted list tuple set of one argument, and
        `sep.join(x)` with `recv` = sep) charging the local counter:
        `(_races_sum(t) if ((n := (len(t) if _races_type(t := x) in _races_SZ else
        _races_clen(t))) <= MAX_LEN) & ((_races_f := _races_f - n) >= 0) else
        _races_charge_fail(t, n))` — the same charge and bounds as `_races_bi1_sum`, without
        a box sync. (In a statement that needs no box, the argument cannot be a generator
        that charges as it is consumed: see `v_GeneratorExp`.) A list, tuple or set built
        from an unsized argument is checked after (`_races_g_szl`); `join` checks the text
        it would build (`_races_g_join`)."""
        self.local = True
        arg = e.args[0]
        known = _is_sized(arg, self.num, self.fx.scope.sized)  # (no type test)
        x = self.visit(arg)
        if known and isinstance(arg, ast.Name) and arg.id in self.fx.scope.short and "short" in self.fx.fast_paths:
            return self._charged_short(name, e, x, recv)
        t, n = self.fx.tmp("t"), self.fx.tmp("t")
        if known:
            size = _call(abi.LEN, [ast.NamedExpr(target=_name(t, True), value=x)])
        else:
            size = ast.IfExp(test=ast.Compare(left=_call(abi.TYPE, [ast.NamedExpr(target=_name(t, True), value=x)]),
                                              ops=[ast.In()], comparators=[_name(abi.SZ)]),
                             body=_call(abi.LEN, [_name(t)]), orelse=_call(abi.CLEN, [_name(t)]))
        fits = ast.Compare(left=ast.NamedExpr(target=_name(n, True), value=size), ops=[ast.LtE()],
                           comparators=[_const(MAX_LEN)])
        paid = _paid(_name(n))
        kws = self._kws(e.keywords)  # (`reverse=` of sorted: the only keyword taken here)
        if recv is not None:
            body = _call(abi.G_JOIN, [recv, _name(t)])
        elif name in ("sorted", "list", "tuple", "set") and known:
            body = _call(abi.plain(name), [_name(t)], kws)
        elif name in ("sorted", "list", "tuple", "set"):
            built = _call(abi.plain(name), [_name(t)], kws)
            body = ast.IfExp(test=ast.Compare(left=_call(abi.TYPE, [_name(t)]), ops=[ast.In()],
                                              comparators=[_name(abi.SZ)]),
                             body=built, orelse=_call(abi.G_SZL, [_clone(built)]))
        else:
            body = _call(abi.plain(name), [_name(t)])
        return _loc(ast.IfExp(test=ast.BinOp(left=fits, op=ast.BitAnd(), right=paid), body=body,
                              orelse=_call(abi.CHARGE_FAIL, [_name(t), _name(n)])), e)

    def _charged_short(self, name, e, x, recv):
        """`_charged_inline` over a parameter whose declared length is at most MAX_LEN
        (`ParamFacts.short`): no size test, and the name is read again instead of kept in a temporary —
        `(_races_sum(p) if (_races_f := _races_f - _races_len(p)) >= 0 else
        _races_charge_fail(p, _races_len(p)))`."""
        size = _call(abi.LEN, [_clone(x)])
        paid = _paid(size)
        if recv is not None:
            body = _call(abi.G_JOIN, [recv, _clone(x)])
        else:
            body = _call(abi.plain(name), [_clone(x)], self._kws(e.keywords))
        return _loc(ast.IfExp(test=paid, body=body,
                              orelse=_call(abi.CHARGE_FAIL, [_clone(x), _clone(size)])), e)

    def _any_all(self, name, e):
        """`any(gen)` / `all(gen)` stop early: each element consumed costs one step, its
        source ticking element by element."""
        self.box = True
        g = e.args[0]
        gen = self.v_comp(g, full=False)
        return _loc(_call(abi.builtin(name), [_name(BOX), gen]), e)
