"""How big a type may be, and how wide a refinement's constants: bounds the checker applies
before anything walks a type recursively (`str`, `erase`, samplers, the solver, the
runtime's contract checks, `repr` as a cache key), each measured here without recursion.

One declaration is bounded by the parser (brackets 64 deep, 20,000 tokens); these bound
what declarations build together through aliases and newtypes:

- `chain_depths`: how many declarations resolving one passes through (`type T2 = T1`, ...);
- `measure`: a resolved type's nesting depth and the length of its text written out in
  full (aliases and newtypes expanded; `Tuple[T, T]` counts T twice, measured once);
- `wide_constants`: int literals in a refinement wider than the runtime's Int bound, which
  nothing downstream (the solver, messages, records) could turn into decimal text.
"""

from __future__ import annotations

import attrs

from racesl.syntax import ast as A
from racesl.types import types as T

MAX_TYPE_DEPTH = 64  # constructors and newtypes nested in one type, aliases expanded
MAX_CHAIN = 64  # declarations one type declaration resolves through
MAX_TYPE_SIZE = 1_000_000  # characters of a type's text with aliases and newtypes expanded
MAX_CONST_BITS = 8_192  # = racesl.runtime.limits.MAX_INT_BITS (tests/types/test_limits.py)


@attrs.frozen
class Measure:
    depth: int  # List[List[Int]]: 3; a newtype is one level over its representation
    size: int  # characters of the text, every name expanded


def _children(t) -> tuple:
    if isinstance(t, (T.ListT, T.SetT)):
        return (t.elem,)
    if isinstance(t, T.TupleT):
        return t.elems
    if isinstance(t, T.DictT):
        return (t.key, t.value)
    if isinstance(t, T.NewT):
        return (t.underlying,)
    if isinstance(t, T.Refined):
        return (t.base,)
    return ()


def _own_size(t) -> int:
    if isinstance(t, T.TupleT):
        return 7 + 2 * max(0, len(t.elems) - 1)
    if isinstance(t, T.NewT):
        return len(t.name) + 2
    if isinstance(t, T.Refined):
        return 7 + sum(len(p.text) + 5 for p in t.preds)
    return {T.ListT: 6, T.SetT: 5, T.DictT: 8, T.BoolT: 4}.get(type(t), 3)


def measure(t: T.Type) -> Measure:
    """Depth and written-out size of `t`, each shared part measured once (post-order over
    the DAG, memo by identity, no recursion)."""
    memo: dict[int, tuple[int, int]] = {}
    stack = [(t, False)]
    while stack:
        cur, ready = stack.pop()
        if id(cur) in memo:
            continue
        kids = _children(cur)
        if not ready:
            stack.append((cur, True))
            stack.extend((k, False) for k in kids if id(k) not in memo)
            continue
        depth = max((memo[id(k)][0] for k in kids), default=0)
        size = _own_size(cur) + sum(memo[id(k)][1] for k in kids)
        memo[id(cur)] = (depth if isinstance(cur, T.Refined) else depth + 1, size)
    return Measure(*memo[id(t)])


def too_big(t: T.Type) -> str | None:
    """What is wrong with the size of `t`, in words, or None when it is within the bounds."""
    m = measure(t)
    if m.depth > MAX_TYPE_DEPTH:
        return f"this type nests {m.depth} levels deep (aliases and newtypes expanded); the limit is {MAX_TYPE_DEPTH}"
    if m.size > MAX_TYPE_SIZE:
        return (f"this type is {m.size:,} characters long written out (aliases and newtypes expanded); "
                f"the limit is {MAX_TYPE_SIZE:,}")
    return None


def type_names(te: A.TypeExpr) -> list[str]:
    """The names a type expression refers to (`List[Graph]`: List, Graph), without recursion."""
    out, stack = [], [te]
    while stack:
        cur = stack.pop()
        out.append(cur.name)
        stack.extend(cur.args)
    return out


def chain_depths(decls: dict[str, A.TypeDecl]) -> dict[str, int]:
    """For each declaration of one module, how many declarations resolving it passes through
    (itself included): 1 + the deepest one it names. A name that closes a cycle counts
    nothing (the checker reports the cycle). Depth-first without recursion, in the order of
    `decls`."""
    depth: dict[str, int] = {}
    open_: set[str] = set()
    for root in decls:
        if root in depth:
            continue
        stack = [(root, iter(type_names(decls[root].type)))]
        open_.add(root)
        while stack:
            name, refs = stack[-1]
            for r in refs:
                if r in decls and r not in depth and r not in open_:
                    open_.add(r)
                    stack.append((r, iter(type_names(decls[r].type))))
                    break
            else:
                stack.pop()
                open_.discard(name)
                depth[name] = 1 + max((depth.get(r, 0) for r in type_names(decls[name].type) if r in decls),
                                      default=0)
    return depth


def wide_constants(e: A.Expr) -> list[A.Const]:
    """The int literals of `e` wider than MAX_CONST_BITS."""
    return [n for n in A.walk(e) if isinstance(n, A.Const) and type(n.value) is int
            and n.value.bit_length() > MAX_CONST_BITS]
