"""Contract checks compiled per type: one generated Python function per type.

The search checks every guarded input and every output it keeps, and `check_value` walks
the type tree for each value (unwrap newtypes, test the shape, then one fuel-metered
predicate call per refinement per element): microseconds a value. `compile_checker(t)`
writes that walk out once, as a single Python expression specialised to `t`, with the
simple refinements inlined (`0 <= x <= 9`, `1 <= len(x) <= 20 and x.isalpha()`).

It only ever answers *yes* quickly. A `False`, or any exception, means "ask
`check_value`", which gives the verdict and the message — so a compiled checker can make a
check faster but never changes its answer, provided that whenever it says True every
predicate really holds. That is why only predicates that evaluate the same uninstrumented
as instrumented are inlined: comparisons of `it` (an Int, Str or Bool), `len(it)` and
constants, `and`/`or`/`not`, and the argument-free `str.is*` tests. Nothing in them can
charge fuel, trip a size guard or loop; every other predicate is called through the
library's own (cached, fuel-metered) predicate check.

A container type's checker measures the value first (`walk_size`, linear in its distinct
nodes): one that shares itself past MAX_WALK nodes unfolded answers False, and
`check_value`, which measures the same way, says why — instead of a walk of 2**40 nodes.
"""

from __future__ import annotations

import ast
from typing import Any, Callable

from racesl.runtime.contract import flatten
from racesl.runtime.limits import MAX_WALK
from racesl.runtime.measure import walk_size
from racesl.types.types import (
    AnyT, BoolT, DictT, IntT, ListT, Pred, SetT, StrT, TupleT, Type,
)

__all__ = ["compile_checker"]

MAX_TYPE_DEPTH = 40  # deeper types keep the generic walk
_STR_TESTS = frozenset({"isalpha", "islower", "isupper", "isdigit", "isalnum", "isspace",
                        "isascii", "isdecimal", "isnumeric", "istitle", "isidentifier"})
_CMP = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)


_CODE: dict[str, Any] = {}  # source → code object


class _Unsupported(Exception):
    pass


def compile_checker(t: Type, check: Callable[[Pred, Any], bool],
                    plain_pred: Callable[[Pred], ast.expr | None]) -> Callable[[Any], bool] | None:
    """A function `value -> bool` that is True only when `value` belongs to `t` (see the
    module docstring), or None when `t` is too deep to be worth compiling.

    `check(pred, value)` evaluates a predicate the slow, safe way; `plain_pred(pred)` is the
    predicate's uninstrumented Python expression over the name `it` (None when unknown)."""
    gen = _Gen(check, plain_pred)
    try:
        body = gen.expr(t, "v", 0)
    except _Unsupported:
        return None
    if isinstance(flatten(t)[0], (ListT, SetT, TupleT, DictT)):  # measured before it is walked
        body = f"_walk(v, {MAX_WALK}) <= {MAX_WALK} and {body}"
    src = f"def _races_check(v):\n    return {body}\n"
    code = _CODE.get(src)
    if code is None:  # compiling is most of the cost; libraries built again reuse it
        if len(_CODE) > 4096:
            _CODE.clear()
        code = _CODE[src] = compile(src, "<races-check>", "exec")
    ns: dict[str, Any] = {"__builtins__": {}, "_type": type, "_len": len, "_all": all,
                          "_int": int, "_bool": bool, "_str": str, "_list": list, "_tuple": tuple,
                          "_dict": dict, "_sets": (set, frozenset), "_chk": check, "_P": gen.preds,
                          "_walk": walk_size}
    exec(code, ns)
    return ns["_races_check"]


class _Gen:
    def __init__(self, check, plain_pred):
        self.check = check
        self.plain_pred = plain_pred
        self.preds: list[Pred] = []
        self.n = 0

    def var(self) -> str:
        self.n += 1
        return f"x{self.n}"

    def expr(self, t: Type, var: str, depth: int) -> str:
        if depth > MAX_TYPE_DEPTH:
            raise _Unsupported
        s, preds = flatten(t)
        parts: list[str] = []
        if isinstance(s, AnyT):
            pass
        elif isinstance(s, IntT):
            parts.append(f"_type({var}) is _int")
        elif isinstance(s, BoolT):
            parts.append(f"_type({var}) is _bool")
        elif isinstance(s, StrT):
            parts.append(f"_type({var}) is _str")
        elif isinstance(s, (ListT, SetT)):
            parts.append(f"_type({var}) is _list" if isinstance(s, ListT) else f"_type({var}) in _sets")
            x = self.var()
            inner = self.expr(s.elem, x, depth + 1)
            if inner != "True":
                parts.append(f"_all({inner} for {x} in {var})")
        elif isinstance(s, TupleT):
            parts.append(f"_type({var}) is _tuple and _len({var}) == {len(s.elems)}")
            for i, et in enumerate(s.elems):
                inner = self.expr(et, f"{var}[{i}]", depth + 1)
                if inner != "True":
                    parts.append(inner)
        elif isinstance(s, DictT):
            parts.append(f"_type({var}) is _dict")
            k, x = self.var(), self.var()
            ke, ve = self.expr(s.key, k, depth + 1), self.expr(s.value, x, depth + 1)
            inner = " and ".join(e for e in (ke, ve) if e != "True")
            if inner:
                parts.append(f"_all({inner} for {k}, {x} in {var}.items())")
        else:
            raise _Unsupported
        scalar = isinstance(s, (IntT, StrT, BoolT))
        for p in preds:
            parts.append(self.pred(p, var, scalar, isinstance(s, StrT)))
        return " and ".join(f"({p})" for p in parts) if parts else "True"

    def pred(self, p: Pred, var: str, scalar: bool, is_str: bool) -> str:
        e = self.plain_pred(p)
        if e is not None and _simple(e, scalar, is_str):
            target = ast.parse(var, mode="eval").body
            return ast.unparse(_Rename(target).visit(_fresh(e)))
        self.preds.append(p)
        return f"_chk(_P[{len(self.preds) - 1}], {var})"


def _fresh(e: ast.expr) -> ast.expr:
    return ast.parse(ast.unparse(e), mode="eval").body


class _Rename(ast.NodeTransformer):
    def __init__(self, target: ast.expr):
        self.target = target

    def visit_Name(self, node: ast.Name):
        if node.id == "it":
            return self.target
        if node.id == "len":
            return ast.Name("_len", ast.Load())
        return node


def _simple(e: ast.expr, scalar: bool, is_str: bool) -> bool:
    """Is `e` inside the inlinable fragment (see the module docstring)?"""
    if isinstance(e, ast.BoolOp):
        return all(_simple(v, scalar, is_str) for v in e.values)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        return _simple(e.operand, scalar, is_str)
    if isinstance(e, ast.Compare):
        return (all(isinstance(op, _CMP) for op in e.ops)
                and all(_operand(x, scalar) for x in (e.left, *e.comparators)))
    if isinstance(e, ast.Call):
        f = e.func
        return (is_str and not e.args and not e.keywords and isinstance(f, ast.Attribute)
                and f.attr in _STR_TESTS and isinstance(f.value, ast.Name) and f.value.id == "it")
    return False


def _operand(x: ast.expr, scalar: bool) -> bool:
    if isinstance(x, ast.Constant):
        return type(x.value) in (int, str, bool) and (type(x.value) is not int or abs(x.value).bit_length() < 64)
    if isinstance(x, ast.Name):
        return x.id == "it" and scalar
    if isinstance(x, ast.Call):
        return (isinstance(x.func, ast.Name) and x.func.id == "len" and len(x.args) == 1 and not x.keywords
                and isinstance(x.args[0], ast.Name) and x.args[0].id == "it")
    if isinstance(x, ast.UnaryOp) and isinstance(x.op, ast.USub):
        return isinstance(x.operand, ast.Constant) and type(x.operand.value) is int
    return False
