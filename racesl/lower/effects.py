"""Which lowered functions may change a value they were given.

Values have value semantics in racesl: a task's prompt passes an environment the *text* of
its input, and the reward re-executes from text. The search, though, hands the same Python
object to every candidate it tries from a state, and the rewards cache parsed literals; a
body that mutates its input (`xs.append(0)`, `xs[0] = 1`, `xs += ys`, `xs.sort()`) would
change the state under the next candidate's feet. Callers give such environments a copy
(`fresh`); this module decides which those are.

The analysis over-approximates: a function "may mutate" when its body contains any
in-place operation at all (a subscript or attribute store or delete, an augmented
assignment, a call of a mutating method), or calls one that does. Copying an input that
was safe costs a fraction of a microsecond; missing a mutation corrupts tasks.
"""

from __future__ import annotations

import ast
from typing import Any

__all__ = ["mutating_functions", "fresh", "MUTATING_METHODS", "RESIZING_METHODS"]

# methods that can change how many items a list, dict or set holds (the instrumentation
# may not charge a loop over a list up front when its body calls one of these)
RESIZING_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "setdefault",
                              "update", "add", "discard", "popitem"})
# every method that changes its receiver in place
MUTATING_METHODS = RESIZING_METHODS | {"sort", "reverse", "difference_update", "intersection_update",
                                       "symmetric_difference_update"}
_FLAT = frozenset({int, str, bool})


def mutating_functions(module: ast.Module) -> frozenset[str]:
    """Names of the module's functions that may mutate any value they can reach."""
    fns = {f.name: f for f in module.body if isinstance(f, ast.FunctionDef)}
    direct: set[str] = set()
    calls: dict[str, set[str]] = {}
    for name, fn in fns.items():
        called: set[str] = set()
        for node in ast.walk(fn):
            if _mutates(node):
                direct.add(name)
            if isinstance(node, ast.Name) and node.id in fns and node.id != name:
                called.add(node.id)  # called, or passed on as a value (`key=h`)
        calls[name] = called
    out = set(direct)
    changed = True
    while changed:  # close over the call graph
        changed = False
        for name, called in calls.items():
            if name not in out and called & out:
                out.add(name)
                changed = True
    return frozenset(out)


def _mutates(node: ast.AST) -> bool:
    if isinstance(node, ast.AugAssign):
        return True  # `xs += ys` extends a list in place
    if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in MUTATING_METHODS
    return False


def fresh(v: Any) -> Any:
    """A copy of a value sharing nothing mutable with it (ints, strs, bools and tuples of
    them are shared as they are)."""
    t = type(v)
    if t in _FLAT:
        return v
    if t is list:
        return [x if type(x) in _FLAT else fresh(x) for x in v]
    if t is dict:
        return {k: (x if type(x) in _FLAT else fresh(x)) for k, x in v.items()}
    if t is tuple:
        if all(type(x) in _FLAT for x in v):
            return v
        return tuple(fresh(x) for x in v)
    if t is set:
        return set(v)  # elements of a set are hashable, so immutable here
    return v
