"""The expression rewrite `_Ex`: one expression, with its charges and guards.

The visitor itself (dispatch by node type, the context it charges in, names, assignment
targets) is here; what it does to each kind of node is in its parts: guards.py (arithmetic,
comparisons, f-strings, displays), charges.py (calls, `in`) and comprehensions.py (lambdas,
comprehensions, generators).
"""

from __future__ import annotations

import ast

from racesl.lower.instrument.build import _const, _loc, _name
from racesl.lower.instrument.charges import _Charges
from racesl.lower.instrument.comprehensions import _Comprehensions
from racesl.lower.instrument.guards import WALK, _Guards
from racesl.runtime.abi import BOX, DEPTH


class _Ex(_Guards, _Charges, _Comprehensions):
    """Rewrites one expression.

    mode "local": charges may go to the function's local counter (through `:=`); mode
    "box": every charge goes to the box. `box` / `local` record what was emitted.
    `nested`: inside a lambda or comprehension (only the box is reachable). `walrus`:
    function-scope temporaries may be bound with `:=` here. `fx`: the rewrite of the
    function (`_Fx`, statements.py)."""

    def __init__(self, fx, mode: str, nested: bool, num, shadow, walrus: bool):
        self.fx = fx
        self.mode = mode
        self.nested = nested
        self.num = num
        self.shadow = shadow
        self.walrus = walrus and not nested
        self.box = False
        self.local = False

    def child(self, *, nested=True, num=None, shadow=None) -> "_Ex":
        """A context charging only the box, without `:=`: lambdas, comprehensions
        (nested=True), a comprehension's first iterable and f-string parts (nested=False)."""
        return _Ex(self.fx, "box", nested, self.num if num is None else num,
                   self.shadow if shadow is None else shadow, False)

    def absorb(self, c: "_Ex") -> None:
        self.box |= c.box
        self.local |= c.local

    def visit(self, e):
        if e is None:
            return None
        m = getattr(self, "v_" + type(e).__name__, None)
        if hasattr(e, WALK):  # (marked by `_Guards`: a value a call will walk, measured)
            return self.walked(e, m(e) if m is not None else self.generic(e))
        return m(e) if m is not None else self.generic(e)

    def generic(self, e):
        for field, old in ast.iter_fields(e):
            if isinstance(old, list):
                setattr(e, field, [self.visit(x) if isinstance(x, ast.expr) else self.other(x)
                                   for x in old])
            elif isinstance(old, ast.expr):
                setattr(e, field, self.visit(old))
            elif isinstance(old, ast.AST):
                self.other(old)
        return e

    def other(self, x):
        if isinstance(x, ast.keyword):
            x.value = self.visit(x.value)
        return x

    # -- names

    def v_Name(self, e):
        if isinstance(e.ctx, ast.Load) and self.fx.scope.is_function(e.id, self.shadow):
            # a helper used as a value (e.g. key=helper): adapt it to the convention
            self.box = True
            self.fx.calls = True
            star = "_races_args"
            args = ast.arguments(posonlyargs=[], args=[], vararg=ast.arg(arg=star), kwonlyargs=[],
                                 kw_defaults=[], kwarg=None, defaults=[])
            body = ast.Call(func=_name(e.id), args=[_name(BOX), self._depth1(), ast.Starred(
                value=_name(star), ctx=ast.Load())], keywords=[])
            return _loc(ast.Lambda(args=args, body=body), e)
        return e

    def _depth1(self):
        return ast.BinOp(left=_name(DEPTH), op=ast.Add(), right=_const(1))

    # -- assignment targets

    def target(self, t):
        """Rewrite the expressions inside an assignment target (subscript bases/indices)."""
        if isinstance(t, (ast.Tuple, ast.List)):
            t.elts = [self.target(x) for x in t.elts]
        elif isinstance(t, ast.Starred):
            t.value = self.target(t.value)
        elif isinstance(t, (ast.Subscript, ast.Attribute)):
            t.value = self.visit(t.value)
            if isinstance(t, ast.Subscript):
                t.slice = self.key(t.slice)  # (`d[k] = v` hashes k: `_Guards.key`)
        return t
