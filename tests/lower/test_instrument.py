"""The instrumentation rewrite itself: shape, determinism, analysis, and what it guards."""

from __future__ import annotations

import ast
import re
import textwrap

import pytest

from racesl.lower.instrument import BOX, DEPTH, LINEMAP_TAG, instrument, line_map, lower_to_source
from racesl.lower.instrument.scope import _bits, _len_bound, _Scope
from racesl.lower.program import load_program
from racesl.runtime import Program
from racesl.runtime.builtins import RUNTIME, SAFE_BUILTINS
from tests.support import typical_corpus as corpus
from tests.support.tricky import FAILING, TRICKY


def mod(src: str) -> ast.Module:
    return ast.parse(textwrap.dedent(src))


def names_called(src: str, **kw) -> list[str]:
    out = instrument(mod(src), **kw)
    return [n.func.id for n in ast.walk(out) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]


ALL_SOURCES = [corpus.SOURCE, TRICKY, FAILING]


def test_input_module_is_not_modified():
    m = mod(corpus.SOURCE)
    before = ast.dump(m, include_attributes=True)
    instrument(m, int_params=corpus.int_params())
    lower_to_source(m)
    assert ast.dump(m, include_attributes=True) == before


@pytest.mark.parametrize("src", ALL_SOURCES)
def test_source_is_deterministic_and_compiles(src):
    a = lower_to_source(mod(src), int_params=corpus.int_params())
    b = lower_to_source(mod(src), int_params=corpus.int_params())
    assert a == b
    compile(a, "x.races", "exec")
    assert a.rstrip("\n").rsplit("\n", 1)[1].startswith(LINEMAP_TAG)


@pytest.mark.parametrize("src", ALL_SOURCES)
def test_every_helper_name_exists_in_the_runtime(src):
    out = instrument(mod(src))
    funcs = {f.name for f in out.body}
    local = set()
    for f in out.body:
        for n in ast.walk(f):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                local.add(n.id)
            elif isinstance(n, ast.arg):
                local.add(n.arg)
    for n in ast.walk(out):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id.startswith("_races"):
            assert n.id in RUNTIME or n.id in local, n.id
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            assert (n.id in SAFE_BUILTINS or n.id in local or n.id in funcs
                    or n.id in ("True", "False", "None")), n.id


def test_signature_and_line_numbers():
    out = instrument(mod("def f(a, b):\n    x = a\n    return x\n"))
    f = out.body[0]
    assert [a.arg for a in f.args.args] == [BOX, DEPTH, "a", "b"]
    for n in ast.walk(out):
        if isinstance(n, (ast.stmt, ast.expr)):
            assert 1 <= n.lineno <= 3


def test_line_map_points_into_the_races_source():
    m = mod(FAILING)
    inst = instrument(m)
    src = ast.unparse(inst)
    lm = line_map(inst, src)
    orig_lines = {n.lineno for n in ast.walk(m) if isinstance(n, ast.stmt)}
    assert lm["lines"] and {o for _, o in lm["lines"]} <= orig_lines


@pytest.mark.parametrize("src,expect", [
    ("def f(n):\n    return n + 1\n", {"n"}),
    ("def f(s):\n    t = 0\n    for c in s:\n        t += len(c) * 2\n    return t\n", {"t"}),
    ("def f(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n", {"t"}),
    ("def f(xs):\n    t = xs[0]\n    for x in xs:\n        t += x\n    return t\n", set()),
    ("def f(k):\n    for i in range(k):\n        j = i * 2\n    return 0\n", {"i", "j", "k"}),
    ("def f(s):\n    for i, c in enumerate(s):\n        pass\n    return 0\n", {"i"}),
    ("def f(n):\n    q, r = divmod(n, 10)\n    a, b = 0, 1\n    a, b = b, a + b\n    return q\n",
     {"n", "q", "r", "a", "b"}),
    ("def f(s):\n    x = 1\n    x = s\n    return x\n", set()),
    ("def f(a, b):\n    m = max(a, b)\n    k = max(a, 3)\n    return m\n", {"a", "b", "m", "k"}),
    ("def f(s):\n    n = s.count('a') + s.find('b') + ord(s[0])\n    return n\n", {"n"}),
])
def test_number_inference(src, expect):
    fn = mod(src).body[0]
    ints = frozenset(p for p in ("n", "k", "a", "b") if p in {a.arg for a in fn.args.args})
    scope = _Scope(fn, ints, frozenset({"f"}))
    assert {n for n in scope.num if n.isidentifier()} == expect


@pytest.mark.parametrize("src,guarded", [
    ("def f(n):\n    return n + 1\n", False),
    ("def f(s, t):\n    return s + t\n", True),
    ("def f(s):\n    return s + 'x'\n", False),
    ("def f(s):\n    return [1] + s\n", False),
    ("def f(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n", False),
    ("def f(s):\n    out = ''\n    for c in s:\n        out += c\n    return out\n", True),
    ("def f(n):\n    return n * 3\n", False),
    ("def f(n):\n    return n * n\n", True),
    ("def f(s):\n    return s * 3\n", True),
    ("def f(n):\n    return n % 7\n", False),
    ("def f(s):\n    return s % 7\n", True),
    ("def f(n):\n    return 2 ** 10\n", False),
    ("def f(n):\n    return 2 ** n\n", True),
    ("def f(n):\n    return n << 3\n", False),
    ("def f(n):\n    return 1 << n\n", True),
    ("def f(s):\n    return f'{s}'\n", True),
    ("def f(n):\n    return f'{n}-{n:>5}'\n", False),
])
def test_guards_only_where_values_can_grow(src, guarded):
    called = names_called(src, int_params={"f": frozenset({"n"})})
    g = [c for c in called if c.startswith("_races_g_")]
    assert bool(g) == guarded, called


def test_loops_with_literal_membership_fold_the_charge():
    src = "def f(s):\n    n = 0\n    for c in s:\n        if c in 'aeiou':\n            n += 1\n    return n\n"
    text = lower_to_source(mod(src))
    fast = text.split("else:")[0]
    assert " * 6 <= _races_f" in fast  # 1 for the iteration + 5 for `in 'aeiou'`, up front
    assert ":=" not in fast  # so the fast copy charges nothing per iteration
    assert Program.from_source(text, "x").call("f", ("education",)).steps == 9 * 6


def test_leaf_functions_skip_the_depth_test():
    out = lower_to_source(mod("def leaf(x):\n    return x\n\ndef caller(x):\n    return leaf(x)\n"))
    leaf, caller = out.split("def caller")
    assert DEPTH + " > " not in leaf
    assert DEPTH + " > " in caller


@pytest.mark.parametrize("src", [
    "def f():\n    try:\n        pass\n    except Exception:\n        pass\n",
    "def f():\n    def g():\n        pass\n",
    "def f():\n    global x\n",
    "def f():\n    with x:\n        pass\n",
    "x = 1\n",
    "def f(a=1):\n    return a\n",
    "def f(*a):\n    return a\n",
])
def test_outside_the_subset_is_refused(src):
    with pytest.raises(ValueError):
        instrument(mod(src))


def test_unknown_names_are_not_program_functions():
    # a bare reference to a name that is neither local, builtin nor a module function is
    # left alone (NameError when run) instead of being wrapped as a helper
    out = lower_to_source(mod("def f():\n    return open\n"))
    assert "lambda" not in out


# ------------------------------------------------------------------ elements of typed parameters

def guards_in(src: str, fn: str, params: set[str]) -> list[str]:
    """The guards called in `fn` (an ordinary function or its `_races_entry__` variant)
    when `params` are declared (`p[]`: a List or Tuple of numbers)."""
    out = instrument(mod(src), int_params={"f": frozenset(params)})
    tree = next(x for x in out.body if isinstance(x, ast.FunctionDef) and x.name == fn)
    return [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            and n.func.id.startswith("_races_g_")]


@pytest.mark.parametrize("src", [
    "def f(xs, k):\n    return [x % k for x in xs]\n",
    "def f(xs, k):\n    out = []\n    for x in xs:\n        out.append(x % k)\n    return out\n",
    "def f(p, k):\n    a, b = p\n    return (a + b) % k\n",
    "def f(xs, k):\n    return (xs[0] + xs[-1]) % k\n",
])
def test_entries_trust_number_elements_of_declared_parameters(src):
    assert guards_in(src, "_races_entry__f", {"k", "xs[]", "p[]"}) == []
    # ordinary variants (called by other bodies) do not: only their callers' static types vouch
    assert guards_in(src, "f", {"k", "xs[]", "p[]"}) != []
    # nor do entries of parameters not declared so
    assert guards_in(src, "_races_entry__f", {"k"}) != []


@pytest.mark.parametrize("src", [
    # the parameter is bound again: its new value's elements are unknown
    "def f(xs, k):\n    xs = g(xs)\n    return [x % k for x in xs]\n",
    "def f(xs, k):\n    xs += g(k)\n    return [x % k for x in xs]\n",
    # shadowed by a comprehension target, or a lambda parameter
    "def f(xs, ys, k):\n    return [x % k for xs in ys for x in xs]\n",
    "def f(xs, k):\n    return (lambda xs: [x % k for x in xs])(g(k))\n",
    # a target rebound by a later clause
    "def f(xs, ys, k):\n    return [x % k for x in xs for x in ys]\n",
])
def test_element_trust_ends_where_the_name_is_rebound(src):
    assert "_races_g_mod" in guards_in(src, "_races_entry__f", {"k", "xs[]"})


def test_trusted_elements_compute_what_cpython_computes():
    src = "def f(xs, p, k):\n    a, b = p\n    return [x * a % k + b for x in xs] + [xs[0] * xs[0]]\n"
    prog = load_program(mod(src), "t", int_params={"f": frozenset({"k", "xs[]", "p[]"})})
    args = ([3, -7, 10**6, True], (5, 2), 11)
    expected = [x * 5 % 11 + 2 for x in args[0]] + [9]
    assert prog.call("f", args).value == expected
    run = prog.function("f")
    assert run(*args) == expected and run.fuel - run.meter[0] == prog.call("f", args).steps


@pytest.mark.parametrize("body", [
    "return len([x for x in xs if x > 1])",
    "return sum(x for x in xs) // 2",
    "return [x * 2 for x in xs][0] + 1",
    "return '-'.join([str(x) for x in xs])",
])
def test_sources_first_evaluated_inside_an_expression_are_charged_ahead(body):
    """No `_races_each` call in the entry's fast copy: the statement charges the source to
    the local counter itself."""
    text = lower_to_source(mod(f"def f(xs):\n    {body}\n"))
    entry = text[text.index("def _races_entry__f"):]
    fast = entry.split("else:")[0]
    assert "_races_each(" not in fast and "_races_n" in fast, entry


@pytest.mark.parametrize("body,ahead", [
    ("return any([x for x in xs])", True),  # a list comprehension is built whole, whoever consumes it
    ("return g(1) + len([x for x in xs])", False),  # a helper call is evaluated before the source
    ("return any(x for x in xs)", False),  # a lazy consumer: it may stop early
    ("return xs.count(1) + len([x for x in xs])", False),  # a method call first
])
def test_which_sources_are_charged_ahead(body, ahead):
    text = lower_to_source(mod(f"def g(n):\n    return n\n\ndef f(xs):\n    {body}\n"))
    entry = text[text.index("def _races_entry__f"):]
    assert bool(re.search(r"_races_n\d+ = ", entry)) == ahead, entry


@pytest.mark.parametrize("src,trusted", [
    ("def f(xs):\n    return sorted(xs)[0]\n", True),
    ("def f(xs):\n    return sum(xs) + len(xs)\n", True),
    ("def f(xs):\n    xs = g(xs)\n    return sorted(xs)[0]\n", False),  # bound again
])
def test_entries_charge_declared_sized_parameters_without_a_type_test(src, trusted):
    out = instrument(mod(src), int_params={"f": frozenset({"xs#"})})
    fns = {x.name: ast.unparse(x) for x in out.body}
    assert ("_races_SZ" not in fns["_races_entry__f"]) == trusted
    assert "_races_SZ" in fns["f"]  # ordinary variants keep the test
    prog = load_program(mod(src.replace("g(xs)", "xs")), "t", int_params={"f": frozenset({"xs#"})})
    out = prog.call("f", ([3, 1, 2],))
    run = prog.function("f")
    from racesl.runtime import WATCHDOG
    with WATCHDOG.session():
        assert (run([3, 1, 2]), run.fuel - run.meter[0]) == (out.value, out.steps)


@pytest.mark.parametrize("src,flat", [
    ("def f(s):\n    return s == s[::-1]\n", True),  # a Str parameter and a slice of it
    ("def f(s, t):\n    n = 0\n    for c in s:\n        if c in t:\n            n += 1\n    return n\n", True),
    ("def f(s):\n    s = g(s)\n    return s == s[::-1]\n", False),  # bound again
    ("def f(s, xs):\n    for c in s:\n        pass\n    for c in xs:\n        pass\n    return c == xs\n", False),
])
def test_entries_compare_str_parameters_without_measuring_them(src, flat):
    """Characters and slices of a Str parameter are flat: compared at once, no `_races_g_deep`."""
    out = instrument(mod(src), int_params={"f": frozenset({"s$", "s#"})})
    fns = {x.name: ast.unparse(x) for x in out.body}
    assert ("_races_g_deep" not in fns["_races_entry__f"]) == flat, fns["_races_entry__f"]
    assert "_races_g_deep" in fns["f"]  # ordinary variants keep the test


@pytest.mark.parametrize("src,guarded", [
    ("def f(s):\n    return ''.join(c + c for c in s)\n", False),  # a character grows by one
    ("def f(s):\n    out = ''\n    for c in s:\n        out = out + c\n    return out\n", False),
    ("def f(s):\n    return s[0] + s[-1]\n", False),
    ("def f(s, t):\n    return [c + t for c in s]\n", False),
    ("def f(s, t):\n    return s + t\n", True),  # whole strings: still guarded
    ("def f(s, t):\n    return [c + c for c in t for c in s] + [c + c for c in [t]]\n", True),
])
def test_characters_of_str_parameters_add_like_short_literals(src, guarded):
    out = instrument(mod(src), int_params={"f": frozenset({"s$", "s#"})})
    entry = next(x for x in out.body if x.name == "_races_entry__f")
    names = {n.id for n in ast.walk(entry) if isinstance(n, ast.Name)}
    growth = {"_races_g_add", "_races_g_iadd", "_races_g_post", "_races_SEQ"}  # call or inline check
    assert bool(names & growth) == guarded, ast.unparse(entry)


LEAVES = """
def twice(k):
    return k + k

def wrapped(k):
    return twice(k)

def push(xs, x):
    return xs.append(x)
"""


@pytest.mark.parametrize("body,inlined", [
    ("return [twice(x) for x in xs]", True),
    ("return '-'.join(str(twice(x)) for x in xs)", True),
    ("return [x for x in xs if twice(x) > 2]", True),
    ("return [twice(x) for x in xs if x > 1]", False),  # after a condition: not every element
    ("return [twice(x) if x else 0 for x in xs]", False),  # behind a conditional
    ("return [twice(x + 1) for x in xs]", False),  # an argument that is no name or constant
    ("return [wrapped(x) for x in xs]", False),  # calls a program function: no leaf
    ("return [twice(x) for x in xs for y in xs]", False),  # two clauses: not once per element
    ("return [x for x in xs if x in 'aeiou']", True),  # a literal `in` test: its length, up front
])
def test_which_leaf_calls_are_evaluated_in_place(body, inlined):
    """A charged-ahead copy that evaluates leaf calls in place charges each element
    `1 + calls` steps with the source; the copy that ticks still calls."""
    text = lower_to_source(mod(LEAVES + f"\ndef f(xs):\n    {body}\n"))
    fn = text[text.index("\ndef f("):text.index("def _races_entry__f")]
    assert bool(re.search(r"_races_n\d+ \* \d+ <= _races_f", fn)) == inlined, fn
    if inlined:
        assert "twice(" not in fn.split("else:")[0], fn


@pytest.mark.parametrize("body,charged_whole", [
    ("return [twice(x) for x in xs]", True),  # a leaf that resizes nothing: the list keeps its length
    ("return [push(ys, x) for x in xs]", False),  # a leaf that appends: counted element by element
])
def test_leaf_calls_that_resize_nothing_leave_a_list_source_charged_ahead(body, charged_whole):
    text = lower_to_source(mod(LEAVES + f"\ndef f(xs, ys):\n    {body}\n"))
    fn = text[text.index("\ndef f("):text.index("def _races_entry__f")]
    assert ("is not _races_list else _races_INF" not in fn) == charged_whole, fn


@pytest.mark.parametrize("body,measured", [
    ("return ''.join(chr(97 + x) for x in xs)", False),
    ("return '-'.join(c + c for c in s)", False),
    ("return ''.join('ab'[x] if x else c for x in xs)", True),  # c is no character here
    ("return ''.join(w for w in xs)", True),  # elements of unknown length
    ("return ''.join(c.upper() for c in s)", True),  # a method's text ('ß'.upper() is 'SS')
    ("return ''.join(str(x) for x in xs)", True),
    ("return ''.join([chr(97 + x) for x in xs])", True),  # a list: measured as it is
])
def test_which_joins_skip_measuring(body, measured):
    """The charged-ahead copy of a join of short texts (at most L characters each) calls
    `str.join` itself, when the source has at most MAX_LEN // (L + len(sep)) elements."""
    src = f"def f(xs, s, c):\n    {body}\n"
    out = instrument(mod(src), int_params={"f": frozenset({"s$", "s#", "xs#"})})
    entry = ast.unparse(next(x for x in out.body if x.name == "_races_entry__f"))
    fast = entry.split("else:")[0]
    skips = "_races_g_join" not in fast and re.search(r"and _races_n\d+ <= \d+:", fast) is not None
    assert skips != measured, entry


@pytest.mark.parametrize("call,inline", [
    ("sorted(xs, reverse=True)", True),
    ("sorted(xs, reverse=r)", True),
    ("sorted(xs, reverse=g(r))", False),  # a keyword that could charge or raise: the runtime's sorted
    ("sorted(xs, key=abs)", False),
])
def test_sorted_in_reverse_is_charged_inline(call, inline):
    text = lower_to_source(mod(f"def g(r):\n    return r\n\ndef f(xs, r):\n    return {call}\n"))
    entry = text[text.index("def _races_entry__f"):]
    assert ("_races_bi_sorted" not in entry and "_races_charge_fail" in entry) == inline, entry


# ------------------------------------------------------------------ ints of known width

@pytest.mark.parametrize("expr,bits", [
    ("5", 3), ("0", 1), ("True", 1), ("-5", 4), ("2 ** 10", 20), ("2 ** 70", None), ("'a'", None), ("1.5", None),
    ("n", 63), ("m", None), ("xs[i]", 63), ("xs[1:]", None), ("ys[0]", None),
    ("n + 1", 64), ("n - n", 64), ("n * n", 126), ("n * m", None), ("n ** 3", 189), ("n ** k", None),
    ("n << 4", 67), ("n >> m", None), ("m % n", None), ("n % 7", 3), ("n // m", None), ("n // 7", 63),
    ("len(m)", 63), ("ord(m)", 21), ("abs(n)", 63), ("max(n, 3)", 63), ("max(n, m)", None),
    ("n < m", 1), ("not m", 1), ("n if m else 7", 63), ("n and 3", 63), ("n / 2", None),
])
def test_bit_bounds(expr, bits):
    b = _bits(ast.parse(expr, mode="eval").body, frozenset({"n", "n~", "xs[~", "m", "k"}))
    assert b == bits


@pytest.mark.parametrize("src,words", [
    # parameters declared within 64 bits, and names every binding keeps within them
    ("def f(n):\n    return n\n", {"n"}),
    ("def f(n):\n    while n > 9:\n        n = n // 10\n    return n\n", {"n"}),
    ("def f(n):\n    x = n % 10\n    y = x * x\n    return y\n", {"n", "x"}),  # (y: 128 bits)
    ("def f(s):\n    for i in range(len(s)):\n        j = i // 2\n    return 0\n", {"i", "j"}),
    ("def f(s):\n    for i, c in enumerate(s):\n        pass\n    return 0\n", {"i"}),
    ("def f(n):\n    q, r = divmod(n, 10)\n    return q\n", {"n", "q", "r"}),
    ("def f(xs):\n    for x in xs:\n        pass\n    a, b = xs\n    return 0\n", {"x", "a", "b"}),
    # counters: assigned narrow ints, moved by narrow steps (at most MAX_FUEL + 1 moves a run)
    ("def f(n):\n    d = 2\n    while d * d <= n:\n        d += 1\n    return d\n", {"n", "d"}),
    ("def f(n):\n    r = n % 7\n    r -= 3\n    r += n % 5\n    return r\n", {"n", "r"}),
    ("def f(n):\n    d = n\n    d += 1\n    return d\n", {"n"}),  # (a 64-bit start)
    ("def f(n):\n    d = 0\n    d += n\n    return d\n", {"n"}),  # (a 64-bit step)
    # growth without a bound: a counter, a doubling, a product's accumulator
    ("def f(n):\n    x = 0\n    while x < n:\n        x = x + 1\n    return x\n", {"n"}),
    ("def f(n):\n    p = 1\n    for i in range(n):\n        p *= 2\n    return p\n", {"n", "i"}),
    ("def f(s):\n    for i, c in enumerate(s, 10 ** 30):\n        pass\n    return 0\n", set()),
    # a parameter bound again to something unknown
    ("def f(n, m):\n    n = m\n    return n\n", set()),
])
def test_word_inference(src, words):
    fn = mod(src).body[0]
    scope = _Scope(fn, frozenset({"n", "m", "n~", "xs[]", "xs[~"}), frozenset({"f"}), True)
    assert {w[:-1] for w in scope.num if w.endswith("~") and not w.endswith("[~")} == words
    # ordinary variants trust no declared parameter
    plain = _Scope(fn, frozenset({"n", "m", "n~", "xs[]", "xs[~"}), frozenset({"f"}))
    assert not {"n~", "x~", "a~"} & plain.num


@pytest.mark.parametrize("src,entry_guards", [
    ("def f(n, k):\n    return n * k % 7\n", []),
    ("def f(n, k):\n    return n ** 2 + (n << 5)\n", []),
    ("def f(n, k):\n    return [(n + i) * (k - j) for i in range(n) for j in range(k)]\n", []),
    ("def f(n, xs):\n    return [x * x * n for x in xs]\n", []),
    # a product that could pass MAX_INT_BITS, or of an undeclared int, keeps its guard
    ("def f(n, k):\n    return n ** 64 * n ** 64 * n ** 3\n", ["_races_g_mul"]),
    ("def f(n, k, m):\n    return n * m\n", ["_races_g_mul"]),
])
def test_products_of_declared_ints_need_no_guard(src, entry_guards):
    params = {"n", "k", "m", "n~", "k~", "xs[]", "xs[~"}
    assert sorted(set(guards_in(src, "_races_entry__f", params))) == entry_guards
    if "m" not in src:
        assert guards_in(src, "f", params) != []  # the ordinary variant keeps them


def test_unguarded_products_compute_what_cpython_computes():
    src = "def f(n, k):\n    return [n * k, n ** 3, (n + 1) * (k - 1), n << 60]\n"
    ints = {"f": frozenset({"n", "k", "n~", "k~"})}
    prog = load_program(mod(src), "t", int_params=ints)
    run = prog.function("f")
    for n, k in ((2 ** 62, -(2 ** 62)), (0, 5), (-7, 3)):
        assert run(n, k) == [n * k, n ** 3, (n + 1) * (k - 1), n << 60]


# ------------------------------------------------------------------ names that hold a str

@pytest.mark.parametrize("src,texts", [
    ("def f(s):\n    out = ''\n    for c in s:\n        out += c\n    return out\n", {"out"}),
    ("def f(n):\n    out = ''\n    for i in range(n):\n        out = out + str(i) + '-'\n    return out\n", {"out"}),
    ("def f(s):\n    t = f'{s}!'\n    u = t[1:] * 2\n    v = u.upper() if u else 'x'\n    return v\n", {"t", "u", "v"}),
    ("def f(s):\n    t = 'ab'\n    for c in t:\n        pass\n    return c\n", {"t", "c"}),
    # another kind of value in any binding, or a parameter (undeclared here)
    ("def f(s):\n    out = ''\n    out = [out]\n    return out\n", set()),
    ("def f(s):\n    out = s\n    out += 'x'\n    return out\n", set()),
    # (a str plus anything else is a str or a TypeError)
    ("def f(xs):\n    out = ''\n    for x in xs:\n        out += x\n    return out\n", {"out"}),
])
def test_str_inference(src, texts):
    scope = _Scope(mod(src).body[0], frozenset(), frozenset({"f"}))
    assert {n[:-1] for n in scope.num if n.endswith("$")} == texts


def test_a_str_local_grows_and_is_searched_without_type_tests():
    src = ("def f(s, n):\n    out = ''\n    for c in s:\n        if c not in out:\n"
           "            out += c * n\n    return out\n")
    text = lower_to_source(mod(src), int_params={"f": frozenset({"n"})})
    assert "_races_type(out)" not in text and "_races_len(out)" in text
    prog = Program.from_source(text, "x")
    for s, n in (("banana", 2), ("", 3), ("abcabc", 1)):
        out = prog.call("f", (s, n))
        assert out.value == "".join(c * n for c in dict.fromkeys(s))
        # each iteration: 1, plus the length of `out` searched
        want, grown = 0, ""
        for c in s:
            want += 1 + len(grown)
            if c not in grown:
                grown += c * n
        assert out.steps == want


@pytest.mark.parametrize("src,sized", [
    ("def f(xs):\n    ys = [x for x in xs]\n    zs = sorted(ys) + ys[1:]\n    zs += xs\n    return 0\n", {"ys", "zs"}),
    ("def f(d):\n    v = d.values()\n    w = 'a-b'.split('-') if d else (1, 2)\n    return 0\n", {"v", "w"}),
    # a range may be too long for len(); a parameter is not declared here; any other binding
    ("def f(n, xs):\n    r = range(n)\n    t = r[1:]\n    ys = xs\n    zs = []\n    zs = zs[0]\n    return 0\n", set()),
])
def test_sized_inference(src, sized):
    scope = _Scope(mod(src).body[0], frozenset(), frozenset({"f"}))
    assert set(scope.sized) == sized


def test_builtins_over_sized_locals_charge_without_a_type_test():
    src = ("def f(xs):\n    best = []\n    for x in xs:\n        best.append(x)\n"
           "    return max(best) + len(sorted(set(xs)))\n")
    text = lower_to_source(mod(src))
    # only `set(xs)` tests its argument (xs is not declared here): max(best), sorted(set(...)) do not
    assert text.split("def _races_entry__f")[1].count("_races_clen") == 1
    prog = Program.from_source(text, "x")
    out = prog.call("f", ([3, 1, 3],))
    assert (out.value, out.steps) == (3 + 2, 3 + 3 + 3 + 2)  # loop, max, set, sorted


def test_counters_in_products_compute_what_cpython_computes():
    src = "def f(n):\n    r = 0\n    while (r + 1) * (r + 1) <= n:\n        r += 1\n    return r\n"
    text = lower_to_source(mod(src))
    assert "_races_g_mul" not in text
    prog = Program.from_source(text, "x")
    for n in (0, 1, 15, 16, 399):
        assert prog.call("f", (n,), fuel=10_000).value == int(n ** 0.5)


def test_budgets_above_max_fuel_are_refused():
    from racesl.runtime.limits import MAX_FUEL

    prog = load_program(mod("def f(n):\n    return n\n"), "t")
    assert prog.call("f", (3,), fuel=MAX_FUEL).value == 3
    with pytest.raises(ValueError, match="MAX_FUEL"):
        prog.call("f", (3,), fuel=MAX_FUEL + 1)
    with pytest.raises(ValueError, match="MAX_FUEL"):
        prog.function("f", fuel=MAX_FUEL + 1)



@pytest.mark.parametrize("expr,bound", [
    ("'abc'", 3), ("(1, 2)", 2), ("[a, b, c]", 3), ("[*a]", None), ("s", 20), ("t", None),
    ("s[1:]", 20), ("s[0]", 1), ("xs[0]", None), ("s + s[::-1]", 40), ("s * 3", 60), ("s * n", None),
    ("s if n else 'ab'", 20), ("sorted(s)", 20), ("[c for c in s if c]", 20), ("[c for s in t for c in s]", None),
    ("[s for s in t]", None),  # (the target shadows the parameter)
])
def test_length_bounds(expr, bound):
    num = frozenset({"s$", "s#:", "n", "xs#:"})
    assert _len_bound(ast.parse(expr, mode="eval").body, num, {"s": 20, "xs": 5}) == bound


@pytest.mark.parametrize("marks,guarded", [
    ({"s#", "s$", "s#:20"}, False),
    ({"s#", "s$"}, True),  # no declared length
    ({"s#", "s$", "s#:60000"}, True),  # s + s could pass MAX_LEN
])
def test_sums_of_short_declared_values_need_no_guard(marks, guarded):
    src = "def f(s):\n    return s + s[::-1]\n"
    text = lower_to_source(mod(src), int_params={"f": frozenset(marks)})
    entry = text[text.index("def _races_entry__f"):]
    assert ("_races_g_" in entry) == guarded
    prog = Program.from_source(text, "x")
    assert prog.function("f")("abc") == "abccba"
