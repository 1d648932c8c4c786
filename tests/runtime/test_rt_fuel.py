"""Fuel: every rule of docs/language.md §4.6 charges exactly, and the cut-off happens at
the budget (both in the precharged fast paths and in the ticking slow copies)."""

from __future__ import annotations

import ast
import copy
import textwrap

import pytest

from racesl.lower.instrument import lower_to_source
from racesl.runtime import WATCHDOG, FuelOut, Program, SizeExceeded

from .rtutil import plain, program, run


def steps(src, name="f", *args, fuel=10_000, **kw):
    out = run(src, name, *args, fuel=fuel, **kw)
    assert out.status == "ok", out
    return out.steps


def boundary(src, name="f", *args, **kw):
    """The steps of a run, after checking that exactly that budget suffices and one less
    does not (in both compilation routes)."""
    s = steps(src, name, *args, **kw)
    for via_source in (False, True):
        prog = program(src, kw.get("int_params"), via_source=via_source)
        ok = prog.call(name, args, fuel=s)
        assert ok.status == "ok" and ok.steps == s, ok
        if s:
            cut = prog.call(name, args, fuel=s - 1)
            assert cut.status == "fuel", cut
            assert cut.steps == s - 1
    return s


def summing(name):
    """`name(n)` sums range(n): exactly n steps, a cost the budgets below are built from."""
    return f"""
    def {name}(n):
        t = 0
        for i in range(n):
            t += i
        return t
    """


# ------------------------------------------------------------------ loops


def test_for_range_costs_its_length():
    src = summing("f")
    assert boundary(src, "f", 5) == 5
    assert boundary(src, "f", 5, int_params={"f": frozenset({"n"})}) == 5
    assert steps(src, "f", 0) == 0


def test_for_over_str_list_tuple_dict():
    src = """
    def f(s, xs, t, d):
        n = 0
        for c in s:
            n += 1
        for x in xs:
            n += 1
        for y in t:
            n += 1
        for k in d:
            n += 1
        for k, v in d.items():
            n += 1
        return n
    """
    assert boundary(src, "f", "abc", [1, 2], (1,), {"a": 1, "b": 2}) == 3 + 2 + 1 + 2 + 2


def test_while_costs_one_an_iteration():
    src = """
    def f(n):
        i = 0
        while i < n:
            i += 1
        return i
    """
    assert boundary(src, "f", 7) == 7


def test_while_with_charging_test():
    src = """
    def h(i):
        return i < 3
    def f():
        i = 0
        while h(i):
            i += 1
        else:
            i += 10
        return i
    """
    # 4 helper calls (the last one false) + 3 iterations
    assert boundary(src) == 4 + 3
    assert run(src, "f").value == 13


def test_break_stops_charging():
    src = """
    def f():
        for i in range(10):
            if i == 3:
                break
        return i
    """
    assert boundary(src) == 4


def test_early_return_refunds_the_rest():
    src = """
    def f(xs, v):
        for i, x in enumerate(xs):
            if x == v:
                return i
        return -1
    """
    xs = list(range(50))
    assert boundary(src, "f", xs, 37) == 50 + 38  # enumerate's length + 38 iterations
    assert boundary(src, "f", xs, 99) == 50 + 50


def test_early_exit_with_zip_and_reversed():
    src = """
    def f(a, b):
        n = 0
        for x, y in zip(a, b):
            if x != y:
                break
            n += 1
        for x in reversed(a):
            if x == "b":
                return n
        return -n
    """
    # zip: min length 4, 3 iterations (break at the third); reversed: 5 + 4 iterations
    assert boundary(src, "f", "abcde", "abXd") == 4 + 3 + 5 + 4


def test_nested_loops_and_continue():
    src = """
    def f(n):
        t = 0
        for i in range(n):
            if i % 2:
                continue
            for j in range(i):
                t += j
        return t
    """
    # outer 6; inner for i = 0, 2, 4: 0 + 2 + 4
    assert boundary(src, "f", 6) == 6 + 6


def test_loop_mutating_its_list_ticks():
    src = """
    def f(xs):
        for x in xs:
            if len(xs) < 10:
                xs.append(x)
        return len(xs)
    def g(xs):
        for x in xs:
            xs.append(x)
        return 0
    """
    assert boundary(src, "f", [1, 2]) == 10
    assert run(src, "g", [1], fuel=1000).status == "fuel"


def test_enumerate_and_zip_loops():
    src = """
    def f(s):
        for i, c in enumerate(s):
            pass
        for a, b in zip(s, "xy"):
            pass
        for i, c in enumerate(s, 1):
            pass
        return 0
    """
    assert boundary(src, "f", "abcd") == 8 + 4 + 8


# ------------------------------------------------------------------ comprehensions


def test_comprehension_costs_its_elements():
    assert boundary("def f():\n    return [x for x in [1, 2, 3]]\n") == 3
    assert boundary("def f(s):\n    return {c: 1 for c in s if c != 'a'}\n", "f", "abca") == 4
    assert boundary("def f(s):\n    return {c for c in s}\n", "f", "abca") == 4


def test_nested_comprehension():
    assert boundary("def f():\n    return [(a, b) for a in 'ab' for b in 'xyz']\n") == 2 + 2 * 3


def test_generator_into_a_full_consumer():
    assert boundary("def f(xs):\n    return sum(x * x for x in xs)\n", "f", [1, 2, 3, 4]) == 4
    assert boundary("def f(s):\n    return ''.join(c.upper() for c in s)\n", "f", "abc") == 3


def test_stored_generator_ticks():
    src = """
    def f(xs):
        g = (x + 1 for x in xs)
        return sum(g)
    """
    assert boundary(src, "f", [1, 2, 3]) == 3


def test_any_all_charge_what_they_consume():
    assert boundary("def f():\n    return any(x > 2 for x in [1, 2, 3, 4, 5])\n") == 3
    assert boundary("def f():\n    return all(x < 2 for x in [1, 2, 3, 4, 5])\n") == 2
    assert boundary("def f(s):\n    return all(c.isalpha() for c in s)\n", "f", "abcd") == 4
    assert boundary("def f(s):\n    return any(c == 'z' for c in s)\n", "f", "abcd") == 4


def test_any_with_charging_elements():
    src = """
    def h(x):
        return x > 1
    def f():
        return any(h(x) for x in [1, 2, 3])
    """
    assert boundary(src) == 2 + 2  # two elements consumed, two helper calls


def test_zip_and_enumerate_in_comprehensions():
    assert boundary("def f():\n    return [a + b for a, b in zip('ab', 'cde')]\n") == 2 + 2
    assert boundary("def f():\n    return [i for i, c in enumerate('abc')]\n") == 3 + 3


# ------------------------------------------------------------------ calls


def test_helper_call_costs_one():
    src = """
    def h(x):
        return x
    def f():
        return h(1) + h(2)
    """
    assert boundary(src) == 2


def test_recursion_shares_the_budget():
    src = """
    def fact(n):
        if n <= 1:
            return 1
        return n * fact(n - 1)
    def loop_then_recurse(n):
        t = 0
        for i in range(n):
            t += i
        return t + fact(n)
    """
    assert boundary(src, "fact", 5) == 4
    assert boundary(src, "loop_then_recurse", 10) == 10 + 10  # the call of fact(10) and 9 more


def test_helper_loops_count_against_the_caller():
    src = summing("h") + """
    def f():
        return [h(k) for k in range(4)]
    """
    assert boundary(src) == 4 + 4 + (0 + 1 + 2 + 3)


def test_lambda_calls_cost_one_each():
    assert boundary("def f(xs):\n    return sorted(xs, key=lambda x: -x)\n", "f", [3, 1, 2]) == 3 + 3
    src = """
    def f(xs):
        k = lambda x: x % 3
        return [k(x) for x in xs]
    """
    assert boundary(src, "f", [1, 2, 3, 4]) == 4 + 4


def test_helper_as_key():
    src = """
    def neg(x):
        return -x
    def f(xs):
        return sorted(xs, key=neg)
    """
    assert boundary(src, "f", [3, 1, 2]) == 3 + 3


# ------------------------------------------------------------------ builtins


@pytest.mark.parametrize("expr,cost", [
    ("sum(xs)", 5), ("sorted(xs)", 5), ("max(xs)", 5), ("min(xs)", 5), ("list(xs)", 5),
    ("tuple(xs)", 5), ("set(xs)", 5), ("any(xs)", 5), ("all(xs)", 5), ("list(reversed(xs))", 5),
    ("list(enumerate(xs))", 5), ("list(zip(xs, 'abc'))", 3), ("dict(zip(xs, xs))", 5),
    ("len(xs)", 0), ("max(1, 2)", 0), ("min(xs[0], 3)", 0), ("sum(range(10))", 10),
    ("list(range(4))", 4), ("'-'.join(['a', 'b'])", 2), ("xs.copy()", 0), ("3 in xs", 5),
    ("3 in {1, 2}", 0), ("'a' in 'abc'", 3), ("'a' in {'a': 1}", 0), ("3 in range(10)", 0),
    ("xs.index(3)", 0), ("sorted(xs, reverse=True)", 5), ("max(xs, key=abs)", 5),
])
def test_builtin_charges(expr, cost):
    assert boundary(f"def f(xs):\n    return {expr}\n", "f", [5, 3, 1, 4, 2]) == cost


def test_sort_method_and_in_tests():
    src = """
    def f(xs, s):
        xs.sort()
        n = 0
        for c in s:
            if c in "aeiou":
                n += 1
        return n, xs
    """
    assert boundary(src, "f", [3, 1, 2], "hello") == 3 + 5 + 5 * 5


def test_in_with_a_variable_haystack():
    src = """
    def f(s):
        vowels = "aeiou"
        n = 0
        for c in s:
            if c in vowels and c not in ["e"]:
                n += 1
        return n
    """
    # per iteration: 1 + 5 (the str); `not in [..]` (1) only when the first test holds
    assert boundary(src, "f", "hello") == 5 * 6 + 2


def test_charge_happens_before_the_builtin_runs():
    out = run("def f(n):\n    return sum(range(n + 1))\n", "f", 1000)
    assert out.status == "fuel" and out.steps == 400
    assert run("def f(n):\n    return sum(range(n + 1))\n", "f", 398).status == "ok"


def test_default_budget_is_400():
    src = """
    def f(n):
        for i in range(n):
            pass
        return n
    """
    prog = program(src)
    assert prog.call("f", (400,)).status == "ok"
    assert prog.call("f", (401,)).status == "fuel"
    fast = prog.function("f")
    assert fast(400) == 400 and fast.meter == [0]  # (the fuel left)


def test_fast_path_reports_steps():
    prog = program("def f(xs):\n    return sorted(xs)\n")
    fast = prog.function("f", fuel=100)
    assert fast([3, 2, 1]) == [1, 2, 3] and fast.fuel - fast.meter[0] == 3
    assert fast([9]) == [9] and fast.fuel - fast.meter[0] == 1  # each call writes its own steps
    raw = prog.raw("f")
    box = [100 + 1, 2.0]
    assert raw(box, 0, [2, 1]) == [1, 2] and 100 - box[0] == 2


def test_programs_are_independent_calls():
    prog = program("def f(n):\n    for i in range(n):\n        pass\n    return n\n")
    outs = [prog.call("f", (n,), fuel=10) for n in (3, 12, 5)]
    assert [o.status for o in outs] == ["ok", "fuel", "ok"]
    assert [o.steps for o in outs] == [3, 10, 5]


def test_a_body_cannot_reach_the_box():
    # the instrumented names start with _races_, which the checker reserves; even when
    # called with the box, a body only sees its own parameters
    prog = program("def f(x):\n    return x\n")
    assert isinstance(prog, Program)
    assert prog.call("f", (5,)).value == 5


def test_generators_that_escape_their_statement():
    # stored, passed on, zipped: evaluated eagerly, charged like a list comprehension
    src = """
    def total(g):
        t = 0
        for v in g:
            t += v
        return t
    def f(xs):
        g = (x * 2 for x in xs)
        h = (x for x in xs if x > 1)
        pairs = 0
        for a, b in zip((x for x in xs), "ab"):
            pairs += 1
        return sum(g), total(h), pairs, max(x for x in xs)
    """
    # g 4, h 4 + total's call 1 + its loop over 2 elements 2, zip source 4 + zip 2 + loop 2,
    # max's generator 4
    assert boundary(src, "f", [1, 2, 3, 0]) == 4 + (4 + 1 + 2) + (4 + 2 + 2) + 4
    assert run(src, "f", [1, 2, 3, 0]).value == (12, 5, 2, 3)


def test_stored_lambda_as_key_of_max_of_two():
    src = """
    def f(a, b):
        k = lambda v: -v
        return max(a, b, key=k), min(a, b, key=lambda v: v % 3)
    """
    assert boundary(src, "f", 4, 9) == 2 + 2


def test_fast_path_entry_variants_agree_with_call():
    from racesl.runtime import FuelOut

    src = """
    def add(n, k):
        return n + k
    def loop(n):
        t = 0
        for i in range(n):
            t += i
        return t
    def helper_user(xs):
        return sorted(xs) + [loop(3)]
    """
    prog = program(src)
    for name, args in (("add", (2, 3)), ("loop", (10,)), ("helper_user", ([3, 1],))):
        out = prog.call(name, args)
        for run in (prog.function(name), prog.function(name, wall=None)):
            assert (run(*args), run.fuel - run.meter[0]) == (out.value, out.steps)
    add = prog.function("add", fuel=0)
    assert (add(1, 2), add.fuel - add.meter[0]) == (3, 0)
    with pytest.raises(FuelOut):
        prog.function("add", fuel=-1)(1, 2)
    with pytest.raises(FuelOut):
        prog.function("loop", fuel=9)(10)
    # copies are independent: each has its own limits and meter
    a, b = prog.function("loop", fuel=100), prog.function("loop", fuel=100)
    a(3)
    b(5)
    assert (a.meter, b.meter) == ([97], [95])  # the fuel each has left
    assert "add" in prog and prog.names == ["add", "helper_user", "loop"]


# ------------------------------------------------------------------ sources charged ahead


@pytest.mark.parametrize("src,args,expected", [
    # `return C` / `x = C` / `return f(C)`: the source is charged by the statement itself
    ("def f(xs):\n    return [x + 1 for x in xs]\n", ([1, 2, 3],), 3),
    ("def f(xs):\n    ys = {x: x for x in xs}\n    return ys\n", ([1, 2, 2],), 3),
    ("def f(s):\n    return ''.join(c for c in s if c != 'a')\n", ("banana",), 6),
    ("def h(x):\n    return x * 2\ndef f(xs):\n    return sum(h(x) for x in xs)\n", ([1, 2, 3],), 3 + 3),
    ("def f(n):\n    return [[i * j for j in range(n)] for i in range(n)]\n", (3,), 3 + 9),
    # a source a helper computes, and one with no length (a generator: ticks)
    ("def h(n):\n    return list(range(n))\ndef f(n):\n    return [x for x in h(n)]\n", (4,), 1 + 4 + 4),
    ("def f(xs):\n    return sorted(x for x in (y for y in xs))\n", ([3, 1, 2],), 3 + 3),
    # first evaluated inside a larger expression: a call's argument, a left operand, a base
    ("def f(xs):\n    return len([x for x in xs if x > 1])\n", ([1, 2, 3],), 3),
    ("def f(g):\n    return sum(len(r) for r in g) // 2\n", ([[1], [2, 3]],), 2),
    ("def f(xs):\n    n = [x * 2 for x in xs][0] + 1\n    return n\n", ([4, 5],), 2),
    ("def f(xs):\n    return not [x for x in xs if x] or 0\n", ([0, 0],), 2),
    # rows drawn straight from each element of the source: their lengths are charged ahead too
    ("def f(g):\n    return [[x + 1 for x in row if x] for row in g]\n", ([[1, 0], [], [2, 3, 4]],), 3 + 5),
    ("def f(g):\n    return [{c: 1 for c in w} for w in g]\n", (["ab", "", "cde"],), 3 + 5),
    ("def h(x):\n    return x\ndef f(g):\n    return [[h(x) for x in row] for row in g]\n",
     ([[1, 2], [3]],), 2 + 3 + 3),
    ("def f(g):\n    return [sum(row) for row in g]\n", ([[1, 2], [], [3]],), 3 + 3),
    ("def f(g):\n    return [sorted(w) for w in g]\n", (["ba", "c"],), 2 + 3),
    ("def f(g):\n    return len([max(row) for row in g])\n", ([(1, 5), range(3)],), 2 + 5),
    # an inner range the same for every row: its length, once, times the rows
    ("def f(n):\n    return [[i * j for j in range(n)] for i in range(n)]\n", (3,), 3 + 9),
    ("def f(g, k):\n    return [[row[(c - k) % 2] for c in range(len(g[0]) - 1)] for row in g]\n",
     ([[1, 2, 3], [4, 5, 6]], 1), 2 + 2 * 2),
    ("def f(g):\n    return [[g[r][c] for r in range(len(g) - 1, -1, -1)] for c in range(len(g[0]))]\n",
     ([[1, 2], [3, 4], [5, 6]],), 2 + 2 * 3),
    ("def f(n):\n    return [[0 for _ in range(n)] for _ in range(n + 1)]\n", (2,), 3 + 3 * 2),
    ("def f(g):\n    return [[x for x in range(len(g[0]))] for row in g]\n", ([],), 0),  # no rows, no g[0]
    # an inner range that depends on the row is no such range, even where a local has the name
    ("def f(n):\n    i = 5\n    return [[x for x in range(i)] for i in range(n)]\n", (3,), 3 + 0 + 1 + 2),
    # a row `_races_each` would tick (not sized): the whole statement ticks, to the same count
    ("def f(g):\n    return [[x for x in row] for row in [range(2), (y for y in g)]]\n", ([7, 8],), 2 + 2 + 2 + 2),
    ("def f(g):\n    return [sum(row) for row in [[1], (y for y in g)]]\n", ([7, 8],), 2 + 1 + 2),
])
def test_sources_charged_ahead_keep_the_exact_boundary(src, args, expected):
    assert boundary(src, "f", *args) == expected
    prog = program(src)
    out = prog.call("f", args)
    run = prog.function("f", fuel=out.steps)
    assert (run(*args), run.fuel - run.meter[0]) == (out.value, out.steps)
    with pytest.raises(FuelOut):
        prog.function("f", fuel=out.steps - 1)(*args)


LEAVES = """
def twice(k):
    \"\"\"A docstring does not stop a function from being a leaf.\"\"\"
    return k + k

def at(s, i):
    return s[i]

def sub(a, b):
    return a - b

def wrapped(k):
    return twice(k)

def vowel(c):
    return c in "aeiou"
"""


@pytest.mark.parametrize("body,args,expected", [
    # leaf calls evaluated once per element, in place in the charged-ahead copy: one step each
    ("return [twice(x) for x in xs]", ([1, 2, 3],), 3 + 3),
    ("return ''.join(at('abc', x) for x in xs)", ([0, 2],), 2 + 2),
    ("return sum(twice(x) + sub(x, 1) for x in xs)", ([1, 2],), 2 + 4),
    ("return [x for x in xs if twice(x) > 2]", ([1, 2, 3],), 3 + 3),  # the first condition: every element
    ("return {twice(x): sub(x, 1) for x in xs}", ([1, 2],), 2 + 4),
    ("return [sub(b, a) for a in xs]", ([1, 5], 10), 2 + 2),  # the parameters swap names
    # literal `in` tests evaluated once per element are charged with the source too
    ("return [x for x in xs if vowel(x)]", ("abe",), 3 + 3 + 3 * 5),
    ("return [x in 'xyz' for x in xs]", ("abe",), 3 + 3 * 3),
    ("return [x for x in xs if x != 'a' and vowel(x)]", ("abe",), 3 + 2 + 2 * 5),  # behind `and`: calls
    # calls that stay calls: not once per element, or not a leaf, or an argument that is
    # no name or constant (the one inside is evaluated in place)
    ("return [twice(x) for x in xs if x > 1]", ([1, 2, 3],), 3 + 2),
    ("return [twice(x) if x else 0 for x in xs]", ([0, 1, 2],), 3 + 2),
    ("return [x > 0 and twice(x) for x in xs]", ([0, 1, 2],), 3 + 2),
    ("return [x for x in xs if x < 2 < twice(x)]", ([1, 2, 3],), 3 + 1),  # a chained comparison
    ("return [wrapped(x) for x in xs]", ([1, 2],), 2 + 2 * 2),
    ("return [twice(twice(x)) for x in xs]", ([1, 2],), 2 + 4),
    ("return [twice(x + 1) for x in xs]", ([1, 2],), 2 + 2),
])
def test_leaf_calls_in_charged_ahead_comprehensions_cost_one_step_each(body, args, expected):
    params = "xs, b" if len(args) > 1 else "xs"
    src = LEAVES + f"\ndef f({params}):\n    {body}\n"
    assert boundary(src, "f", *args) == expected
    prog = program(src)
    out = prog.call("f", args)
    assert out.value == plain(src)["f"](*args)
    run, short = prog.function("f", fuel=out.steps), prog.function("f", fuel=out.steps - 1)
    with WATCHDOG.session():  # the entry copies (outside a session they run the ordinary one)
        assert (run(*args), run.fuel - run.meter[0]) == (out.value, out.steps)
        with pytest.raises(FuelOut):
            short(*args)


def test_a_leaf_call_evaluated_in_place_fails_as_the_call_does_at_the_call():
    src = LEAVES + "\ndef f(xs):\n    return [at('abc', x) for x in xs]\n"
    prog = program(src)
    out = prog.call("f", ([0, 7],))
    call_line = src.splitlines().index("    return [at('abc', x) for x in xs]") + 1
    assert (out.status, out.error, out.line) == ("error", "IndexError: string index out of range", call_line)
    assert prog.call("f", ([0, 7],), fuel=3).status == "fuel"  # 2 elements + 2 calls > 3, as when it calls


def test_an_inner_range_that_fails_fails_as_in_the_rows():
    """The inner range is evaluated once ahead only when there are rows, and an error there
    leaves the rows to the copy that ticks, which meets it where the body does."""
    src = "def f(g, w):\n    return [[c for c in range(len(g[w]))] for row in g]\n"
    prog = program(src)
    assert prog.call("f", ([], 5)).value == []
    out = prog.call("f", ([[1]], 5))
    assert (out.status, out.error) == ("error", "IndexError: list index out of range")
    out = prog.call("f", ([[1], [2]], 0), fuel=2 + 2 - 1)
    assert out.status == "fuel"


def test_an_inner_range_over_a_list_the_rows_may_resize_is_counted_row_by_row():
    src = "def f(g):\n    return [[g.append(1) for c in range(len(g))] for row in [1, 2]]\n"
    text = lower_to_source(ast.parse(src))
    assert "_races_Exception" not in text  # no length taken ahead
    prog = program(src)  # (the body appends to its argument: a fresh one each call)
    assert prog.call("f", ([0],), fuel=5).steps == 2 + 1 + 2  # the second row's range sees the append
    assert prog.call("f", ([0],), fuel=4).status == "fuel"


def test_a_source_too_long_for_the_budget_ticks_to_the_same_cut_off():
    src = "def f(xs):\n    return [x for x in xs]\n"
    prog = program(src)
    assert prog.call("f", (list(range(50)),), fuel=49).status == "fuel"
    assert prog.call("f", (list(range(50)),), fuel=50).steps == 50
    # a list the body appends to is never charged ahead: it ticks
    src = "def f(xs):\n    out = [0]\n    return [out.append(x + 1) for x in out if x < 3]\n"
    assert boundary(src, "f", [0]) == 4


def test_comparisons_with_flat_operands_are_not_measured():
    from racesl.lower.instrument import instrument
    import ast, textwrap

    def deep_calls(src, **kw):
        out = instrument(ast.parse(textwrap.dedent(src)), **kw)
        return sum(isinstance(n, ast.Name) and n.id == "_races_g_deep" for n in ast.walk(out))

    # a number, a str or None on one side: the other side is never walked
    assert deep_calls("def f(xs, s):\n    n = len(s)\n    return xs == 0 or xs != 'a' or xs is None or n * n <= xs\n") == 0
    assert deep_calls("def f(c):\n    return c in 'aeiou' or c in ('a', 'b')\n") == 0
    # two unknown sides, `in` a list or a set: measured (one fast path each: entry and ordinary)
    assert deep_calls("def f(a, b):\n    return a == b\n") == 4
    assert deep_calls("def f(a, b):\n    return a in b\n") == 2
    assert deep_calls("def f(a):\n    return a in {1, 2}\n") == 2


def test_dag_compared_with_a_number_is_answered_and_with_a_dag_refused():
    src = """
    def f(n):
        a = [1]
        for i in range(n):
            a = [a, a]
        return a == 0, a != 'x', a is None
    def g(n):
        a = [1]
        b = [1]
        for i in range(n):
            a = [a, a]
            b = [b, b]
        return a == b
    """
    assert run(src, "f", 60).value == (False, True, False)
    assert run(src, "g", 60).status == "size"


def test_rows_charged_ahead_keep_the_size_limit():
    """A row longer than MAX_LEN is never charged ahead: its builtin refuses it as before."""
    from racesl.runtime.limits import MAX_LEN

    prog = program("def f(g):\n    return [sum(row) for row in g]\n")
    out = prog.call("f", ([[1], list(range(MAX_LEN + 1))],), fuel=10**7)
    assert out.status == "size", out
    with pytest.raises(SizeExceeded):
        prog.function("f", fuel=10**7)([[1], list(range(MAX_LEN + 1))])


def test_a_reused_meter_stays_clean_after_errors_inside_any():
    """An entry's box is its caller's meter, reused call after call: `any`'s refund stack
    is popped even when an element raises, and later calls count exactly."""
    prog = program("def f(xs, k):\n    return any(10 // (x - k) > 3 for x in xs)\n")
    run = prog.function("f", fuel=100)
    out = prog.call("f", ([4, 5, 6], 2))
    with WATCHDOG.session():  # (outside one, an entry runs the ordinary variant, own box)
        for _ in range(20):
            with pytest.raises(ZeroDivisionError):
                run([1, 2, 3], 2)
        assert len(run.meter) == 1
        assert (run([4, 5, 6], 2), run.fuel - run.meter[0]) == (out.value, out.steps)


@pytest.mark.parametrize("body,args,expected", [
    ("return ''.join(chr(97 + x % 26) for x in xs)", ([0, 27], ""), "ab"),
    ("return '-'.join(c + c for c in s)", ([], "ab"), "aa-bb"),
    ("return ''.join('xyz'[x % 3] if x else 'zz' for x in xs)", ([0, 4], ""), "zzy"),
    ("return ''.join(chr(97 + int(c)) for c in str(xs[0]))", ([120], ""), "bca"),
])
def test_joins_of_short_texts_keep_their_charges(body, args, expected):
    """Joins whose elements are short texts skip the measuring (see the next test); the
    charges and the cut-off stay where they were."""
    src = f"def f(xs, s):\n    {body}\n"
    ints = {"f": frozenset({"xs[]", "xs#", "s$", "s#"})}  # an entry's trusted parameter types
    steps = boundary(src, "f", *args, int_params=ints)
    prog = program(src, ints)
    out = prog.call("f", args)
    assert out.value == expected == plain(src)["f"](*args) and out.steps == steps
    fn, short = prog.function("f", fuel=steps), prog.function("f", fuel=steps - 1)
    with WATCHDOG.session():  # (outside a session an entry runs the ordinary copy)
        assert (fn(*args), fn.fuel - fn.meter[0]) == (expected, steps)
        with pytest.raises(FuelOut):
            short(*args)


@pytest.mark.parametrize("join,text,sep", [("'ab'.join(c for c in s)", 1, 2), ("'-'.join(c + c for c in s)", 2, 1)])
def test_a_join_that_could_pass_max_len_is_still_measured(join, text, sep):
    """A join of n elements of at most `text` characters: past MAX_LEN // (text + sep)
    elements the copy that measures runs, and refuses a text longer than MAX_LEN."""
    from racesl.runtime.limits import MAX_LEN

    prog = program(f"def f(s):\n    return {join}\n", {"f": frozenset({"s$", "s#"})})
    k = MAX_LEN // (text + sep)
    over = next(n for n in range(k, k + 10) if text * n + sep * (n - 1) > MAX_LEN)
    run = prog.function("f", fuel=10**6)
    with WATCHDOG.session():  # (outside a session an entry runs the ordinary copy)
        for n in range(k, over):  # without measuring, then measured: all fit
            assert len(run("x" * n)) == text * n + sep * (n - 1) <= MAX_LEN
        with pytest.raises(SizeExceeded):  # measured, and refused
            run("x" * over)
    assert prog.call("f", ("x" * over,), fuel=10**6).status == "size"


def test_products_of_sums_in_comprehensions_are_guarded_without_a_call():
    """`(x + 1) * (y - 1)` of known numbers inside a comprehension (no `:=` there): the sums
    are evaluated twice instead of going through the guard's call, and big values still
    reach the guard."""
    from racesl.runtime.limits import MAX_INT_BITS

    src = "def f(xs):\n    return [(x + 1) * (x - 1) for x in xs]\n"
    ints = {"f": frozenset({"xs[]", "xs#"})}
    text = lower_to_source(ast.parse(src), int_params=ints)
    entry = text[text.index("def _races_entry__f"):]
    assert "(x + 1) * (x - 1) if" in entry.split("else:")[0]
    prog = program(src, ints)
    run = prog.function("f")
    big = 1 << (MAX_INT_BITS // 2 + 8)
    with WATCHDOG.session():
        assert run([3, 1 << 40]) == [8, (1 << 80) - 1]
        with pytest.raises(SizeExceeded):
            run([big])


@pytest.mark.parametrize("body,args", [
    ("return sorted(xs, reverse=True)", ([3, 1, 2], True)),
    ("return sorted(xs, reverse=r)", ([3, 1, 2], False)),
    ("return [sorted(x, reverse=r) for x in [xs, xs]]", ([2, 1], True)),  # in a comprehension: the box
])
def test_sorted_in_reverse_charges_its_length(body, args):
    src = f"def f(xs, r):\n    {body}\n"
    n = len(args[0]) * (1 if "for" not in body else 2) + (2 if "for" in body else 0)
    assert boundary(src, "f", *args) == n
    for ints in ({}, {"f": frozenset({"xs#"})}):
        prog = program(src, ints)
        assert prog.call("f", args).value == plain(src)["f"](*args)
        run = prog.function("f")
        with WATCHDOG.session():
            assert (run(*args), run.fuel - run.meter[0]) == (plain(src)["f"](*args), n)


# ------------------------------------------------------------------ declared lengths and rows

SHORT_ROWS = frozenset({"g#", "g#<", "g[#", "xs#", "xs#<"})


@pytest.mark.parametrize("src,args,expected", [
    # rows of a parameter declared sized and short: Σ len(row) measured in C
    ("def f(g):\n    return [[x + 1 for x in row] for row in g]\n", ([[1, 2], [], [3]],), 3 + 3),
    ("def f(g):\n    return [sum(row) for row in g]\n", ([[1, 2], [], [3]],), 3 + 3),
    # two clauses, the second over the row (a condition on it filters elements, not rows)
    ("def f(g):\n    return [x for row in g for x in row]\n", ([[1, 2], [3]],), 2 + 3),
    ("def f(g):\n    return len(set(x for row in g for x in row if x != 0))\n", ([[0, 2], [2, 3]],), 2 + 4),
    # the row drawn by index, `g[u]` for `u in range(len(g))`
    ("def f(g):\n    return [[v for v in g[u] if (u + v) % 2 == 0] for u in range(len(g))]\n",
     ([[1], [0, 2], [1]],), 3 + 4),
    ("def f(g):\n    return [(u, v) for u in range(len(g)) for v in g[u] if u < v]\n", ([[1], [0, 2], [1]],), 3 + 4),
    # not these: a condition on the rows, another list's length, rows the elements resize
    ("def f(g):\n    return [[v for v in g[u]] for u in range(len(g)) if u]\n", ([[1], [0, 2], [1]],), 3 + 3),
    ("def f(g, xs):\n    return [[v for v in g[u]] for u in range(len(xs))]\n", ([[1], [0, 2], [1]], [0, 0]), 2 + 3),
])
def test_rows_of_declared_parameters_keep_the_exact_boundary(src, args, expected):
    ints = {"f": SHORT_ROWS}
    assert boundary(src, "f", *args, int_params=ints) == expected
    for via_source in (False, True):
        prog = program(src, ints, via_source=via_source)
        want = plain(src)["f"](*copy.deepcopy(args))
        with WATCHDOG.session():
            for fuel in (expected, 10_000):  # the exact budget, and one the charge ahead fits in
                run = prog.function("f", fuel=fuel)
                assert (run(*copy.deepcopy(args)), run.fuel - run.meter[0]) == (want, expected)
            with pytest.raises(FuelOut):
                prog.function("f", fuel=expected - 1)(*copy.deepcopy(args))


def test_rows_in_c_only_for_declared_parameters():
    src = "def f(g):\n    return [x for row in g for x in row]\n"
    entry = lambda ints: (lambda t: t[t.index("def _races_entry__f"):])(
        lower_to_source(ast.parse(src), int_params={"f": ints}))
    assert "_races_map(_races_len, g)" in entry(SHORT_ROWS)
    assert "_races_rows_len(" in entry(frozenset({"g#"}))  # rows unknown: measured and tested


@pytest.mark.parametrize("body,args,n", [
    ("return sorted(xs)", ([3, 1, 2],), 3),
    ("return max(xs) - min(xs)", ([3, 1, 2],), 6),
    ("return '-'.join(xs)", (["a", "bc"],), 2),
    ("return len(set(xs))", ([1, 1, 2],), 3),
])
def test_builtins_over_parameters_declared_short_charge_without_a_size_test(body, args, n):
    src = f"def f(xs):\n    {body}\n"
    ints = {"f": SHORT_ROWS}
    text = lower_to_source(ast.parse(src), int_params=ints)
    entry = text[text.index("def _races_entry__f"):]
    assert "100000" not in entry and "_races_len(xs)" in entry
    prog = program(src, ints)
    with WATCHDOG.session():
        for fuel in (n, 10_000):
            run = prog.function("f", fuel=fuel)
            assert (run(*args), run.fuel - run.meter[0]) == (plain(src)["f"](*args), n)
        with pytest.raises(FuelOut):
            prog.function("f", fuel=n - 1)(*args)


@pytest.mark.parametrize("src", [
    "def f(g):\n    return [x for row in g for x in row if row.pop() or True]\n",
    "def f(g):\n    return [[v for v in g[u] if g[u].pop() or True] for u in range(len(g))]\n",
])
def test_rows_the_elements_resize_are_drawn_one_by_one(src):
    ints = {"f": SHORT_ROWS}
    assert "_races_map" not in lower_to_source(ast.parse(src), int_params=ints)
    g = [[1, 2, 3]]
    want = plain(src)["f"](copy.deepcopy(g))
    prog = program(src, ints)
    with WATCHDOG.session():
        for fuel, ok in ((3, True), (2, False), (10_000, True)):
            run = prog.function("f", fuel=fuel)
            if ok:
                assert (run(copy.deepcopy(g)), run.fuel - run.meter[0]) == (want, 3)  # 1 row + 2 elements drawn
            else:
                with pytest.raises(FuelOut):
                    run(copy.deepcopy(g))


@pytest.mark.parametrize("n", [-3, 0, 5])
def test_a_range_of_a_known_int_is_counted_without_len(n):
    src = summing("f")
    ints = {"f": frozenset({"n", "n~"})}
    text = lower_to_source(ast.parse(textwrap.dedent(src)), int_params=ints)
    assert "_races_len" not in text[text.index("def _races_entry__f"):]
    prog = program(src, ints)
    steps = max(n, 0)
    with WATCHDOG.session():
        for fuel in (steps, 10_000):
            run = prog.function("f", fuel=fuel)
            assert (run(n), run.fuel - run.meter[0]) == (sum(range(n)), steps)
        if steps:
            with pytest.raises(FuelOut):
                prog.function("f", fuel=steps - 1)(n)
