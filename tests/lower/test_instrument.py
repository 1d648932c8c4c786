"""The instrumentation rewrite itself: shape, determinism, analysis, and what it guards."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from racesl.lower.instrument import BOX, DEPTH, LINEMAP_TAG, instrument, line_map, lower_to_source
from racesl.lower.instrument.scope import _bits, _len_bound, _Scope
from racesl.lower.program import load_program
from racesl.runtime import Program
from racesl.runtime.builtins import RUNTIME, SAFE_BUILTINS
from racesl.runtime.watchdog import WATCHDOG
from tests.support.meter import call_outcome, compare, entry_outcome, programs
from tests.support import typical_corpus as corpus
from tests.support.golden import UPDATE_ENV, snapshot_problem
from tests.support.tricky import FAILING, TRICKY


def mod(src: str) -> ast.Module:
    return ast.parse(textwrap.dedent(src))


ALL_SOURCES = [corpus.SOURCE, TRICKY, FAILING]

# ------------------------------------------------------------------ snapshots and behaviour
#
# What the instrumenter emits is pinned by snapshot files, tests/lower/snapshots/<test>.py:
# one per test, a chunk per input program (its source in comments, then the emitted code,
# less the trailing line-map comment). A change shows as a diff to review; regenerate with
# RACESL_UPDATE_GOLDEN=1 (see REGENERATE). What the emitted code does is checked by running
# it: against the reference meter `instrument(optimize=False)`, at the exact budget.

SNAPSHOTS = Path(__file__).parent / "snapshots"
REGENERATE = ".venv/bin/python -m pytest -q -p no:randomly tests/lower/test_instrument.py"


def emitted(src: str, int_params=None) -> str:
    """The instrumented source of `src`, less its trailing line-map comment."""
    text = lower_to_source(mod(src), **({"int_params": int_params} if int_params else {}))
    body, tag = text.rstrip("\n").rsplit("\n", 1)
    assert tag.startswith(LINEMAP_TAG)
    return body + "\n"


def check_snapshot(name: str, cases) -> None:
    """`cases`: (label, src, int_params or None); all chunks of one snapshot file, compared exactly."""
    parts = [(f"# Snapshot of the code emitted for tests/lower/test_instrument.py::{name}.\n"
              f"# Generated; regenerate with: {UPDATE_ENV}=1 {REGENERATE}\n# ruff: noqa\n")]
    for k, (label, src, ints) in enumerate(cases):
        head = [f"# {'=' * 78}", f"# case {k}: {label}"]
        if ints:
            head.append("# int_params: " + ", ".join(f"{fn}: {sorted(ps)}" for fn, ps in sorted(ints.items())))
        head.append("# input:")
        head += [f"#   {line}" if line else "#" for line in textwrap.dedent(src).rstrip("\n").split("\n")]
        parts.append("\n".join(head) + "\n\n" + emitted(src, ints))
    problem = snapshot_problem(SNAPSHOTS / f"{name}.py", "\n\n".join(parts), REGENERATE)
    assert problem is None, problem


# arguments by parameter name, for running the cases (declared params: within their declarations)
ARGS = {"xs": [3, 1, 2], "ys": [4, 5], "s": "abcab", "t": "ba", "k": 3, "n": 5, "m": 4, "r": True,
        "p": (5, 2), "c": "z", "d": {1: 2}}
G = "def g(n):\n    return n\n"


def agrees_with_reference_meter(src: str, int_params=None) -> None:
    """On the entry and the ordinary variant of `f`: the same outcome and steps as the
    reference meter; exactly those steps suffice, one less is FuelOut."""
    if "g(" in src and "def g(" not in src:
        src = G + "\n" + src
    fn = next(x for x in mod(src).body if x.name == "f")
    args = [ARGS[a.arg] for a in fn.args.args]
    opt, ref = programs(mod(src), int_params or {})
    problems: list[str] = []
    with WATCHDOG.session():
        for route in (entry_outcome, call_outcome):
            compare(opt, ref, "f", args, problems, route)
    assert not problems, problems


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
    scope = _Scope(fn, ints, frozenset({"f"}), entry=True)  # (ordinary variants trust no declaration)
    assert {n for n in scope.num if n.isidentifier()} == expect


GROWTH = [
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
]


def test_guards_only_where_values_can_grow():
    check_snapshot("test_guards_only_where_values_can_grow",
                   [(f"guarded={g}", src, {"f": frozenset({"n"})}) for src, g in GROWTH])


@pytest.mark.parametrize("src,args", [
    ("def f(s, t):\n    return s + t\n", ("a" * 60_000, "b" * 60_000)),
    ("def f(n):\n    return n * n\n", (1 << 5_000,)),
    ("def f(s):\n    return s * 3\n", ("a" * 40_000,)),
    ("def f(n):\n    return 2 ** n\n", (10_000,)),
    ("def f(n):\n    return 1 << n\n", (10_000,)),
])
def test_guarded_growth_past_the_limits_is_cut_off(src, args):
    prog = Program.from_source(lower_to_source(mod(src)), "x")
    assert prog.call("f", args, fuel=10_000).status == "size"


@pytest.mark.parametrize("src", [src for src, _ in GROWTH])
def test_growth_cases_agree_with_the_reference_meter(src):
    agrees_with_reference_meter(src, {"f": frozenset({"n"})})


def test_loops_with_literal_membership_fold_the_charge():
    src = "def f(s):\n    n = 0\n    for c in s:\n        if c in 'aeiou':\n            n += 1\n    return n\n"
    check_snapshot("test_loops_with_literal_membership_fold_the_charge", [("charged 6 a step, up front", src, None)])
    prog = Program.from_source(lower_to_source(mod(src)), "x")
    # 1 for the iteration + 5 for `in 'aeiou'`: exactly enough, and one less is FuelOut
    assert prog.call("f", ("education",), fuel=9 * 6).steps == 9 * 6
    assert prog.call("f", ("education",), fuel=9 * 6 - 1).status == "fuel"
    agrees_with_reference_meter(src)


def test_leaf_functions_skip_the_depth_test():
    src = "def leaf(x):\n    return x\n\ndef caller(x):\n    return leaf(x)\n"
    check_snapshot("test_leaf_functions_skip_the_depth_test", [("only caller tests the depth", src, None)])


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
    src = "def f():\n    return open\n"
    check_snapshot("test_unknown_names_are_not_program_functions", [("no lambda wrapper", src, None)])
    with pytest.raises(NameError):
        Program.from_source(lower_to_source(mod(src)), "x").function("f")()


# ------------------------------------------------------------------ elements of typed parameters

TRUSTED_ELEMENTS = [
    "def f(xs, k):\n    return [x % k for x in xs]\n",
    "def f(xs, k):\n    out = []\n    for x in xs:\n        out.append(x % k)\n    return out\n",
    "def f(p, k):\n    a, b = p\n    return (a + b) % k\n",
    "def f(xs, k):\n    return (xs[0] + xs[-1]) % k\n",
]


def test_entries_trust_number_elements_of_declared_parameters():
    """Entries skip guards on elements of declared parameters; ordinary variants (called by
    other bodies) do not: only their callers' static types vouch; nor undeclared ones."""
    cases = [(f"declared {sorted(ps)}", src, {"f": frozenset(ps)})
             for src in TRUSTED_ELEMENTS for ps in ({"k", "xs[]", "p[]"}, {"k"})]
    check_snapshot("test_entries_trust_number_elements_of_declared_parameters", cases)


@pytest.mark.parametrize("src", TRUSTED_ELEMENTS)
def test_trusted_elements_agree_with_the_reference_meter(src):
    agrees_with_reference_meter(src, {"f": frozenset({"k", "xs[]", "p[]"})})


REBOUND_ELEMENTS = [
    # the parameter is bound again: its new value's elements are unknown
    "def f(xs, k):\n    xs = g(xs)\n    return [x % k for x in xs]\n",
    "def f(xs, k):\n    xs += g(k)\n    return [x % k for x in xs]\n",
    # shadowed by a comprehension target, or a lambda parameter
    "def f(xs, ys, k):\n    return [x % k for xs in ys for x in xs]\n",
    "def f(xs, k):\n    return (lambda xs: [x % k for x in xs])(g(k))\n",
    # a target rebound by a later clause
    "def f(xs, ys, k):\n    return [x % k for x in xs for x in ys]\n",
]


def test_element_trust_ends_where_the_name_is_rebound():
    check_snapshot("test_element_trust_ends_where_the_name_is_rebound",
                   [("entry keeps _races_g_mod", src, {"f": frozenset({"k", "xs[]"})}) for src in REBOUND_ELEMENTS])


def test_trusted_elements_compute_what_cpython_computes():
    src = "def f(xs, p, k):\n    a, b = p\n    return [x * a % k + b for x in xs] + [xs[0] * xs[0]]\n"
    prog = load_program(mod(src), "t", int_params={"f": frozenset({"k", "xs[]", "p[]"})})
    args = ([3, -7, 10**6, True], (5, 2), 11)
    expected = [x * 5 % 11 + 2 for x in args[0]] + [9]
    assert prog.call("f", args).value == expected
    run = prog.function("f")
    assert run(*args) == expected and run.fuel - run.meter[0] == prog.call("f", args).steps


FIRST_SOURCES = [
    "return len([x for x in xs if x > 1])",
    "return sum(x for x in xs) // 2",
    "return [x * 2 for x in xs][0] + 1",
    "return '-'.join([str(x) for x in xs])",
]


def test_sources_first_evaluated_inside_an_expression_are_charged_ahead():
    """No `_races_each` call in the entry's fast copy: the statement charges the source to
    the local counter itself."""
    check_snapshot("test_sources_first_evaluated_inside_an_expression_are_charged_ahead",
                   [("charged ahead", f"def f(xs):\n    {body}\n", None) for body in FIRST_SOURCES])


@pytest.mark.parametrize("body", FIRST_SOURCES)
def test_sources_charged_ahead_agree_with_the_reference_meter(body):
    agrees_with_reference_meter(f"def f(xs):\n    {body}\n")


AHEAD_SOURCES = [
    ("return any([x for x in xs])", True),  # a list comprehension is built whole, whoever consumes it
    ("return g(1) + len([x for x in xs])", False),  # a helper call is evaluated before the source
    ("return any(x for x in xs)", False),  # a lazy consumer: it may stop early
    ("return xs.count(1) + len([x for x in xs])", False),  # a method call first
]


def test_which_sources_are_charged_ahead():
    check_snapshot("test_which_sources_are_charged_ahead",
                   [(f"ahead={ahead}", f"def g(n):\n    return n\n\ndef f(xs):\n    {body}\n", None)
                    for body, ahead in AHEAD_SOURCES])


@pytest.mark.parametrize("body", [b for b, _ in AHEAD_SOURCES])
def test_sources_ahead_or_not_agree_with_the_reference_meter(body):
    agrees_with_reference_meter(f"def g(n):\n    return n\n\ndef f(xs):\n    {body}\n")


SIZED_PARAMS = [
    ("def f(xs):\n    return sorted(xs)[0]\n", True),
    ("def f(xs):\n    return sum(xs) + len(xs)\n", True),
    ("def f(xs):\n    xs = g(xs)\n    return sorted(xs)[0]\n", False),  # bound again
]


def test_entries_charge_declared_sized_parameters_without_a_type_test():
    """Entries skip the `_races_SZ` test of a declared sized parameter; ordinary variants keep it."""
    check_snapshot("test_entries_charge_declared_sized_parameters_without_a_type_test",
                   [(f"trusted={tr}", src, {"f": frozenset({"xs#"})}) for src, tr in SIZED_PARAMS])


@pytest.mark.parametrize("src", [s.replace("g(xs)", "xs") for s, _ in SIZED_PARAMS])
def test_sized_parameters_charge_what_calls_charge(src):
    prog = load_program(mod(src), "t", int_params={"f": frozenset({"xs#"})})
    out = prog.call("f", ([3, 1, 2],))
    run = prog.function("f")
    with WATCHDOG.session():
        assert (run([3, 1, 2]), run.fuel - run.meter[0]) == (out.value, out.steps)
    agrees_with_reference_meter(src, {"f": frozenset({"xs#"})})


FLAT_STR = [
    ("def f(s):\n    return s == s[::-1]\n", True),  # a Str parameter and a slice of it
    ("def f(s, t):\n    n = 0\n    for c in s:\n        if c in t:\n            n += 1\n    return n\n", True),
    ("def f(s):\n    s = g(s)\n    return s == s[::-1]\n", False),  # bound again
    ("def f(s, xs):\n    for c in s:\n        pass\n    for c in xs:\n        pass\n    return c == xs\n", False),
]


def test_entries_compare_str_parameters_without_measuring_them():
    """Characters and slices of a Str parameter are flat: compared at once, no `_races_g_deep`
    in the entry; ordinary variants keep the test."""
    check_snapshot("test_entries_compare_str_parameters_without_measuring_them",
                   [(f"flat={flat}", src, {"f": frozenset({"s$", "s#"})}) for src, flat in FLAT_STR])


@pytest.mark.parametrize("src", [s for s, _ in FLAT_STR])
def test_flat_str_comparisons_agree_with_the_reference_meter(src):
    agrees_with_reference_meter(src, {"f": frozenset({"s$", "s#"})})


CHAR_SUMS = [
    ("def f(s):\n    return ''.join(c + c for c in s)\n", False),  # a character grows by one
    ("def f(s):\n    out = ''\n    for c in s:\n        out = out + c\n    return out\n", False),
    ("def f(s):\n    return s[0] + s[-1]\n", False),
    ("def f(s, t):\n    return [c + t for c in s]\n", False),
    ("def f(s, t):\n    return s + t\n", True),  # whole strings: still guarded
    ("def f(s, t):\n    return [c + c for c in t for c in s] + [c + c for c in [t]]\n", True),
]


def test_characters_of_str_parameters_add_like_short_literals():
    check_snapshot("test_characters_of_str_parameters_add_like_short_literals",
                   [(f"guarded={g}", src, {"f": frozenset({"s$", "s#"})}) for src, g in CHAR_SUMS])


@pytest.mark.parametrize("src", [s for s, _ in CHAR_SUMS])
def test_character_sums_agree_with_the_reference_meter(src):
    agrees_with_reference_meter(src, {"f": frozenset({"s$", "s#"})})


LEAVES = """
def twice(k):
    return k + k

def wrapped(k):
    return twice(k)

def push(xs, x):
    return xs.append(x)
"""


LEAF_CALLS = [
    ("return [twice(x) for x in xs]", True),
    ("return '-'.join(str(twice(x)) for x in xs)", True),
    ("return [x for x in xs if twice(x) > 2]", True),
    ("return [twice(x) for x in xs if x > 1]", False),  # after a condition: not every element
    ("return [twice(x) if x else 0 for x in xs]", False),  # behind a conditional
    ("return [twice(x + 1) for x in xs]", False),  # an argument that is no name or constant
    ("return [wrapped(x) for x in xs]", False),  # calls a program function: no leaf
    ("return [twice(x) for x in xs for y in xs]", False),  # two clauses: not once per element
    ("return [x for x in xs if x in 'aeiou']", True),  # a literal `in` test: its length, up front
]


def test_which_leaf_calls_are_evaluated_in_place():
    """A charged-ahead copy that evaluates leaf calls in place charges each element
    `1 + calls` steps with the source; the copy that ticks still calls."""
    check_snapshot("test_which_leaf_calls_are_evaluated_in_place",
                   [(f"inlined={i}", LEAVES + f"\ndef f(xs):\n    {body}\n", None) for body, i in LEAF_CALLS])


@pytest.mark.parametrize("body", [b for b, _ in LEAF_CALLS])
def test_leaf_calls_agree_with_the_reference_meter(body):
    agrees_with_reference_meter(LEAVES + f"\ndef f(xs):\n    {body}\n")


RESIZING_LEAVES = [
    ("return [twice(x) for x in xs]", True),  # a leaf that resizes nothing: the list keeps its length
    ("return [push(ys, x) for x in xs]", False),  # a leaf that appends: counted element by element
]


def test_leaf_calls_that_resize_nothing_leave_a_list_source_charged_ahead():
    check_snapshot("test_leaf_calls_that_resize_nothing_leave_a_list_source_charged_ahead",
                   [(f"charged_whole={w}", LEAVES + f"\ndef f(xs, ys):\n    {body}\n", None)
                    for body, w in RESIZING_LEAVES])


@pytest.mark.parametrize("body", [b for b, _ in RESIZING_LEAVES])
def test_resizing_leaves_agree_with_the_reference_meter(body):
    agrees_with_reference_meter(LEAVES + f"\ndef f(xs, ys):\n    {body}\n")


JOINS = [
    ("return ''.join(chr(97 + x) for x in xs)", False),
    ("return '-'.join(c + c for c in s)", False),
    ("return ''.join('ab'[x] if x else c for x in xs)", True),  # c is no character here
    ("return ''.join(w for w in xs)", True),  # elements of unknown length
    ("return ''.join(c.upper() for c in s)", True),  # a method's text ('ß'.upper() is 'SS')
    ("return ''.join(str(x) for x in xs)", True),
    ("return ''.join([chr(97 + x) for x in xs])", True),  # a list: measured as it is
]


def test_which_joins_skip_measuring():
    """The charged-ahead copy of a join of short texts (at most L characters each) calls
    `str.join` itself, when the source has at most MAX_LEN // (L + len(sep)) elements."""
    check_snapshot("test_which_joins_skip_measuring",
                   [(f"measured={m}", f"def f(xs, s, c):\n    {body}\n", {"f": frozenset({"s$", "s#", "xs#"})})
                    for body, m in JOINS])


@pytest.mark.parametrize("body", [b for b, _ in JOINS])
def test_joins_agree_with_the_reference_meter(body):
    agrees_with_reference_meter(f"def f(xs, s, c):\n    {body}\n", {"f": frozenset({"s$", "s#", "xs#"})})


SORTS = [
    ("sorted(xs, reverse=True)", True),
    ("sorted(xs, reverse=r)", True),
    ("sorted(xs, reverse=g(r))", False),  # a keyword that could charge or raise: the runtime's sorted
    ("sorted(xs, key=abs)", False),
]


def test_sorted_in_reverse_is_charged_inline():
    check_snapshot("test_sorted_in_reverse_is_charged_inline",
                   [(f"inline={i}", f"def g(r):\n    return r\n\ndef f(xs, r):\n    return {call}\n", None)
                    for call, i in SORTS])


@pytest.mark.parametrize("call", [c for c, _ in SORTS])
def test_sorts_agree_with_the_reference_meter(call):
    agrees_with_reference_meter(f"def g(r):\n    return r\n\ndef f(xs, r):\n    return {call}\n")


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


PRODUCTS = [
    ("def f(n, k):\n    return n * k % 7\n", []),
    ("def f(n, k):\n    return n ** 2 + (n << 5)\n", []),
    ("def f(n, k):\n    return [(n + i) * (k - j) for i in range(n) for j in range(k)]\n", []),
    ("def f(n, xs):\n    return [x * x * n for x in xs]\n", []),
    # a product that could pass MAX_INT_BITS, or of an undeclared int, keeps its guard
    ("def f(n, k):\n    return n ** 64 * n ** 64 * n ** 3\n", ["_races_g_mul"]),
    ("def f(n, k, m):\n    return n * m\n", ["_races_g_mul"]),
]


def test_products_of_declared_ints_need_no_guard():
    """A product that could pass MAX_INT_BITS, or of an undeclared int, keeps its guard;
    the ordinary variant keeps them all."""
    check_snapshot("test_products_of_declared_ints_need_no_guard",
                   [(f"entry guards {g}", src, {"f": frozenset({"n", "k", "m", "n~", "k~", "xs[]", "xs[~"})})
                    for src, g in PRODUCTS])


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
    check_snapshot("test_a_str_local_grows_and_is_searched_without_type_tests",
                   [("no _races_type(out)", src, {"f": frozenset({"n"})})])
    text = lower_to_source(mod(src), int_params={"f": frozenset({"n"})})
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
    # only `set(xs)` tests its argument (xs is not declared here): max(best), sorted(set(...)) do not
    check_snapshot("test_builtins_over_sized_locals_charge_without_a_type_test", [("one _races_clen", src, None)])
    text = lower_to_source(mod(src))
    prog = Program.from_source(text, "x")
    out = prog.call("f", ([3, 1, 3],))
    assert (out.value, out.steps) == (3 + 2, 3 + 3 + 3 + 2)  # loop, max, set, sorted


def test_counters_in_products_compute_what_cpython_computes():
    src = "def f(n):\n    r = 0\n    while (r + 1) * (r + 1) <= n:\n        r += 1\n    return r\n"
    check_snapshot("test_counters_in_products_compute_what_cpython_computes", [("no _races_g_mul", src, None)])
    text = lower_to_source(mod(src))
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
    prog = Program.from_source(text, "x")
    assert prog.function("f")("abc") == "abccba"
    if guarded:  # an undeclared length: the entry's guard cuts an oversized sum off
        assert prog.call("f", ("a" * 60_000,)).status == "size"


def test_sums_of_short_declared_values_need_no_guard_snapshot():
    check_snapshot("test_sums_of_short_declared_values_need_no_guard",
                   [(f"guarded={g}", "def f(s):\n    return s + s[::-1]\n", {"f": frozenset(m)})
                    for m, g in (({"s#", "s$", "s#:20"}, False), ({"s#", "s$"}, True),
                                 ({"s#", "s$", "s#:60000"}, True))])
