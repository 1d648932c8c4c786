"""Size guards: every bomb is refused before it is built (status "size"), quickly, and the
guarded operations otherwise compute exactly what CPython computes."""

from __future__ import annotations

import time

import pytest

from racesl.runtime import MAX_LEN
from racesl.runtime.guards import check_result, render_size
from racesl.runtime.limits import SizeExceeded

from .rtutil import plain, program, run

BIG_FUEL = 10**6


def size_cut(src, name="f", *args, fuel=BIG_FUEL, **kw):
    t = time.perf_counter()
    out = run(src, name, *args, fuel=fuel, **kw)
    took = time.perf_counter() - t
    assert out.status == "size", out
    assert out.value is None
    assert took < 1.5, f"{took:.2f} s"
    return out


@pytest.mark.parametrize("expr", [
    '"a" * 10**9', "10 ** 10**8", "1 << 10**9", "[0] * 10**9", "(0,) * 10**9", "10**9 * 'ab'",
    "pow(10, 10**8)", "pow(3, 10**6)", '"%0999999999d" % 5', '"%*d" % (10**9, 5)',
    '"ab".zfill(10**9)', '"x".join(["ab" * 500] * 100000)', "sum([[1] * 1000] * 1000, [])",
    "list(range(10**9))", "sorted(range(10**6))", "sum(range(10**8))", "set(range(10**9))",
    "dict(zip(range(10**9), range(10**9)))", "max(range(10**9))", "('ab' * 30000).replace('', 'xyz')",
    "'{}'.join(['ab' * 50000, 'cd' * 50000])",
])
def test_bomb_expressions(expr):
    size_cut(f"def f():\n    return {expr}\n")


@pytest.mark.parametrize("expr,x", [('f"{x:>999999999}"', 5), ('f"{x:{w}}"', "ab"),
                                    ('f"{x:.{w}}"', "abc"), ('f"{x!r:>{w}}"', [1]),
                                    ('f"{x:0{w}d}"', 7), ('f"{x:_<{w}}|{x}"', "ab")])
def test_fstring_specs(expr, x):
    src = f"def f(x, w):\n    return {expr}\n"
    size_cut(src, "f", x, "999999999")
    # small specs behave as in Python
    small = src.replace("999999999", "9")
    assert run(small, "f", x, "9").value == plain(small)["f"](x, "9")


def test_growth_loops():
    size_cut("""
    def f():
        x = 3
        while True:
            x = x * x
    """)
    size_cut("""
    def f(s):
        for i in range(100):
            s = s + s
        return s
    """, "f", "ab")
    size_cut("""
    def f(s):
        for i in range(100):
            s += s
        return s
    """, "f", "ab")
    size_cut("""
    def f():
        s = "ab"
        for i in range(100):
            s = f"{s}{s}"
        return s
    """)
    size_cut("""
    def f():
        d = {"k": [1]}
        for i in range(100):
            d["k"] += d["k"]
        return d
    """)
    size_cut("""
    def f():
        xs = []
        while True:
            xs.insert(len(xs), 1)
    """, fuel=10**7)


@pytest.mark.parametrize("grow", ["xs.extend(xs)", "xs += xs", "xs = [*xs, *xs]", "xs[:0] = xs", "xs *= 2"])
def test_list_growth_loops(grow):
    """Every spelling of doubling a list is guarded: one left out would be a bomb."""
    size_cut(f"""
    def f():
        xs = [1, 2]
        for i in range(100):
            {grow}
        return xs
    """)


def test_int_growth():
    # `+` grows an int by a bit a step and is not guarded; rendering one wider than
    # MAX_INT_BITS (past CPython's 4,300-digit limit: a ValueError) and returning one is refused
    grow = """
    def f(n, k):
        x = 1
        for i in range(n):
            x = x + x
        if k:
            return str(x)
        return x
    """
    assert run(grow, "f", 8000, 1, fuel=BIG_FUEL).value == str(2**8000)
    size_cut(grow, "f", 9000, 1)
    t = time.perf_counter()
    assert run(grow, "f", 20000, 1, fuel=BIG_FUEL).status == "size"
    assert time.perf_counter() - t < 1.5
    size_cut(grow, "f", 9000, 0)
    size_cut("""
    def f():
        x = 2
        for i in range(100):
            x = x ** 2
        return x
    """)
    size_cut("def f(n):\n    return 7 << n\n", "f", 10**6, int_params={"f": frozenset({"n"})})
    size_cut("def f(n):\n    return n * n * n * n\n", "f", 2**3000, int_params={"f": frozenset({"n"})})


def test_shared_structure_bombs():
    dag = """
    def f(k):
        a = [1]
        for i in range(60):
            a = [a, a]
        if k == 0:
            return a
        if k == 1:
            return str(a)
        if k == 2:
            return f"{a}"
        return "%s" % (a,)
    """
    for k in range(4):
        size_cut(dag, "f", k)


def test_deep_nesting_is_recursion_not_a_crash():
    src = """
    def f(n):
        a = []
        for i in range(n):
            a = [a]
        return str(a)
    """
    out = run(src, "f", 4000, fuel=BIG_FUEL)
    assert out.status in ("recursion", "size"), out


@pytest.mark.parametrize("expr", [
    '"ab" * 3', "3 * [1, 2]", "2 ** 100", "pow(2, 100)", "pow(2, 10**9, 7)", "pow(2, -1)",
    "1 << 100", '"%05d|%-4s|%x" % (42, "ab", 255)', '"%(a)s-%(b)d" % {"a": "x", "b": 3}',
    '"abc".zfill(6)', '"a-b-c".replace("-", "+")', '"a-b-c".replace("-", "", 1)',
    '[1, 2] + [3]', '(1,) + (2,)', '"ab" + "cd"', "str([1, 'a', (2,)])", "str(2**100)",
    'f"{[1, 2]}|{3:>4}|{\'x\'!r}"', "int('101', 2)", "int('  42 ')", "str()", "int()",
    "[*'ab', *'cd']", "(*'ab',)", "{*'ab', *'bc'} == {'a', 'b', 'c'}", "-7 % 3", "7 % -3",
    "'%s' % 'x'", "'%' + 's'", "divmod(-7, 2)", "abs(-3) * 2", "[0] * -1", "'x' * 0",
])
def test_guarded_operations_keep_python_semantics(expr):
    src = f"def f():\n    return {expr}\n"
    out = run(src, "f", fuel=BIG_FUEL)
    assert out.status == "ok", out
    assert out.value == plain(src)["f"]()


def test_guarded_errors_match_python():
    for expr in ['"a" + 1', "[1] * 'x'", "'%d' % 'x'", "1 << -1", "[1] + (2,)", "int('x')"]:
        src = f"def f():\n    return {expr}\n"
        out = run(src, "f")
        with pytest.raises(Exception) as exc:
            plain(src)["f"]()
        assert out.status == "error"
        assert out.error.startswith(type(exc.value).__name__), (out.error, exc.value)


def test_list_inplace_semantics_kept():
    src = """
    def f():
        a = [1]
        b = a
        a += [2]
        a *= 2
        d = {"k": [1]}
        e = d["k"]
        d["k"] += [5]
        xs = [1, 2, 3]
        xs[1:2] = [7, 8]
        xs.extend(range(2))
        xs.insert(0, 9)
        return a, b, d, e, xs
    """
    assert run(src, "f").value == plain(src)["f"]()


def test_mixed_operands_at_run_time():
    src = """
    def f(a, b):
        x = a + b
        y = a * 2
        z = a % b if b else a
        a += b
        return x, y, z, a
    """
    ns = plain(src)
    for args in [(1, 2), ("ab", "c"), ([1], [2]), ((1,), (2,)), (True, 3), ("%d", 5), ("a", 2),
                 ({1}, {2}), (2, "x")]:
        out = run(src, "f", *args)
        try:
            expected = ns["f"](*args)
        except Exception as exc:
            assert out.status == "error" and out.error.startswith(type(exc).__name__), (args, out)
        else:
            assert out.status == "ok" and out.value == expected, (args, out)


def test_big_results_are_refused_by_call():
    src = """
    def f():
        s = "ab" * 50000
        return [s] * 100000
    """
    out = run(src, "f", fuel=BIG_FUEL)
    assert out.status == "size"
    # the fast path does not walk containers (documented); check_result does
    prog = program(src)
    value = prog.function("f", fuel=BIG_FUEL)()
    with pytest.raises(SizeExceeded):
        check_result(value)


def test_render_size_is_an_upper_bound():
    for v in [0, -5, 2**300, "ab'c\"d\\", "é\x00", [1, "a", (2, [3])], {"k": [1, 2], 3: "x"},
              set(), {1, 2}, (), (1,), True, None, range(3), {}.keys(), {"a": 1}.items(),
              [[1, 2], ["x", "y"]], ["x" * 10, "y"], [10**50, -3]]:
        assert render_size(v, 10**6, False) >= len(repr(v)), v
        assert render_size(v, 10**6, True) >= len(str(v)), v


def test_size_limit_is_the_documented_bound():
    assert MAX_LEN == 100_000
    ok = run("def f():\n    return 'a' * 100000\n", "f")
    assert ok.status == "ok" and len(ok.value) == MAX_LEN
    assert run("def f():\n    return 'a' * 100001\n", "f").status == "size"
