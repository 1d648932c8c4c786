"""Syntactic questions about the input body: which builtin a call is, what a loop can
leave by, what is evaluated unconditionally, what is a literal.

They read the tree only (no inference about values: that is scope.py), and are shared by
the expression and statement rewrites.
"""

from __future__ import annotations

import ast

from racesl.types import builtins as B

_BUILTINS = frozenset(e.name for e in B.builtins())
_CONSTS = frozenset({"True", "False", "None"})
# consumers that take every element of a generator passed straight to them
_FULL = B.DRAINING_BUILTINS
_INLINE_CHARGED = B.INLINE_BUILTINS
_FRESH_CALLS = B.FRESH_BUILTINS
_FRESH_METHODS = B.FRESH_METHODS
_SMALL = 1 << 64
_LIT_MAX = 256
_PLAIN_CALLS = B.FREE_BUILTINS
_SPECIAL_ITERS = B.ITER_BUILTINS


def _lambda_key(call):
    """The `key=lambda ...` of a call, if it has one."""
    for k in call.keywords:
        if k.arg == "key" and isinstance(k.value, ast.Lambda):
            return k.value
    return None


def _is_call_to(e, names) -> bool:
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in names


def _target_names(t) -> list[str]:
    return [n.id for n in ast.walk(t) if isinstance(n, ast.Name)]


def _small_int_lit(e) -> bool:
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        e = e.operand
    return isinstance(e, ast.Constant) and type(e.value) in (int, bool) and -_SMALL < e.value < _SMALL


def _bounded_lit(e) -> bool:
    """A literal that can grow a value only by its own (small) size."""
    if isinstance(e, ast.Constant):
        v = e.value
        return not isinstance(v, (str, bytes)) or len(v) <= _LIT_MAX
    if isinstance(e, (ast.List, ast.Tuple, ast.Set)):
        return len(e.elts) <= _LIT_MAX and not any(isinstance(x, ast.Starred) for x in e.elts)
    if isinstance(e, ast.Dict):
        return len(e.keys) <= _LIT_MAX and None not in e.keys
    return False


def _static_len(e) -> int | None:
    """len() of a literal `in` right side, known now; 0 for hashed containers."""
    if isinstance(e, ast.Constant) and isinstance(e.value, (str, tuple, bytes)):
        return len(e.value)
    if isinstance(e, (ast.List, ast.Tuple)) and not any(isinstance(x, ast.Starred) for x in e.elts):
        return len(e.elts)
    if isinstance(e, (ast.Set, ast.Dict)):
        return 0
    return None


def _has_break(stmts, kind=ast.Break) -> bool:
    """A `break` (or `continue`, as `kind`) that leaves *this* loop (nested loops' bodies
    excluded, their `else` not)."""
    for s in stmts:
        if isinstance(s, kind):
            return True
        if isinstance(s, ast.If) and (_has_break(s.body, kind) or _has_break(s.orelse, kind)):
            return True
        if isinstance(s, (ast.For, ast.While)) and _has_break(s.orelse, kind):
            return True
    return False


def _has_return(stmts) -> bool:
    return any(isinstance(n, ast.Return) for s in stmts for n in ast.walk(s))


def _walk_many(nodes):
    for n in nodes:
        if n is not None:
            yield from ast.walk(n)


def _comp_nodes(c) -> list:
    """What a comprehension evaluates for each element drawn from its first source: the
    element (key and value), the conditions and the later sources."""
    nodes = [c.elt] if not isinstance(c, ast.DictComp) else [c.key, c.value]
    return nodes + [x for g in c.generators for x in g.ifs] + [g.iter for g in c.generators[1:]]


def _is_fresh(e) -> bool:
    """Whether `e` evaluates to a new object nothing else refers to."""
    if isinstance(e, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp,
                      ast.Constant, ast.JoinedStr, ast.Tuple)):
        return True
    if isinstance(e, ast.Call):
        if isinstance(e.func, ast.Name):
            return e.func.id in _FRESH_CALLS
        if isinstance(e.func, ast.Attribute):
            return e.func.attr in _FRESH_METHODS
    if isinstance(e, ast.BinOp):
        return isinstance(e.op, (ast.Add, ast.Mult))
    if isinstance(e, ast.Subscript):
        return isinstance(e.slice, ast.Slice)
    if isinstance(e, ast.IfExp):
        return _is_fresh(e.body) and _is_fresh(e.orelse)
    return False


def _special_iter(it, shadow) -> str | None:
    """'enumerate' / 'zip' / 'reversed' when `it` is a plain call of that builtin (whose
    length follows from its arguments), else None."""
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)):
        return None
    kind = it.func.id
    if kind not in _SPECIAL_ITERS or kind in shadow or any(isinstance(a, ast.Starred) for a in it.args):
        return None
    if kind == "enumerate":
        ok = (1 <= len(it.args) + len(it.keywords) <= 2 and len(it.args) >= 1
              and all(k.arg == "start" for k in it.keywords))
    elif kind == "zip":
        ok = not it.keywords
    else:
        ok = len(it.args) == 1 and not it.keywords
    return kind if ok else None


def _pure(stmts, shadow) -> bool:
    """Whether running `stmts` can charge no fuel at all (no loops, helper or charging
    calls, comprehensions, lambdas, charged `in`)."""
    for n in _walk_many(stmts):
        if isinstance(n, (ast.For, ast.While, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                          ast.GeneratorExp)):
            return False
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Name):
                if f.id in shadow:
                    return False
                if f.id in ("max", "min"):
                    if len(n.args) < 2 or any(isinstance(a, ast.Starred) for a in n.args):
                        return False
                elif f.id not in _PLAIN_CALLS:
                    return False
            elif not (isinstance(f, ast.Attribute) and f.attr not in ("join", "sort")):
                return False
        elif isinstance(n, ast.Compare):
            for op, c in zip(n.ops, n.comparators):
                if isinstance(op, (ast.In, ast.NotIn)) and _static_len(c) != 0:
                    return False
    return True


def _unconditional(roots, stop=lambda e: False):
    """The nodes of the expressions `roots` that are evaluated whenever the roots are: not
    behind `and`/`or` (but the first operand), a conditional (but its test) or a chained
    comparison (but its first pair), nor inside a lambda or comprehension; in order of
    evaluation. `stop(e)` keeps the walk out of e's children."""
    stack = list(reversed(roots))
    while stack:
        e = stack.pop()
        yield e
        if stop(e):
            continue
        if isinstance(e, ast.BoolOp):
            kids = [e.values[0]]
        elif isinstance(e, ast.IfExp):
            kids = [e.test]
        elif isinstance(e, ast.Compare):
            kids = [e.left, e.comparators[0]]
        elif isinstance(e, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            kids = []
        else:
            kids = list(ast.iter_child_nodes(e))
        stack.extend(reversed(kids))


def _literal_tests(nodes) -> list:
    """(test, length) for the `x in "literal"` / `not in` tests among `nodes`."""
    out = []
    for x in nodes:
        if isinstance(x, ast.Compare) and len(x.ops) == 1 and isinstance(x.ops[0], (ast.In, ast.NotIn)):
            n = _static_len(x.comparators[0])
            if n:
                out.append((x, n))
    return out
