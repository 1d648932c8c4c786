"""The statement rewrite `_Fx`: one function, its prologue and its entry variant.

Simple statements charge the local counter where they can, and otherwise run with the box
synchronised around them (docs/fuel.md, "Fuel sharing"); returns write the counter back
(in entry variants, into the caller's meter). Loops are in loops.py, comprehensions charged
ahead by their statement in ahead.py, expressions in expressions.py.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from racesl.lower.instrument.ahead import _Ahead
from racesl.lower.instrument.build import (
    _assign, _box0, _call, _clone, _const, _loc, _name, _reload, _write,
)
from racesl.lower.instrument.expressions import _Ex
from racesl.lower.instrument.facts import STR, ParamFacts
from racesl.lower.instrument.guards import _mark_inner_add, small_build
from racesl.lower.instrument.loops import _Loops
from racesl.lower.instrument.passing import Variants
from racesl.lower.instrument.scope import _Scope
from racesl.runtime import abi
from racesl.runtime.abi import BOX, DEPTH, ENTRY, LOC, METER, WALL
from racesl.runtime.limits import MAX_DEPTH, MAX_LEN


class _MeterReturns(ast.NodeTransformer):
    """An entry's returns: `return v` when its body charges nothing (the meter keeps the
    whole budget: 0 steps) or the box (the meter) holds the fuel left, else `_races_r = v;
    _races_meter[0] = _races_f; return _races_r`."""

    def __init__(self, charges: bool):
        self.charges = charges

    def block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out = []
        for s in stmts:
            r = self.visit(s)
            out.extend(r if isinstance(r, list) else [r])
        return out

    def visit_Return(self, node):
        steps = getattr(node, "_races_left", None)
        if steps is None or not self.charges:
            return node
        tmp = "_races_r"
        meter = ast.Subscript(value=_name(METER), slice=_const(0), ctx=ast.Store())
        return [_assign(tmp, node.value, node),
                _loc(ast.Assign(targets=[meter], value=steps), node),
                _loc(ast.Return(value=_name(tmp)), node)]


class _Fx(_Loops, _Ahead):
    """Rewrites one function."""

    def __init__(self, fn: ast.FunctionDef, params: Mapping[str, ParamFacts], counter, funcs,
                 entry: bool = False, leaves: dict | None = None, fast_paths: frozenset[str] = frozenset(),
                 variants: Variants | None = None, trusted: bool = False):
        """`trusted`: an ordinary variant whose callers pass checked `params` (passing.py);
        `variants`: where calls ask for such variants (None: calls keep their callee)."""
        self.fn = fn
        self.fast_paths = fast_paths  # the fast paths this rewrite may take (rewrite.FAST_PATHS)
        self.entry = entry
        self.leaves = leaves or {}
        self.variants = variants
        self.scope = _Scope(fn, params, funcs, entry or trusted,
                            frozenset(k for k, (_, _, harmless) in self.leaves.items() if harmless),
                            variants.keeps if variants is not None else frozenset(),
                            variants.rowsafe if variants is not None else frozenset())
        self.counter = counter
        self.calls = False  # calls a program function (so its depth must be checked)
        self.refund = None  # inside a precharged loop that may exit early: the refund stmt
        self.src_fast = True  # building the charged-ahead copy of a statement (`_hoist_source`)

    def tmp(self, kind: str) -> str:
        return f"_races_{kind}{next(self.counter)}"

    def ex(self, mode: str) -> _Ex:
        return _Ex(self, mode, False, self.scope.num, self.scope.locals, True)

    def run(self) -> ast.FunctionDef:
        fn = self.fn
        if fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs or fn.args.defaults or fn.decorator_list:
            raise ValueError(f"{fn.name}: only plain positional parameters are supported")
        if self.entry:
            return self._run_entry()
        ref = fn
        body = self.block(fn.body, fast=True)
        empty = ast.Compare(left=_name(LOC), ops=[ast.Lt()], comparators=[_const(0)])
        deep = ast.Compare(left=_name(DEPTH), ops=[ast.Gt()], comparators=[_const(MAX_DEPTH)])
        prologue = [
            _assign(LOC, ast.BinOp(left=_box0(), op=ast.Sub(), right=_const(1)), ref),
            _loc(ast.If(  # a function that calls none cannot nest deeper: skip the depth test
                test=ast.BoolOp(op=ast.Or(), values=[empty, deep]) if self.calls else empty,
                body=[ast.Expr(value=_call(abi.ENTRY_FAIL, [_name(LOC), _name(DEPTH)]))],
                orelse=[]), ref),
        ]
        end = fn.body[-1] if fn.body else ref
        tail = [] if isinstance(end, ast.Return) else [_write(end)]
        fn.body = prologue + body + tail
        fn.args.args = [ast.arg(arg=BOX), ast.arg(arg=DEPTH), *fn.args.args]
        return fn

    def _run_entry(self) -> ast.FunctionDef:
        """`def _races_entry__f(*params, _races_wall=None, _races_f=0,
        _races_meter=None) -> value`: the same body called from outside, without a box
        unless the body needs one, with no depth test, and with the fuel left in
        `_races_meter[0]` when it returns. `Program.function` gives each caller a copy
        of the function whose defaults hold its wall limit, budget and meter, so a call
        has the body's own signature: no extra argument, no result tuple. No watchdog
        session open sends it through `_races_enter_slow` (which runs the ordinary function,
        opening a one-call session when it can)."""
        fn = self.fn
        ref = fn
        params = [a.arg for a in fn.args.args]
        body = self.block(fn.body, fast=True)
        end = fn.body[-1] if fn.body else ref
        tail = [] if isinstance(end, ast.Return) else self._entry_return(_const(None), False, end)
        body = body + tail
        uses = {n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name)}
        charges = BOX in uses or LOC in uses
        # Only loops, comprehensions and calls can run for long (all charge the box, but
        # loops): a body without them runs a number of bytecodes bounded by its size over
        # size-guarded values, which a session could only interrupt between bytecodes anyway
        loops = BOX in uses or any(isinstance(n, (ast.For, ast.While)) for s in body for n in ast.walk(s))
        prologue = []
        if loops:
            none = ast.UnaryOp(op=ast.Not(), operand=ast.Attribute(value=_name(abi.WATCHDOG), attr="depth",
                                                                   ctx=ast.Load()))
            prologue.append(_loc(ast.If(
                test=none,
                body=[ast.Return(value=_call(abi.ENTER_SLOW, [
                    _name(fn.name), _name(WALL), _name(LOC), _name(METER), *map(_name, params)]))],
                orelse=[]), ref))
        if BOX in uses:  # the caller's meter serves as the box (no list to build a call);
            # the watchdog reads an entry's wall limit from `_races_wall`, not from its box
            prologue.append(_assign(BOX, _name(METER), ref))
        if DEPTH in uses:
            prologue.append(_assign(DEPTH, _const(0), ref))
        fn.body = _MeterReturns(charges).block(prologue + body)
        # the counter is the budget parameter itself (a copy's default: its budget)
        fn.args.args = [*fn.args.args, ast.arg(arg=WALL), ast.arg(arg=LOC), ast.arg(arg=METER)]
        fn.args.defaults = [_const(None), _const(0), _const(None)]
        fn.name = ENTRY + fn.name
        return fn

    def _entry_return(self, value, via_box: bool, ref) -> list[ast.stmt]:
        """`return value` that also reports the fuel left (see `_MeterReturns`): the value is
        evaluated first, then the counter read. Where the box is in use it is the meter,
        which already holds it."""
        ret = _loc(ast.Return(value=value), ref)
        if not via_box:
            ret._races_left = _name(LOC)
        return [ret]

    def block(self, stmts, fast: bool) -> list[ast.stmt]:
        out = []
        for s in stmts:
            out.extend(self.stmt(s, fast))
        return out or [_loc(ast.Pass(), stmts[0] if stmts else self.fn)]

    def stmt(self, s, fast: bool) -> list[ast.stmt]:
        m = getattr(self, "s_" + type(s).__name__, None)
        if m is None:
            raise ValueError(f"line {getattr(s, 'lineno', '?')}: statement {type(s).__name__} "
                             "is outside the body subset")
        return m(s, fast)

    # -- simple statements: try local charges, fall back to the box with a sync

    def _synced(self, s, build):
        """`build(copy_of_s, ex) -> stmts`; wrapped in a box sync when anything inside
        charges the box."""
        ex = self.ex("local")
        out = build(_clone(s), ex)
        if not ex.box:
            return out
        hoisted = self._hoist_source(s, lambda: build(_clone(s), self.ex("box")),
                                     lambda out: [_write(s), *out, _reload(s)])
        if hoisted is not None:
            return hoisted
        ex = self.ex("box")
        out = build(_clone(s), ex)
        return [_write(s), *out, _reload(s)]

    def s_Expr(self, s, fast):
        def build(s, ex):
            s.value = ex.visit(s.value)
            return [s]
        return self._synced(s, build)

    def s_Pass(self, s, fast):
        return [s]

    s_Continue = s_Pass

    def s_Break(self, s, fast):
        return [*self._refund(s), s]

    def _refund(self, ref) -> list[ast.stmt]:
        return [_clone(self.refund)] if self.refund is not None else []

    def s_Assign(self, s, fast):
        def build(s, ex):
            pre, post = [], []
            for t in s.targets:
                for x in ast.walk(t):
                    if isinstance(x, ast.Subscript) and isinstance(x.slice, ast.Slice):
                        if not isinstance(x.value, ast.Name):  # hoist the base once
                            tmp = self.tmp("t")
                            pre.append(_assign(tmp, ex.visit(x.value), s))
                            x.value = _name(tmp)
                        post.append(_loc(ast.Expr(value=_call(abi.G_SZL, [_name(x.value.id)])), s))
            s.targets = [ex.target(t) for t in s.targets]
            s.value = ex.visit(s.value)
            return [*pre, s, *post]
        return self._synced(s, build)

    def s_AnnAssign(self, s, fast):
        if s.value is None:
            return []
        return self.s_Assign(_loc(ast.Assign(targets=[s.target], value=s.value), s), fast)

    def s_AugAssign(self, s, fast):
        def build(s, ex):
            t = s.target
            load = _clone(t)
            load.ctx = ast.Load()
            guard = ex.guard_for(s.op, load, s.value, inplace=True)
            if guard is None:
                s.target = ex.target(t)
                s.value = ex.visit(s.value)
                return [s]
            if isinstance(t, ast.Name):
                return self._aug_name(s, t.id, guard, ex)
            if isinstance(t, ast.Subscript):
                return self._aug_subscript(s, t, guard, ex)
            raise ValueError(f"line {s.lineno}: unsupported augmented assignment target")
        return self._synced(s, build)

    def _aug_name(self, s, x, guard, ex):
        if guard == abi.G_IADD and small_build(s.value, ex.num, ex.fx.scope.lens, MAX_LEN):
            _mark_inner_add(s.value)
        value = ex.visit(s.value)
        if guard == abi.G_IADD:
            # a str is immutable: `x += v` is `x = x + v` (CPython appends in place), checked
            # after; anything else (an int, a list) goes through the guard
            aug = _loc(ast.AugAssign(target=_name(x, True), op=ast.Add(), value=_clone(value)), s)
            big = _loc(ast.If(test=ast.Compare(left=_call(abi.LEN, [_name(x)]), ops=[ast.Gt()],
                                               comparators=[_const(MAX_LEN)]),
                              body=[ast.Expr(value=_call(abi.G_POST, [_name(x)]))], orelse=[]), s)
            if x + STR in ex.num:  # known to hold a str
                return [aug, big]
            other = _loc(ast.Assign(targets=[_name(x, True)], value=_call(guard, [_name(x), value])), s)
            return [_loc(ast.If(test=ex._is_type(_name(x), abi.STR), body=[aug, big],
                                orelse=[other]), s)]
        if guard in (abi.G_IMUL, abi.G_MOD):
            new = ex.guarded(guard, s.op, _name(x), value, s)
        else:
            new = _call(guard, [_name(x), value])
        return [_loc(ast.Assign(targets=[_name(x, True)], value=new), s)]

    def _aug_subscript(self, s, t, guard, ex):
        pre = []
        base = self.tmp("t")
        pre.append(_assign(base, ex.visit(t.value), s))
        if isinstance(t.slice, ast.Slice):
            parts = {}
            for field in ("lower", "upper", "step"):
                part = getattr(t.slice, field)
                if part is not None:
                    name = self.tmp("t")
                    pre.append(_assign(name, ex.visit(part), s))
                    parts[field] = _name(name)

            def index():
                return ast.Slice(**{f: _clone(parts.get(f)) for f in ("lower", "upper", "step")})
        else:
            idx = self.tmp("t")
            pre.append(_assign(idx, ex.key(t.slice), s))  # (hashed: `_Guards.key`)

            def index():
                return _name(idx)
        value = _call(guard, [ast.Subscript(value=_name(base), slice=index(), ctx=ast.Load()),
                              ex.visit(s.value)])
        store = ast.Subscript(value=_name(base), slice=index(), ctx=ast.Store())
        post = []
        if isinstance(t.slice, ast.Slice):
            post.append(_loc(ast.Expr(value=_call(abi.G_SZL, [_name(base)])), s))
        return [*pre, _loc(ast.Assign(targets=[store], value=value), s), *post]

    def s_Assert(self, s, fast):
        def build(s, ex):
            s.test = ex.visit(s.test)
            if s.msg is not None:  # rendered when the test fails: its text bounded first
                s.msg = _loc(_call(abi.G_FV, [ex.visit(s.msg)]), s.msg)
            return [s]
        return self._synced(s, build)

    def s_Return(self, s, fast):
        refund = self._refund(s)
        value = s.value if s.value is not None else _loc(_const(None), s)
        ex = self.ex("local")
        v = ex.visit(_clone(value))
        if ex.box:
            def wrap(v):
                if self.entry:
                    if not any(isinstance(x, ast.Name) and x.id == BOX for x in ast.walk(v)):
                        return self._entry_return(v, False, s)  # a charged-ahead copy: the counter is the truth
                    return [_write(s), *self._entry_return(v, True, s)]
                return [_write(s), _loc(ast.Return(value=v), s)]
            hoisted = self._hoist_source(s, lambda: self.ex("box").visit(_clone(value)), wrap)
            if hoisted is not None:
                return [*refund, *hoisted]
            ex = self.ex("box")
            v = ex.visit(_clone(value))
            return [*refund, *wrap(v)]
        if self.entry:
            return [*refund, *self._entry_return(v, False, s)]
        if ex.local:
            tmp = "_races_r"
            return [_assign(tmp, v, s), *refund, _write(s), _loc(ast.Return(value=_name(tmp)), s)]
        return [*refund, _write(s), _loc(ast.Return(value=v), s)]

    def _expr_hoisted(self, e, ref, kind: str):
        """(statements, expression) evaluating `e` once; statements sync the box if needed."""
        ex = self.ex("local")
        v = ex.visit(_clone(e))
        if not ex.box:
            return [], v
        ex = self.ex("box")
        v = ex.visit(_clone(e))
        tmp = self.tmp(kind)
        return [_write(ref), _assign(tmp, v, ref), _reload(ref)], _name(tmp)

    def s_If(self, s, fast):
        pre, test = self._expr_hoisted(s.test, s, "c")
        s.test = test
        s.body = self.block(s.body, fast)
        s.orelse = self.block(s.orelse, fast) if s.orelse else []
        return [*pre, s]
