"""The table's growth column (racesl/types/builtins.py, `Entry.growth`) and the guards it
asks for: every builtin or method that can grow what it is given has a guard, the case
mappings' growth factors are true of every code point, and each grower is refused before
it builds a value past the limits (status "size", quickly) while it computes what CPython
computes below them. (issue 17, "Size guards missing")"""

from __future__ import annotations

import ast
import sys
import time

import pytest

from racesl.lower.instrument import lower_to_source
from racesl.lower.instrument.facts import ParamFacts
from racesl.runtime import abi
from racesl.runtime import builtins as RB
from racesl.runtime.guards import POW_MOD_COST, g_pow_mod
from racesl.runtime.limits import MAX_INT_BITS, MAX_LEN, SizeExceeded
from racesl.types import builtins as B

from .rtutil import plain, run

BIG_FUEL = 10**7


def size_cut(src, *args, **kw):
    t = time.perf_counter()
    out = run(src, "f", *args, fuel=BIG_FUEL, **kw)
    assert out.status == "size", out
    assert time.perf_counter() - t < 1.5
    return out


# ---------------------------------------------------------------- the table


def test_every_grower_has_a_guard():
    for e in B.ENTRIES:
        if e.growth != 1:
            assert e.guard != "none", e
        if e.guard == "factor":
            assert e.is_method and e.growth > 1 and e.wrapped, e
            assert abi.method(e.name) in RB.RUNTIME, e


def test_the_table_refuses_a_grower_without_a_guard():
    with pytest.raises(ValueError):
        B.Entry("upper", "Str", 0, 0, (), "free", "none", "str", growth=3)
    with pytest.raises(ValueError):
        B.Entry("upper", "Str", 0, 0, (), "free", "factor", "str", growth=1)


def _chars():
    return [chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF]


def test_case_growth_holds_for_every_code_point():
    chars = _chars()
    for name, k in B.GROWING_METHODS.items():
        worst = max(len(getattr(c, name)()) for c in chars)
        assert worst <= k, (name, worst)
    # every Str method the table says does not grow really does not, per character
    for e in B.methods("Str"):
        if e.growth == 1 and e.min_args == 0 and e.result == "str":
            assert max(len(getattr(c, e.name)()) for c in chars) <= 1, e.name


# ---------------------------------------------------------------- the guards


@pytest.mark.parametrize("method,char", [("upper", "\u0390"), ("swapcase", "\u0390"), ("title", " \u0390"),
                                         ("lower", "\u0130"), ("upper", "\u00df")])
def test_case_mappings_are_refused_past_the_limit(method, char):
    src = f"def f(n):\n    s = {char!r} * n\n    return s.{method}()\n"
    n = MAX_LEN // (2 * len(char)) + 10  # within the limit, its mapping is not
    size_cut(src, n)
    small = src
    assert run(small, "f", 7).value == plain(small)["f"](7)
    # repeated mapping cannot grow a str past a constant factor of the limit
    size_cut(f"def f(n):\n    s = {char!r}\n    while True:\n        s = s.{method}() + s.{method}()\n", 1)


def test_case_wrappers_refuse_past_the_limit_and_keep_pythons_errors():
    for name in B.GROWING_METHODS:
        wrapper = RB.RUNTIME[abi.method(name)]
        assert wrapper("aé\u0390") == getattr("aé\u0390", name)()
        with pytest.raises(SizeExceeded):
            wrapper("\u0390\u0130" * (MAX_LEN // 2))
        with pytest.raises(AttributeError):
            wrapper(5)  # Python's own error for a receiver without the method


def _entry_source(src, facts):
    return lower_to_source(ast.parse(src), int_params=facts)


def test_a_short_receiver_needs_no_case_guard():
    src = "def f(s, t):\n    return s.upper() + t.upper() + s[0].lower()\n"
    short = ParamFacts(sized=True, is_str=True, short=True, max_len=20)
    text = _entry_source(src, {"f": {"s": short}})
    entry = text[text.index("def _races_entry__f"):]
    assert "s.upper()" in entry and "_races_meth_upper(t)" in entry  # t: no declared length
    assert "_races_meth_lower" not in entry  # a character of a Str


def test_pow_mod_is_bounded_by_its_work():
    size_cut("def f(n):\n    m = (1 << 8000) - 1\n    return pow(3, m, m) % 7\n", 1)
    # `+` grows an int a bit a step, unguarded: still refused
    size_cut("def f(n):\n    m = 1 << 8000\n    for i in range(n):\n        m = m + m\n"
             "    return pow(3, m - 1, m)\n", 20000)
    # small ones, and a modular inverse, are CPython's
    src = "def f(n):\n    return [pow(n, 65537, (1 << 2048) - 159), pow(n, -1, 97), pow(n, 0, 5)]\n"
    assert run(src, "f", 3).value == plain(src)["f"](3)
    assert g_pow_mod(3, (1 << 3000) - 1, (1 << 3000) + 1) == pow(3, (1 << 3000) - 1, (1 << 3000) + 1)
    with pytest.raises(SizeExceeded):
        g_pow_mod(3, 1 << 200_000, 1 << 600)
    with pytest.raises(SizeExceeded):  # an inverse modulo a huge number
        g_pow_mod(3, -1, (1 << 300_000) + 1)
    with pytest.raises(SizeExceeded):  # a huge base, reduced first
        g_pow_mod(1 << 10**8, 1, (1 << 8000) + 1)
    assert 4096 * (4096 + 200) ** 2 > POW_MOD_COST > 2048 * (2048 + 200) ** 2


def test_pow_mod_through_the_builtin_name_is_bounded_too():
    with pytest.raises(SizeExceeded):
        RB.SAFE_BUILTINS["pow"](3, (1 << MAX_INT_BITS) - 1, (1 << MAX_INT_BITS) - 1)


@pytest.mark.parametrize("expr", ["1 << 10**6", "3 ** 10**5", "(1 << 8000) << 8000", "(1 << 4100) * (1 << 4100)"])
def test_shifts_powers_and_products_stay_bounded(expr):
    size_cut(f"def f(n):\n    return {expr}\n", 1)


def test_pow_mod_of_operands_bounded_small_calls_cpython_directly():
    """Where every operand's bound is known (a word-sized `Int` entry parameter, a literal)
    and `pow_mod_cost` of the bounds is within POW_MOD_COST, the guard could never refuse:
    the entry calls the builtin. An ordinary variant trusts no declaration: guarded."""
    word = ParamFacts(is_int=True, word=True)
    src = "def f(n, k, m):\n    return pow(n, k, m)\n"
    text = lower_to_source(ast.parse(src), int_params={"f": {"n": word, "k": word, "m": word}})
    entry, ordinary = text[text.index("def _races_entry__f"):], text[:text.index("def _races_entry__f")]
    assert "_races_pow(n, k, m)" in entry and "_races_pow_mod" not in entry
    assert "_races_pow_mod(n, k, m)" in ordinary
    # one operand unbounded: guarded in the entry too
    text = lower_to_source(ast.parse(src), int_params={"f": {"n": word, "k": word}})
    assert "_races_pow_mod(n, k, m)" in text[text.index("def _races_entry__f"):]
