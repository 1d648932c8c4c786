"""Leaf functions: a body that is one `return E` calling no program function.

A call of one costs its one step and E, so a comprehension charged ahead (ahead.py) can pay
the step with its elements and evaluate E in place; a leaf that calls only builtins and
non-resizing methods cannot change a list's length (`_Scope.list_ok`).
"""

from __future__ import annotations

import ast

from racesl.lower.effects import RESIZING_METHODS
from racesl.lower.instrument.build import _clone
from racesl.lower.instrument.syntax import _BUILTINS


def _leaf_functions(fns, funcs) -> dict:
    """name → (parameters, expression, harmless) of the functions whose body is one
    `return E` with no call of a program function, no comprehension, lambda or `:=` in E: a
    call of one costs its one step and E, so a charged-ahead comprehension can pay the step
    with its elements and evaluate E in place (`_Fx._inline_sites`). `harmless`: E calls
    builtins and non-resizing methods only, so a call cannot change a list's length (see
    `_Scope.list_ok`). A plain copy, taken before any function is rewritten."""
    out = {}
    for fn in fns:
        body = fn.body[1:] if fn.body and _is_docstring(fn.body[0]) else fn.body
        if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
            continue
        e = body[0].value
        if any(isinstance(n, _NOT_LEAF) or (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                                            and n.func.id in funcs) for n in ast.walk(e)):
            continue
        a = fn.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
            continue
        # harmless: calls only builtins, and no method that resizes (so no list changes length)
        harmless = all(not isinstance(n, ast.Call) or (isinstance(n.func, ast.Name) and n.func.id in _BUILTINS)
                       or (isinstance(n.func, ast.Attribute) and n.func.attr not in RESIZING_METHODS)
                       for n in ast.walk(e))
        out[fn.name] = (tuple(x.arg for x in a.args), _clone(e), harmless)
    return out


_NOT_LEAF = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.NamedExpr,
             ast.Yield, ast.YieldFrom, ast.Await)


def _is_docstring(s) -> bool:
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)


class _Substitute(ast.NodeTransformer):
    """A leaf function's expression with its parameters replaced by the call's arguments
    (names or constants: evaluating them again, or not at all, changes nothing), every node
    located at the call."""

    def __init__(self, args: dict, ref):
        self.args, self.ref = args, ref

    def visit_Name(self, n):
        arg = self.args.get(n.id)
        return ast.copy_location(_clone(arg), self.ref) if arg is not None else ast.copy_location(n, self.ref)

    def generic_visit(self, node):
        super().generic_visit(node)
        return ast.copy_location(node, self.ref) if hasattr(node, "lineno") else node
