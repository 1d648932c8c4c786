"""The reference meter: `instrument(optimize=False)` takes the plain, per-step path of
docs/fuel.md everywhere (no fast path). Every fast path must charge exactly what it
does: on the same inputs both variants return the same value with the same steps; a
budget of exactly those steps suffices for both, and one less cuts both off (FuelOut).

Checked over every stdlib environment (sampled inputs, entry variant and ordinary
variant), the tricky-body corpora of the other tests, and programs built at random.
"""

from __future__ import annotations

import ast
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racesl.library import load
from racesl.lower.instrument import FAST_PATHS, instrument
from racesl.resources import stdlib_dir
from racesl.runtime.watchdog import WATCHDOG
from racesl.sample.seeding import item_rng
from tests.support.meter import call_outcome, compare, entry_outcome, programs

INPUTS = 4  # sampled inputs per stdlib environment
SEED = 16


# ---------------------------------------------------------------- the stdlib

@pytest.fixture(scope="module")
def stdlib():
    lib = load(sorted(stdlib_dir().glob("*.races")))
    opt, ref = programs(lib.module, lib.param_facts)
    return lib, opt, ref


@pytest.mark.slow
def test_stdlib_reference_meter_agrees(stdlib):
    lib, opt, ref = stdlib
    problems: list[str] = []
    checked = 0
    with WATCHDOG.session():
        for q, env in sorted(lib.envs.items()):
            for i in range(INPUTS):
                rng = item_rng(SEED, q, i)
                level = i % 3
                try:
                    x = lib.sample_input(env, rng, level)
                    st_ = lib.sample_settings(env, rng, level)
                except Exception:  # noqa: BLE001 - an unsamplable input is not this test's business
                    continue
                args = (x, *st_)
                routes = (entry_outcome, call_outcome) if i < 2 else (entry_outcome,)
                for route in routes:
                    if compare(opt, ref, env.pyname, args, problems, route) == "ok":
                        checked += 1
    assert not problems, "\n".join(problems[:20])
    assert checked >= 2 * len(lib.envs)


def test_stdlib_reference_meter_takes_no_fast_path(stdlib):
    """The reference emits none of the fast paths' shapes (a charge of a whole length on a
    loop's entry, a source charged ahead, an inline charge, a refund)."""
    lib, _, _ = stdlib
    src = ast.unparse(instrument(lib.module, int_params=lib.param_facts, optimize=False))
    for shape in ("_races_each", "_races_src(", "_races_any_gen", "_races_all_gen", "__length_hint__",
                  "_races_charge_fail", "_races_rows_len", "_races_f -= _races_n", "_races_bi_sorted_key",
                  "_races_meth_sort_key", "_races_maxn_key", "_races_bi_max_key"):
        assert shape not in src, shape
    assert re.search(r"_races_tick_iter\(_races_fuel, _races_i\d+\)", src) is None  # charged ahead


def test_optimize_names_fast_paths():
    m = ast.parse("def f(xs):\n    return sum(xs)\n")
    with pytest.raises(ValueError):
        instrument(m, optimize={"no-such-path"})
    assert ast.dump(instrument(m, optimize=FAST_PATHS)) == ast.dump(instrument(m))
    assert ast.dump(instrument(m, optimize=())) == ast.dump(instrument(m, optimize=False))


# ---------------------------------------------------------------- corpora of tricky bodies

def _corpora():
    from tests.lower.test_differential import CORPUS, corpus_sources
    from tests.support import typical_corpus
    from tests.support.tricky import TRICKY, TRICKY_CALLS

    out = []
    races, _ = corpus_sources()
    out.append(("differential", races, [(f"corpus.{n}", a) for n, _, _, _, ins in CORPUS for a in ins]))
    out.append(("typical", typical_corpus.SOURCE, [(n, a) for n, a, _ in typical_corpus.CASES]))
    out.append(("tricky", TRICKY, list(TRICKY_CALLS)))
    return out


def test_corpora_reference_meter_agrees(tmp_path):
    from tests.support import typical_corpus

    problems: list[str] = []
    for kind, source, calls in _corpora():
        if kind == "differential":
            path = tmp_path / "corpus.races"
            path.write_text(source, encoding="utf-8")
            lib = load([path])
            opt, ref = programs(lib.module, lib.param_facts)
            calls = [(lib.envs[q].pyname, a) for q, a in calls]
        else:
            facts = typical_corpus.int_params() if kind == "typical" else {}
            opt, ref = programs(ast.parse(source), facts)
        with WATCHDOG.session():
            for name, args in calls:
                for route in (entry_outcome, call_outcome):
                    compare(opt, ref, name, tuple(args), problems, route)
    assert not problems, "\n".join(problems[:20])


# ---------------------------------------------------------------- @fuel

FUELED = '''
def spin(n: Int) -> Int:
    t = 0
    for i in range(n):
        t += i % 7
    return t

@fuel(200000)
env collatz_total(n: Int where 1 <= it <= 3000) -> Int:
    """Return the total number of Collatz steps taken by all starting values from 1 to n, plus a spin."""
    total = 0
    for k in range(1, n + 1):
        v = k
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            total += 1
    return total + spin(n) + sum([len(str(k)) for k in range(n)])
'''


def test_fuel_budget_reference_meter_agrees(tmp_path):
    """A program's @fuel budget raises both variants alike: asked for the default 400 steps,
    each runs the ~10^5-step body to the same value with the same count; and that count is
    exact in both (a budget of it suffices, one less cuts both off)."""
    path = tmp_path / "fueled.races"
    path.write_text(FUELED, encoding="utf-8")
    lib = load([path])
    name = lib.envs["fueled.collatz_total"].pyname
    opt, ref = programs(lib.module, lib.param_facts, lib.budgets)
    bare = programs(lib.module, lib.param_facts)
    problems: list[str] = []
    with WATCHDOG.session():
        for n in (1, 37, 2000):
            for route in (entry_outcome, call_outcome):
                a, b = route(opt, name, (n,), 400), route(ref, name, (n,), 400)
                assert a == b and a[0] == "ok", (route.__name__, n, a, b)
                steps = a[2]
                assert steps > 100_000 or n < 2000
                for fuel, want in ((steps, "ok"), (steps - 1, "fuel")):
                    got = [route(p, name, (n,), fuel) for p in bare]
                    if [g[0] for g in got] != [want, want] or (want == "ok" and got != [a, a]):
                        problems.append(f"{route.__name__} n={n} at {fuel}: {got!r:.200}")
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- random programs

_HELPERS = '''
def leaf(v):
    return v * 2 + 1

def vowel(c):
    return c in "aeiou"

def bump(v):
    t = 0
    for k in range(v % 4):
        t += k
    return t
'''

# statements over `xs` (a list of ints), `s` (a str), `n` (an int) and `acc`
_STMTS = [
    "for v in xs:\n    acc += v",
    "for v in xs:\n    if v > n:\n        break\n    acc += 1",
    "for i, v in enumerate(xs):\n    acc += i * v",
    "for c in s:\n    if c in 'aeiou':\n        acc += 1",
    "for c in reversed(s):\n    acc += ord(c) % 3",
    "for a, b in zip(xs, s):\n    acc += a",
    "for i in range(n):\n    acc += i",
    "for i in range(len(xs)):\n    if xs[i] == n:\n        return acc + i",
    "for v in xs:\n    acc += bump(v)",
    "k = 0\nwhile k < n:\n    k += 1\n    acc += k",
    "acc += sum(xs)",
    "acc += len(sorted(xs, key=lambda v: -v))",
    "acc += max(xs, key=lambda v: v % 5, default=0)",
    "acc += sum(leaf(v) for v in xs)",
    "acc += len([leaf(v) for v in xs if v % 2])",
    "acc += len({v % 3 for v in xs})",
    "acc += len({c: 1 for c in s})",
    "acc += int(any(v > n for v in xs))",
    "acc += int(all(vowel(c) for c in s))",
    "acc += len(','.join(str(v) for v in xs))",
    "acc += len(''.join(c for c in s if c in 'abc'))",
    "acc += sum([len(r) for r in [xs, xs]])",
    "acc += len([[v for v in range(3)] for w in xs])",
    "acc += len([c for c in s for d in s])",
    "ys = list(xs)\nys.sort(key=lambda v: v % 3)\nacc += ys[0] if ys else 0",
    "acc += len(list(x for x in range(n)))",
    "acc += n * n * n",
    "acc += 1 if s in 'abcdef' else 0",
    "acc += len([i for i, v in enumerate(xs)])",
]


@st.composite
def program(draw):
    k = draw(st.integers(1, 4))
    stmts = [draw(st.sampled_from(_STMTS)) for _ in range(k)]
    body = "\n".join("    " + line for s in stmts for line in s.split("\n"))
    src = f"{_HELPERS}\ndef main(xs, s, n):\n    acc = 0\n{body}\n    return acc\n"
    return src


@pytest.mark.slow
@settings(max_examples=60, deadline=None, derandomize=True)
@given(program(), st.lists(st.integers(-9, 9), max_size=8), st.text(alphabet="abcdeiou", max_size=8),
       st.integers(0, 6))
def test_random_programs_reference_meter_agrees(src, xs, s, n):
    facts = random.Random(src).choice([{}, {"main": {"n", "xs[]"}}])
    opt, ref = programs(ast.parse(src), facts)
    problems: list[str] = []
    with WATCHDOG.session():
        for route in (entry_outcome, call_outcome):
            compare(opt, ref, "main", (xs, s, n), problems, route)
    assert not problems, src + "\n" + "\n".join(problems)
