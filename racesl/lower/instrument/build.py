"""Building the nodes the rewrite emits: copies, names, calls, charges, box syncs.

Everything here makes new `ast` nodes and decides nothing: what to emit is the business of
the expression and statement rewrites (expressions.py, statements.py).
"""

from __future__ import annotations

import ast

from racesl.runtime import abi
from racesl.runtime.abi import BOX, LOC


def _clone(x):
    """A deep copy of an AST (node attributes, our `_races_*` marks included). Several times
    faster than `copy.deepcopy`, which was most of the lowering time: no memo, no reduce
    protocol; values that are not nodes or lists (names, constants) are immutable here."""
    if isinstance(x, list):
        return [_clone(v) for v in x]
    if not isinstance(x, ast.AST):
        return x
    new = x.__class__.__new__(x.__class__)
    d = new.__dict__
    for k, v in x.__dict__.items():
        d[k] = _clone(v) if isinstance(v, (ast.AST, list)) else v
    return new


def _name(ident: str, store: bool = False) -> ast.Name:
    return ast.Name(id=ident, ctx=ast.Store() if store else ast.Load())


def _call(fn: str, args, keywords=()) -> ast.Call:
    return ast.Call(func=_name(fn), args=list(args), keywords=list(keywords))


def _const(v) -> ast.Constant:
    return ast.Constant(value=v)


def _loc(node, ref):
    """Give `node` the location of `ref` (children without one inherit it later)."""
    for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        if hasattr(ref, a):
            setattr(node, a, getattr(ref, a))
    return node


def _box0(store: bool = False) -> ast.Subscript:
    return ast.Subscript(value=_name(BOX), slice=_const(0), ctx=ast.Store() if store else ast.Load())


def _write(ref) -> ast.stmt:  # box[0] = _races_f
    return _loc(ast.Assign(targets=[_box0(True)], value=_name(LOC)), ref)


def _reload(ref) -> ast.stmt:  # _races_f = box[0]
    return _loc(ast.Assign(targets=[_name(LOC, True)], value=_box0()), ref)


def _assign(ident: str, value, ref) -> ast.stmt:
    return _loc(ast.Assign(targets=[_name(ident, True)], value=value), ref)


def _tick(ref) -> list[ast.stmt]:
    """`if not _races_f: raise FuelOut` / `_races_f -= 1`: one step."""
    return [
        _loc(ast.If(test=ast.UnaryOp(op=ast.Not(), operand=_name(LOC)),
                    body=[ast.Raise(exc=_name(abi.FUEL_OUT_ERROR), cause=None)], orelse=[]), ref),
        _loc(ast.AugAssign(target=_name(LOC, True), op=ast.Sub(), value=_const(1)), ref),
    ]


def _paid(cost) -> ast.expr:
    """`(_races_f := _races_f - cost) >= 0`: take `cost` from the local counter and say
    whether it covered it, in one expression."""
    return ast.Compare(left=ast.NamedExpr(target=_name(LOC, True),
                                          value=ast.BinOp(left=_name(LOC), op=ast.Sub(), right=cost)),
                       ops=[ast.GtE()], comparators=[_const(0)])


def _len_stmt(n: str, x, list_ok: bool, ref) -> ast.stmt:
    """`n = len(x)`, or infinity when `x` has no length (iterators, generators; a list whose
    length the loop body might change; a range too long to count):

        try:
            n = _races_len(x)       # or: ... if _races_type(x) is not _races_list else inf
        except _races_LEN_ERRORS:   # (TypeError, OverflowError); zero-cost on 3.11
            n = _races_INF
    """
    size = _call(abi.LEN, [_clone(x)])
    if not list_ok:
        size = ast.IfExp(test=ast.Compare(left=_call(abi.TYPE, [_clone(x)]), ops=[ast.IsNot()],
                                          comparators=[_name(abi.LIST)]),
                         body=size, orelse=_name(abi.INF))
    return _loc(ast.Try(body=[_assign(n, size, ref)],
                        handlers=[ast.ExceptHandler(type=_name(abi.LEN_ERRORS), name=None,
                                                    body=[_assign(n, _name(abi.INF), ref)])],
                        orelse=[], finalbody=[]), ref)


def _invariant_len(m: str, n: str, x, ref) -> ast.stmt:
    """`m = len(x)` for an inner `range` the same for every one of `n` rows
    (`_Fx._invariant_range`), evaluated once ahead, and only when there are rows: where x
    cannot be evaluated (an error, or a range too long to count) m is infinity, and the copy
    that ticks evaluates it row by row, as the body would.

        try:
            m = _races_len(x) if n else 0
        except _races_Exception:
            m = _races_INF
    """
    size = ast.IfExp(test=_name(n), body=_call(abi.LEN, [_clone(x)]), orelse=_const(0))
    return _loc(ast.Try(body=[_assign(m, size, ref)],
                        handlers=[ast.ExceptHandler(type=_name(abi.EXCEPTION), name=None,
                                                    body=[_assign(m, _name(abi.INF), ref)])],
                        orelse=[], finalbody=[]), ref)
