"""The restricted builtins: exactly the language's 25 names, guarded wrappers that behave
like CPython's, and a `rng` with four methods."""

from __future__ import annotations

import builtins
import random

import pytest

from racesl.runtime import SAFE_BUILTINS, SafeRng
from racesl.runtime.builtins import BUILTIN_NAMES, RUNTIME

from .rtutil import plain, program, run

LANGUAGE = set("abs all any bin bool chr divmod enumerate hex int len list max min ord pow range "
               "reversed sorted str sum tuple zip set dict".split())
DANGEROUS = ["__import__", "__build_class__", "open", "eval", "exec", "compile", "getattr",
             "setattr", "delattr", "type", "object", "globals", "locals", "vars", "dir", "print",
             "input", "help", "breakpoint", "exit", "quit", "memoryview", "bytearray", "id",
             "isinstance", "super", "classmethod", "staticmethod", "property", "iter", "next",
             "map", "filter", "__loader__", "__spec__", "BaseException", "Exception"]


def test_exactly_the_language_builtins():
    assert set(SAFE_BUILTINS) == LANGUAGE == set(BUILTIN_NAMES)
    for name in DANGEROUS:
        assert name not in SAFE_BUILTINS


def test_program_namespace_holds_nothing_else():
    prog = program("def f():\n    return 1\n")
    ns = prog.namespace
    assert set(ns["__builtins__"]) == LANGUAGE
    for key in ns:
        assert key == "__builtins__" or key == "f" or key.startswith("_races_"), key
    assert all(k.startswith("_races_") for k in RUNTIME)


@pytest.mark.parametrize("name", DANGEROUS)
def test_dangerous_names_are_unreachable(name):
    # the checker rejects these names; even a body that slipped through finds nothing
    for body in (f"return {name}", f"return {name}('x')", f"return [{name}(c) for c in 'ab']"):
        out = run(f"def f():\n    {body}\n", "f")
        assert out.status == "error" and out.error.startswith("NameError"), (body, out)


def test_dunder_globals_give_nothing_new():
    # dunder names are rejected by the checker; even `__builtins__` is only the program's
    # own copy of the safe table
    out = run("def f():\n    return sorted(__builtins__)\n", "f")
    assert out.status == "ok" and set(out.value) == LANGUAGE


@pytest.mark.parametrize("expr", [
    "sorted(xs, key=lambda x: (-x % 3, x), reverse=True)", "max(xs, key=lambda x: x % 4)",
    "min(xs, default=9)", "max([], default=-1)", "sum(xs, 10)", "sum([[1], [2]], [])",
    "sum([(1,), (2,)], ())", "dict(zip('abc', xs))", "dict([(1, 2), (3, 4)])", "dict()",
    "dict({'a': 1})", "set(xs) == set(reversed(xs))", "tuple(xs)", "list('abc')", "list()",
    "list(enumerate('ab', 1))", "list(enumerate('ab', start=5))", "list(reversed(range(3)))",
    "list(reversed({'a': 1, 'b': 2}))", "list(zip(xs, 'ab', [True]))", "list(zip())",
    "any([]) or all([])", "any(x > 3 for x in xs)", "all(x > 0 for x in xs)",
    "int('ff', 16) + int('11', base=2)", "int(True) + int(7.9)", "str(xs) + str('x')",
    "pow(3, 4, 5)", "divmod(17, 5)", "bin(10) + hex(255)", "chr(97) + str(ord('b'))",
    "abs(-4) + len(xs)", "bool(0) or bool([1])", "list(range(2, 10, 3))", "max(3, 7, 5)",
    "min('b', 'a')", "sorted(set('hello'))", "sorted({'b': 1, 'a': 2}.items())",
    "sum(x for x in xs if x % 2)", "'-'.join(str(x) for x in xs)", "'ab'.join('xyz')",
    "max(xs) - min(xs)", "sorted(xs, key=len) if False else 0",
])
def test_wrappers_behave_like_cpython(expr):
    src = f"def f(xs):\n    return {expr}\n"
    xs = [5, 3, 8, 1, 4]
    out = run(src, "f", list(xs), fuel=10_000)
    assert out.status == "ok", out
    assert out.value == plain(src)["f"](list(xs))


@pytest.mark.parametrize("expr", ["max([])", "sum(['a'], '')", "int('x')", "sorted([1, 'a'])",
                                  "'-'.join([1])", "list(5)", "dict([1])", "pow(2, 3, 0)"])
def test_wrapper_errors_are_python_errors(expr):
    src = f"def f():\n    return {expr}\n"
    with pytest.raises(Exception) as exc:
        plain(src)["f"]()
    out = run(src, "f")
    assert out.status == "error"
    assert out.error.split(":")[0] == type(exc.value).__name__


def test_safe_builtins_are_size_guarded_even_uninstrumented():
    from racesl.runtime.limits import SizeExceeded

    with pytest.raises(SizeExceeded):
        SAFE_BUILTINS["list"](range(10**9))
    with pytest.raises(SizeExceeded):
        SAFE_BUILTINS["pow"](10, 10**8)
    assert SAFE_BUILTINS["sum"]([1, 2]) == 3
    assert SAFE_BUILTINS["len"] is builtins.len


def test_safe_rng():
    a, b = SafeRng(42), SafeRng(42)
    seq_a = [a.randint(0, 100) for _ in range(20)]
    assert seq_a == [b.randint(0, 100) for _ in range(20)]
    r = random.Random(42)
    assert seq_a == [r.randint(0, 100) for _ in range(20)]
    assert SafeRng("seed").choice("abcdef") == SafeRng("seed").choice("abcdef")
    xs = list(range(10))
    SafeRng(1).shuffle(xs)
    assert sorted(xs) == list(range(10)) and xs != list(range(10))
    assert len(SafeRng(3).sample(range(100), 5)) == 5
    public = [n for n in dir(SafeRng(0)) if not n.startswith("_")]
    assert public == ["choice", "choices", "fork", "fraction", "randint", "sample", "shuffle"]
    assert not hasattr(SafeRng(0), "__dict__")


def test_rng_in_a_sampler():
    src = """
    def pick(rng, level):
        xs = [rng.randint(0, 9) for _ in range(3 + level)]
        rng.shuffle(xs)
        return xs, rng.choice("abc"), rng.sample([1, 2, 3, 4], 2)
    """
    prog = program(src)
    one = prog.call("pick", (1,), rng=SafeRng(7))
    two = prog.call("pick", (SafeRng(7), 1))
    assert one.status == "ok" and one.value == two.value
    assert len(one.value[0]) == 4


def test_rng_over_draws_from_the_callers_stream():
    from racesl.runtime.builtins import rng_over

    a, b = random.Random(7), random.Random(7)
    safe = rng_over(a)
    assert [safe.randint(0, 99) for _ in range(5)] == [b.randint(0, 99) for _ in range(5)]
    assert a.random() == b.random()  # the source advanced exactly as far
    assert type(safe) is SafeRng and [n for n in dir(safe) if not n.startswith("_")] == [
        "choice", "choices", "fork", "fraction", "randint", "sample", "shuffle"]
