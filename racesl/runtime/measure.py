"""Measuring a value before one C call walks it: comparing, hashing, scanning, rendering.

CPython compares (`==`, `<`, `in`, `list.count`), hashes (`d[k]`, `set(...)`) and renders
(`repr`, `str`) a container element by element, inside one C call that no signal and no
fuel can stop. On structure that shares itself (`a = [0]`, then forty times `a = [a, a]`:
41 distinct lists, 2**40 elements unfolded) that walk never ends. The measures here count
the *unfolded* tree — what the C walk would visit — in time linear in the *distinct*
containers: each container is measured once (memo by id) and its size reused wherever it
occurs again, and the count stops as soon as it passes the limit. A container met again on
its own path (a cycle) counts one: `repr` prints `[...]` there and comparisons stop with a
RecursionError.

- `walk_size(v, limit)`: the nodes an element-wise walk visits (one a node, plus one per 8
  characters of a str);
- `render_size(v, limit, top_str)`: an upper bound on `len(repr(v))` (`str(v)` when
  `top_str` and `v` is a str); `OpaqueText` for a value whose text would show an address.

Both return something > limit as soon as the count passes `limit` (an int too wide to
render makes `render_size` pass any limit).
"""

from __future__ import annotations

from itertools import chain

from racesl.runtime.limits import MAX_INT_BITS

__all__ = ["walk_size", "render_size", "CONTAINERS", "OpaqueText"]


class OpaqueText(TypeError):
    """Raised by `render_size` for a function, iterator, generator or `rng` inside a value
    about to be rendered: CPython's text of one carries its memory address (`<zip object at
    0x7f...>`), which differs from process to process, so no body may produce it (status
    `error`; the checker refuses it where it knows the type)."""

_DICT_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))
CONTAINERS = frozenset((list, tuple, set, frozenset, dict, *_DICT_VIEWS))
_ITEMS = _DICT_VIEWS[2]
_LEAVES = frozenset((int, bool, str, float, type(None)))  # a container of only these: in bulk
_NUMS = frozenset((int, bool))
_SMALL = 8
_MEMO_ROWS = 64  # containers longer than this remember their short rows by id (shared rows)
_chain = chain.from_iterable
_FLAT_ROWS = frozenset((list, tuple, set, frozenset))
_ROWS = frozenset((list, tuple))


def _str_repr_len(s: str) -> int:
    """len(repr(s)), computed without building it for plain ASCII text."""
    if s.isascii() and s.isprintable():
        extra = s.count("\\")
        if "'" in s and '"' in s:
            extra += s.count("'")
        return len(s) + 2 + extra
    return len(repr(s))


def _int_len(x: int) -> int:
    """An upper bound on len(str(x)) (and on its octal / hex forms)."""
    return (x.bit_length() * 11 >> 5) + 3


# ----------------------------------------------------------------- unit costs


def _walk_leaf(x, limit) -> int:
    return 1 + (len(x) >> 3) if type(x) is str else 1


def _walk_bulk(xs, types, limit) -> int:
    """The walk cost of a list of leaves (their types: `types`)."""
    n = len(xs)
    if str not in types:
        return n
    if types == {str}:
        return n + (sum(map(len, xs)) >> 3)
    return sum(_walk_leaf(x, limit) for x in xs)


def _render_leaf(x, limit) -> int:
    t = type(x)
    if t is str:
        return _str_repr_len(x)
    if t is int:
        return limit + 1 if x.bit_length() > MAX_INT_BITS else _int_len(x)
    if t is bool or x is None:
        return 5
    if t is float:
        return 32
    if t is range:
        return _int_len(x.start) + _int_len(x.stop) + _int_len(x.step) + 12
    raise OpaqueText(f"a {t.__name__} has no text form (its text would show a memory address)")


def _render_bulk(xs, types, limit) -> int:
    n = len(xs)
    if types <= _NUMS:
        big = max(max(xs), -min(xs))
        if big.bit_length() > MAX_INT_BITS:
            return limit + 1
        total = n * _int_len(big)
        if total > limit:  # the bound is loose: count exactly
            total = 0
            for y in xs:
                total += _int_len(y)
                if total > limit:
                    break
        return total
    if types == {str}:
        total = sum(map(len, xs)) + 2 * n
        if total <= limit:
            for y in xs:  # escapes can make repr longer than the text
                if not (y.isascii() and y.isprintable()):
                    total += _str_repr_len(y) - len(y) - 2
        return total
    total = 0
    for y in xs:
        total += _render_leaf(y, limit)
        if total > limit:
            break
    return total


# ----------------------------------------------------------------- the unfolded walk


def _unfolded(v, limit: int, leaf, bulk, per_elem: int, overhead: int) -> int:
    """The unfolded size of `v`, each container costing `overhead + per_elem * len`, each
    leaf `leaf(x)` (a list of leaves only: `bulk`); memo by id (see the module docstring)."""
    if type(v) not in CONTAINERS:
        return leaf(v, limit)
    memo: dict[int, int] = {}  # id → unfolded size of a finished container
    open_: dict[int, tuple] = {}  # id → (own cost, container children) of one being measured
    stack = [v]
    pop, push = stack.pop, stack.extend
    while stack:
        x = stack[-1]
        k = id(x)
        if k in memo:
            pop()
            continue
        part = open_.pop(k, None)
        if part is None:  # first visit: its leaves now, its containers once they are measured
            tx = type(x)
            if tx is dict:
                elems = (*x.keys(), *x.values())
            elif tx is _ITEMS:  # (its pairs are made afresh on each pass: walk the dict's)
                elems = (*x.mapping.keys(), *x.mapping.values())
            else:
                elems = x
            n = len(elems)
            cost = overhead + per_elem * n
            kids = ()
            if n:
                types = set(map(type, elems))
                if types <= _LEAVES:
                    cost += bulk(elems, types, limit)
                else:
                    kids = []
                    rows = {} if n > _MEMO_ROWS else None  # short rows by id, in a long container
                    for y in elems:
                        ty = type(y)
                        if ty not in CONTAINERS:
                            cost += leaf(y, limit)
                        elif ((ty is tuple or ty is list) and len(y) <= _SMALL
                              and (rows is None or id(y) not in rows)
                              and (ts := set(map(type, y))) <= _LEAVES):
                            # a short row of leaves (a pair, a key): measured here, at most
                            # _SMALL steps an element of x; remembered only where x is long
                            c = overhead + per_elem * len(y) + (bulk(y, ts, limit) if y else 0)
                            if rows is not None:
                                rows[id(y)] = c
                            cost += c
                        elif rows is not None and id(y) in rows:
                            cost += rows[id(y)]  # the same row again (`[xs] * n`)
                        else:
                            kids.append(y)
                        if cost > limit:
                            return cost  # past the limit: what follows cannot bring it back
                    pending = [y for y in kids if id(y) not in memo and id(y) not in open_]
                    if pending and cost <= limit:
                        open_[k] = (cost, kids)
                        push(pending)
                        continue
        else:
            cost, kids = part
        for y in kids:
            cost += memo.get(id(y), 1)  # (not measured: an ancestor, a cycle)
        if cost > limit:
            return cost
        memo[k] = cost
        pop()
    return memo[id(v)]


def walk_size(v, limit: int) -> int:
    """The number of nodes comparing or hashing `v` element by element visits (strs and big
    ints weigh more), counted on the unfolded tree in time linear in its distinct nodes."""
    t = type(v)
    if (t is tuple or t is list) and len(v) <= _SMALL:  # the common key or pair: no memo
        total = 1 + len(v)
        for y in v:
            ty = type(y)
            if ty is str:
                total += 1 + (len(y) >> 3)
            elif ty in _LEAVES:
                total += 1
            else:
                break
        else:
            return total
    elif t in _FLAT_ROWS:
        types = set(map(type, v))
        if types <= _LEAVES:  # a row of leaves
            return 1 + len(v) + _walk_bulk(v, types, limit)
        if types <= _ROWS:  # rows (of pairs, of keys): if of leaves, counted in C
            inner = sum(map(len, v))
            if inner > limit:
                return inner
            cells = list(_chain(v))
            types = set(map(type, cells))
            if types <= _LEAVES:
                return 1 + 2 * len(v) + inner + _walk_bulk(cells, types, limit)
    return _unfolded(v, limit, _walk_leaf, _walk_bulk, 1, 1)


def render_size(v, limit: int, top_str: bool = True) -> int:
    """An upper bound on the length of `str(v)` (`repr(v)` when `top_str` is false),
    computed without rendering. Shared substructure counts once per occurrence, as `repr`
    prints it, but is measured once: `[a, a]` nested 60 deep is refused after 61 steps.
    A function or iterator inside `v` raises `OpaqueText`: `v` is about to be rendered."""
    t = type(v)
    if t is str:
        return len(v) if top_str else _str_repr_len(v)
    if (t is list or t is tuple) and v:  # the common flat row: what `_unfolded` gives, without its memo
        types = set(map(type, v))
        if types <= _LEAVES:
            return 16 + 2 * len(v) + _render_bulk(v, types, limit)
    return _unfolded(v, limit, _render_leaf, _render_bulk, 2, 16)
