"""Value contracts: does a Python value belong to a racesl type, and the one text form of values.

- `check_value(value, t, check)`: None when `value` has the type's shape exactly (a `bool` is
  not an `Int` and an `int` is not a `Bool`; lists are `list`, tuples are `tuple` of the right
  length, dicts are `dict`; a newtype's values are its representation's) and every predicate
  at every depth holds (`check(pred, value) -> bool` evaluates one predicate); otherwise a
  short message saying where it failed, e.g. `"element 3: 12 violates 0 <= it <= 9"`.
- `conforms(value, t)`: the shape part only (predicates ignored).
- `canonical(value)`: the value's `repr`, its one canonical text (SizeExceeded, before any
  rendering, for a container whose text would pass MAX_RENDER characters).

A value is measured before it is walked (racesl.runtime.measure: on the unfolded tree, in
time linear in its distinct nodes): a container of over MAX_WALK nodes unfolded — structure
that shares itself, `a = [a, a]` forty times — is not checked element by element but
refused, "value too large to check", a contract violation (the caller's status
"contract"); its messages show values through `_show`, bounded the same way.
- `parse_literal(text)`: a value back from its text (`ast.literal_eval` over a vetted tree:
  int, bool, str, list, tuple, dict only), raising `ValueError` otherwise.
"""

from __future__ import annotations

import ast
from typing import Any, Callable

from racesl.runtime.limits import MAX_RENDER, MAX_WALK, SizeExceeded
from racesl.runtime.measure import CONTAINERS, render_size, walk_size
from racesl.types.types import (
    AnyT, BoolT, DictT, IntT, ListT, NewT, Pred, Refined, SetT, StrT, TupleT, Type,
)

__all__ = ["check_value", "conforms", "not_a_member", "flatten", "canonical", "parse_literal", "describe_value",
           "MAX_LITERAL_CHARS", "MAX_LITERAL_DEPTH", "TOO_LARGE"]

Check = Callable[[Pred, Any], bool]

MAX_LITERAL_CHARS = 100_000
MAX_LITERAL_DEPTH = 50
_SHOW = 60
_SHOW_MAX = 100_000  # a value whose text passes this is described, not rendered
TOO_LARGE = f"value too large to check: over {MAX_WALK} nodes when unfolded"


def flatten(t: Type) -> tuple[Type, tuple[Pred, ...]]:
    """The representation shape of `t` (newtypes unwrapped) and every predicate met on the
    way (outermost first)."""
    preds: tuple[Pred, ...] = ()
    seen = 0
    while True:
        if isinstance(t, Refined):
            preds += t.preds
            t = t.base
        if isinstance(t, NewT) and seen < 100:
            seen += 1
            t = t.underlying
            continue
        return t, preds


def _show(v: Any) -> str:
    if type(v) in CONTAINERS and render_size(v, _SHOW_MAX, False) > _SHOW_MAX:
        return f"<a {type(v).__name__} of {len(v)} elements>"  # (too long to render for a message)
    r = repr(v)
    return r if len(r) <= _SHOW else r[: _SHOW - 3] + "..."


def describe_value(v: Any) -> str:
    """`"str 'ab'"`, `"bool True"`: a value's Python type name and its (shortened) text."""
    return f"{type(v).__name__} {_show(v)}"


def _shape_error(value: Any, s: Type, t: Type) -> str | None:
    """Top-level shape mismatch (no recursion), or None."""
    if isinstance(s, AnyT):
        return None
    if isinstance(s, IntT):
        ok = type(value) is int
    elif isinstance(s, BoolT):
        ok = type(value) is bool
    elif isinstance(s, StrT):
        ok = type(value) is str
    elif isinstance(s, ListT):
        ok = type(value) is list
    elif isinstance(s, SetT):
        ok = type(value) in (set, frozenset)
    elif isinstance(s, DictT):
        ok = type(value) is dict
    elif isinstance(s, TupleT):
        if type(value) is not tuple:
            ok = False
        elif len(value) != len(s.elems):
            return (f"expected {t} ({len(s.elems)} components), "
                    f"got a tuple of {len(value)}: {_show(value)}")
        else:
            ok = True
    else:  # pragma: no cover - every shape is listed above
        return f"cannot check values of type {t}"
    return None if ok else f"expected {t}, got {describe_value(value)}"


def check_value(value: Any, t: Type, check: Check) -> str | None:
    """None when `value` belongs to `t`; otherwise a short message saying where it failed
    (`TOO_LARGE` for a container too large to walk)."""
    if type(value) in CONTAINERS and walk_size(value, MAX_WALK) > MAX_WALK:
        return TOO_LARGE
    return _check(value, t, check, 0)


def _check(value: Any, t: Type, check: Check, depth: int) -> str | None:
    if depth > 200:
        return "value nested too deeply"
    s, preds = flatten(t)
    err = _shape_error(value, s, t)
    if err is not None:
        return err
    if isinstance(s, (ListT, SetT)):
        items = value if isinstance(s, ListT) else sorted(value, key=repr)
        for i, x in enumerate(items):
            e = _check(x, s.elem, check, depth + 1)
            if e is not None:
                return f"element {i}: {e}"
    elif isinstance(s, TupleT):
        for i, (x, et) in enumerate(zip(value, s.elems)):
            e = _check(x, et, check, depth + 1)
            if e is not None:
                return f"component {i}: {e}"
    elif isinstance(s, DictT):
        for k, v in value.items():
            e = _check(k, s.key, check, depth + 1)
            if e is not None:
                return f"key {_show(k)}: {e}"
            e = _check(v, s.value, check, depth + 1)
            if e is not None:
                return f"value at key {_show(k)}: {e}"
    for p in preds:
        if not check(p, value):
            return f"{_show(value)} violates {p.shown}"
    return None


def conforms(value: Any, t: Type) -> bool:
    """The shape part of `check_value`: predicates are not evaluated."""
    return check_value(value, t, lambda p, v: True) is None


def not_a_member(value: Any, t: Type, declared: str, why: str, cut: tuple[str, str] | None = None,
                 inline: str = "") -> str:
    """Why `value` is not a value of `t` in words that say what it misses (`why`:
    `check_value`'s message; `declared`: the type as the signature names it, `inline`: the
    refinement the signature writes in place, `where ...`, if any): its shape (`not an Int:
    expected Int, got str '7'`); for a value of the right shape, the refinement, named
    (`7 is an Int but not a Small (0 <= it <= 5)`) or written in place (`7 is an Int but
    outside its refinement (0 <= it <= 5)`); or a refinement check that was cut off (`cut`:
    its text and status), which counts as false but is not false."""
    from racesl.text import article
    from racesl.types.types import erase

    shown = _show(value)
    base = str(erase(t))
    # the type as it must be shown: refinements written inside it (`Tuple[Int where ...,
    # ...]`, which the declared name shows as its base) are shown, not the erased type twice
    full = str(t) if declared == base and str(flatten(t)[0]) != base else declared
    if not conforms(value, t):  # (its shape: `why` may name a refinement met first)
        shape = check_value(value, t, lambda p, v: True) or why
        return f"not {article(full)}: {shape}"
    top = f"{shown} violates "
    failed = cut[0] if cut is not None else why[len(top):] if why.startswith(top) else None
    own = failed is not None and (failed in inline or (  # the refinement written in place, at the top
        declared == base and any(failed in (p.text, p.shown) for p in flatten(t)[1])))
    if cut is not None:
        whether = "its refinement" if own else f"whether it is {article(full)}"
        return (f"{shown} is {article(base)}, but checking {whether} (`{cut[0]}`) was stopped: {cut[1]}, "
                "which counts as false")
    if own:
        return f"{shown} is {article(declared)} but outside its refinement ({failed})"
    declared = full
    if failed is not None:
        return f"{shown} is {article(base)} but not {article(declared)} ({failed})"
    return f"{shown} is {article(base)} but not {article(declared)}: {why}"


def canonical(value: Any) -> str:
    """The one text form of a value: its Python `repr`, with dict keys in sorted order
    (two equal dicts built in different orders have one text). A container whose text would
    pass MAX_RENDER characters raises SizeExceeded before anything is rendered (a value a
    body built: `Program.call` and `check_result` refuse it the same way)."""
    if type(value) in CONTAINERS and render_size(value, MAX_RENDER, False) > MAX_RENDER:
        raise SizeExceeded(f"canonical text of a {type(value).__name__} over {MAX_RENDER} characters")
    text = repr(value)
    if "{" not in text:  # no dict inside (a '{' in a string only costs the slow path)
        return text
    return _canon(value)


def _key_order(k: Any):
    return (type(k).__name__, k)


def _canon(v: Any) -> str:
    t = type(v)
    if t is dict:
        try:
            items = sorted(v.items(), key=lambda kv: _key_order(kv[0]))
        except TypeError:  # keys of mixed shapes inside tuples: order by their text
            items = sorted(v.items(), key=lambda kv: repr(kv[0]))
        return "{" + ", ".join(f"{_canon(k)}: {_canon(x)}" for k, x in items) + "}"
    if t is list:
        return "[" + ", ".join(_canon(x) for x in v) + "]"
    if t is tuple:
        if len(v) == 1:
            return f"({_canon(v[0])},)"
        return "(" + ", ".join(_canon(x) for x in v) + ")"
    return repr(v)


# ---------------------------------------------------------------- literals


def parse_literal(text: str) -> Any:
    """The value written as a Python literal in `text`: int, bool, str, list, tuple, dict,
    nested (at most MAX_LITERAL_DEPTH deep, at most MAX_LITERAL_CHARS characters).
    Raises ValueError with a short reason for anything else."""
    if not isinstance(text, str):
        raise ValueError(f"expected text, got {type(text).__name__}")
    if len(text) > MAX_LITERAL_CHARS:
        raise ValueError(f"literal too long ({len(text)} characters; at most {MAX_LITERAL_CHARS})")
    src = text.strip()
    if not src:
        raise ValueError("empty literal")
    try:
        tree = ast.parse(src, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as exc:
        msg = getattr(exc, "msg", None) or str(exc) or type(exc).__name__
        raise ValueError(f"not a literal: {msg[:160]}") from None
    _vet(tree.body)
    try:
        return ast.literal_eval(tree.body)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError) as exc:
        raise ValueError(f"not a literal: {str(exc)[:160]}") from None


def _vet(node: ast.AST) -> None:
    """Refuse any node that is not part of an int/bool/str/list/tuple/dict literal."""
    stack = [(node, 1)]
    while stack:
        n, depth = stack.pop()
        if depth > MAX_LITERAL_DEPTH:
            raise ValueError(f"literal nested too deeply (more than {MAX_LITERAL_DEPTH} levels)")
        if isinstance(n, ast.Constant):
            if type(n.value) not in (int, bool, str):
                kind = "None" if n.value is None else type(n.value).__name__
                raise ValueError(f"{kind} is not a value (only int, bool, str, list, tuple, dict)")
        elif isinstance(n, ast.UnaryOp):
            if not (isinstance(n.op, (ast.USub, ast.UAdd)) and isinstance(n.operand, ast.Constant)
                    and type(n.operand.value) is int):
                raise ValueError("only a sign before an integer is allowed in a literal")
        elif isinstance(n, (ast.List, ast.Tuple)):
            stack.extend((x, depth + 1) for x in n.elts)
        elif isinstance(n, ast.Dict):
            if any(k is None for k in n.keys):
                raise ValueError("`**` is not allowed in a literal")
            for k in n.keys:
                if isinstance(k, (ast.List, ast.Dict)):
                    raise ValueError("dict keys must be hashable (int, bool, str or tuple)")
            stack.extend((x, depth + 1) for x in n.keys)
            stack.extend((x, depth + 1) for x in n.values)
        elif isinstance(n, ast.Set):
            raise ValueError("sets are not values (use a sorted list)")
        elif isinstance(n, ast.Name):
            raise ValueError(f"name {n.id!r} is not a literal")
        elif isinstance(n, ast.Call):
            raise ValueError("calls are not literals")
        else:
            raise ValueError(f"{type(n).__name__.lower()} expression is not a literal")
