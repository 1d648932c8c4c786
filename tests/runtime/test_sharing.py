"""Structures that share themselves (issue 17): `a = [0]`, then forty times `a = [a, a]`, is
41 small lists in memory but 2**40 elements when walked. Every C entry point that compares,
hashes, scans or renders a value measures it first (racesl.runtime.measure, linear in the
distinct nodes): each operation below on such a value is refused with status "size" within
the wall limit, in-process and under `--untrusted`; contract checks of such a result report
a violation ("value too large to check") without walking it; and ordinary values still get
exactly CPython's answers."""

from __future__ import annotations

import time

import pytest

from racesl.library import load
from racesl.runtime.contract import TOO_LARGE, canonical, check_value, conforms
from racesl.runtime.guards import g_deep, g_in, render_size, walk_size
from racesl.runtime.limits import MAX_WALK, SizeExceeded
from racesl.types import types as T

from .rtutil import plain, run

DEPTH = 40
WALL = 2.0

# One env per operation: `x` is the depth; `dag(x)` / `dag_t(x)` / `twin(x)` build lists or
# tuples that share themselves x levels deep (a twin: an equal one built apart, so that no
# identity shortcut saves CPython's walk).
HELPERS = '''
def dag(n):
    a = [0]
    for i in range(n):
        a = [a, a]
    return a

def dag_t(n):
    t = (0,)
    for i in range(n):
        t = (t, t)
    return t
'''

OPS = {
    # scans and comparisons inside builtins and methods
    "count": "return [dag(x), dag(x)].count(dag(x))",
    "index": "return [1, dag(x)].index(dag(x))",
    "tuple_count": "return (dag_t(x), 1).count(dag_t(x))",
    "in_list": "return int(dag(x) in [dag(x)])",
    "not_in_list": "return int(dag(x) not in [1, dag(x)])",
    # a small x against many twins: 2**16 nodes each, 100,000 times (x itself passes)
    "in_many": "return int(dag(15) in [dag(15)] * 100000)",
    "count_many": "return ([dag(15)] * 100000).count(dag(15))",
    "sorted": "return len(sorted([dag(x), dag(x)]))",
    "sorted_key": "return len(sorted([1, 2], key=lambda v: dag_t(x)))",
    "sorted_gen": "return len(sorted(v for v in [dag(x), dag(x)]))",
    "max": "return len(max([dag(x), dag(x)]))",
    "min2": "return len(min(dag(x), dag(x)))",
    "max_key": "return max([1, 2], key=lambda v: dag(x))",
    "sort": "xs = [dag(x), dag(x)]\n    xs.sort()\n    return len(xs)",
    # hashing
    "dict_get": "return len({1: 2}.get(dag_t(x), []))",
    "dict_pop": "return {1: 2}.pop(dag_t(x), 0)",
    "setdefault": "d = {1: 2}\n    return len(d.setdefault(dag_t(x), []))",
    "subscript": "d = {1: 2}\n    return d[dag_t(x)]",
    "subscript_pair": "d = {1: 2}\n    return d[1, dag_t(x)]",
    "store": "d = {1: 2}\n    d[dag_t(x)] = 3\n    return len(d)",
    "aug_store": "d = {1: 2}\n    d[dag_t(x)] += 3\n    return len(d)",
    "in_dict": "return int(dag_t(x) in {1: 2})",
    "set": "return len(set([dag_t(x)]))",
    "set_zip": "return len(set(zip([dag_t(x)], [1])))",
    "dict_call": "return len(dict([(dag_t(x), 1)]))",
    "set_display": "return len({dag_t(x)})",
    "dict_display": "return len({dag_t(x): 1})",
    "set_comp": "return len({v for v in [dag_t(x)]})",
    "dict_comp": "return len({v: 1 for v in [dag_t(x)]})",
    "view_union": "d = {1: 2}\n    return len(d.keys() | [dag_t(x)])",
    "eq": "return int(dag(x) == dag(x))",
    "lt": "return int(dag(x) < dag(x))",
    # rendering
    "str": "return len(str(dag(x)))",
    "fstring": 'return len(f"{dag(x)}")',
    "fstring_repr": 'return len(f"{dag(x)!r:>5}")',
    "assert_msg": "assert x < 0, dag(x)\n    return 0",
    "assert_fmsg": 'assert x < 0, f"{dag(x)}"\n    return 0',
}


def module(ops) -> str:
    envs = "".join(f'\nenv op_{name}(x: Int) -> Int:\n    """Walk a shared structure: {name}."""\n    {body}\n'
                   for name, body in ops.items())
    return "module sharing\n" + HELPERS + envs + '''
env shared_result(x: Int) -> List[List[List[Int]]]:
    """Return a list of lists that share themselves."""
    row = [0] * 1000
    rows = [row] * 1000
    return [rows] * 1000

env shared_nested(x: Int) -> List[List[Int]]:
    """Return a list that shares itself."""
    return dag(x)
'''


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    d = tmp_path_factory.mktemp("sharing")
    p = d / "sharing.races"
    p.write_text(module(OPS), encoding="utf-8")
    return load([p])


def timed(fn):
    t0 = time.monotonic()
    out = fn()
    return out, time.monotonic() - t0


@pytest.mark.parametrize("op", sorted(OPS))
def test_each_walk_of_a_shared_structure_is_refused_in_process(lib, op):
    r, took = timed(lambda: lib.run(lib.envs[f"sharing.op_{op}"], DEPTH, fuel=10**6, wall=WALL))
    assert r.status == "size", r
    assert took < WALL, f"{op}: {took:.2f} s"


@pytest.mark.parametrize("op", ["count", "in_list", "sorted", "dict_get", "subscript", "set", "str",
                                "assert_msg"])
def test_small_depths_give_cpythons_answers(lib, op):
    """The same bodies, 3 levels deep: no refusal, and what CPython computes."""
    env = lib.envs[f"sharing.op_{op}"]
    r = lib.run(env, 3, fuel=10**6)
    src = HELPERS
    src += f"def f(x):\n    {OPS[op]}\n"
    ns = plain(src)
    try:
        want = ("ok", ns["f"](3))
    except AssertionError:
        want = ("assert", None)
    except KeyError:
        want = ("error", None)
    assert (r.status, r.value) == want, r


def test_contract_checks_of_shared_results_do_not_walk_them(lib):
    """A result of 10**9 ints in 1,001 distinct lists, or 2**40 in 41: refused (`size`, by
    the result check) or, where it reaches the contract check, measured there first."""
    r, took = timed(lambda: lib.run(lib.envs["sharing.shared_result"], 0, fuel=10**6, wall=WALL))
    assert r.status == "size" or (r.status, r.detail) == ("contract", TOO_LARGE), r
    assert took < WALL
    r, took = timed(lambda: lib.run(lib.envs["sharing.shared_nested"], DEPTH, fuel=10**6, wall=WALL))
    assert r.status == "size" or (r.status, r.detail) == ("contract", TOO_LARGE), r
    assert took < WALL
    # (the result is refused before its contract check, `check_result`; the check itself:
    # `test_contract_check_of_a_shared_value`) rendering such a value is refused at once
    with pytest.raises(SizeExceeded):
        canonical(chain(DEPTH))


def test_untrusted_workers_refuse_them_too(lib):
    from racesl.sandbox_runner import SandboxRunner

    with SandboxRunner(lib) as sb:
        for op in ("count", "dict_get", "set", "sorted_key", "assert_msg", "subscript"):
            r, took = timed(lambda op=op: sb.run(lib.envs[f"sharing.op_{op}"], DEPTH, fuel=10**6, wall=WALL))
            assert r.status == "size", (op, r)
            assert took < WALL + 1, f"{op}: {took:.2f} s"
        r = sb.run(lib.envs["sharing.op_count"], 3, fuel=10**6, wall=WALL)
        assert (r.status, r.value) == ("ok", 2)


# ---------------------------------------------------------------- the measures themselves


def chain(n, make=lambda a: [a, a]):
    a = [0]
    for _ in range(n):
        a = make(a)
    return a


def test_measures_are_linear_in_distinct_nodes():
    """60 levels: 2**60 unfolded, measured and refused in 61 steps (well under a millisecond)."""
    a = chain(60)
    t0 = time.perf_counter()
    assert walk_size(a, MAX_WALK) > MAX_WALK
    assert render_size(a, 10**6, False) > 10**6
    assert time.perf_counter() - t0 < 0.01
    with pytest.raises(SizeExceeded):
        g_deep(a)


def test_measures_count_the_unfolded_tree():
    for n in range(8):
        a = chain(n)
        assert len(repr(a)) <= render_size(a, 10**9, False)
        # one per node, 2**(n+1) - 1 lists and 2**n zeros, plus one per element
        assert walk_size(a, 10**9) == (2 ** (n + 1) - 1) + 2 ** n + 2 * (2 ** n - 1) + 2 ** n
    d = {(1, 2): [1, "abcdefgh"], "k": frozenset({3})}
    # the dict 1 + 4 elements, "k" 1, (1, 2) 1 + 2 + 2, [1, "abcdefgh"] 1 + 2 + 1 + 2, {3} 1 + 1 + 1
    assert walk_size(d, 10**9) == walk_size(d.items(), 10**9) == 20
    cyclic = [1]
    cyclic.append(cyclic)  # a container met again on its own path counts one
    assert walk_size(cyclic, 100) == 1 + 2 + 1 + 1


def test_scanning_bounds_the_product_of_length_and_size():
    """`x in xs` compares x with every element: a 15-deep x against 100,000 twins of it is
    3 * 10**9 steps of C although x alone is small. The scanned side is then measured."""
    a, b = chain(15), chain(15)
    assert walk_size(a, MAX_WALK) <= MAX_WALK
    with pytest.raises(SizeExceeded):
        g_in([b] * 100_000, g_deep(a))
    assert g_in([b] * 3, a) is not None  # 3 elements: within the bound
    assert g_in([1, 2] * 50_000, a) is not None  # flat elements: a cheap scan
    big = {i: i for i in range(200_000)}
    assert g_in(big, a) is big  # hashed: x alone is walked


@pytest.mark.parametrize("value,t", [
    ([[1, 2], [3]], T.ListT(T.ListT(T.IntT()))),
    ({"a": (1, True)}, T.DictT(T.StrT(), T.TupleT((T.IntT(), T.BoolT())))),
])
def test_contract_checks_of_ordinary_values_are_unchanged(value, t):
    assert check_value(value, t, lambda p, v: True) is None
    assert conforms(value, t)
    assert canonical(value) == repr(value)


def test_contract_check_of_a_shared_value():
    rows = [[0] * 1000] * 1000
    t = T.ListT(T.ListT(T.ListT(T.IntT())))
    assert check_value([rows] * 1000, t, lambda p, v: True) == TOO_LARGE
    assert not conforms([rows] * 1000, t)
    assert check_value([rows[:3]] * 2, t, lambda p, v: True) is None


SCAN_SRC = """
def f(xs, x, d):
    k = tuple(x)
    return (xs.count(x), xs.index(x), x in xs, sorted(xs), max(xs), min(xs, key=lambda v: v[0]),
            d.get(k), k in d, d[k], sorted(d.items()), len(set(tuple(v) for v in xs)),
            {tuple(v) for v in xs}, {tuple(v): 1 for v in xs}, dict(zip([tuple(v) for v in xs], xs)),
            f"{xs}", str(d), sorted([k, (0, 0)], key=len), [5, 6].index(6), "abcb".count("b"))
"""


@pytest.mark.parametrize("via_source", [False, True])
def test_ordinary_values_get_cpythons_answers(via_source):
    xs = [[3, 1], [1, 2], [3, 1], [0, 9]]
    d = {(1, 2): "a", (3, 1): "b"}
    want = plain(SCAN_SRC)["f"](xs, [3, 1], d)
    got = run(SCAN_SRC, "f", xs, [3, 1], d, fuel=10**5, via_source=via_source)
    assert (got.status, got.value) == ("ok", want), got


@pytest.mark.parametrize("rows", [[1, 2, 3], (4, "ab"), [], ["x" * 9, True]])
def test_a_long_container_of_one_shared_row_counts_as_rendered(rows):
    """`[xs] * n` past _MEMO_ROWS: each occurrence is remembered by id, and counts what repr
    writes for it; past the limit the count stops early, still over the limit."""
    for n in (3, 64, 65, 500):
        shared, distinct = [rows] * n, [type(rows)(rows) for _ in range(n)]
        assert render_size(shared, 10**9, False) == render_size(distinct, 10**9, False) >= len(repr(shared))
        assert walk_size(shared, 10**9) == walk_size(distinct, 10**9)
    assert render_size([rows] * 100_000, 100_000, False) > 100_000
