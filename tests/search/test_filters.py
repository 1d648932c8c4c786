"""The degenerate-expansion filters of `Filters`: each drops what it should, each can be
turned off or moved, and the compile summary counts what each one dropped."""

from __future__ import annotations

import json
import re
from collections import Counter

import attrs
import pytest

from racesl.compile import compile_tasks
from racesl.library import load
from racesl.search.config import FILTER_NAMES, CompileConfig, Filters, parse_operators
from racesl.search.filters import value_filter
from tests.support.tasks import run_racesc, toy_library

F = Filters()


# ------------------------------------------------------------ value_filter, unit


@pytest.mark.parametrize("value, why", [
    (0, "value"), (1, "value"), (2, None), (-1, None),
    (500, None), (501, "big_int"), (-501, "big_int"), (-500, None),
    ("ab", None), ("aaaa", "repeated_char"), ("a", "repeated_char"), ("", "repeated_char"),
    ([0], None), ([1, 1], None), ((0, 1), None), ({}, None),
    ([501], None),  # big_int looks at top-level integers only
    ("x" * 98, "repeated_char"), ("xy" * 49, None),
])
def test_value_filter_defaults(value, why):
    assert value_filter(F, value, repr(value)) == why


def test_value_filter_long_text_uses_the_canonical_text():
    v = list(range(2, 40))
    assert len(repr(v)) > 100
    assert value_filter(F, v, repr(v)) == "long_text"
    assert value_filter(attrs.evolve(F, max_text=len(repr(v))), v, repr(v)) is None
    s = "ab" * 49  # 98 characters, 100 with quotes: still short enough
    assert value_filter(F, s, repr(s)) is None
    s = "ab" * 50
    assert value_filter(F, s, repr(s)) == "long_text"


def test_value_filter_every_switch():
    assert value_filter(attrs.evolve(F, drop_values=()), 0, "0") is None
    assert value_filter(attrs.evolve(F, drop_values=(7,)), 7, "7") == "value"
    assert value_filter(attrs.evolve(F, drop_values=(7,)), 1, "1") is None
    assert value_filter(attrs.evolve(F, drop_values=("ab",)), "ab", "'ab'") == "value"
    assert value_filter(attrs.evolve(F, max_int=10**6), 501, "501") is None
    assert value_filter(attrs.evolve(F, repeated_char=False), "zzz", "'zzz'") is None
    every_name = {value_filter(F, v, repr(v)) for v in (0, 501, "zz", "ab" * 60)}
    assert every_name == {"value", "big_int", "repeated_char", "long_text"}
    assert every_name <= set(FILTER_NAMES)


def test_value_filter_keeps_booleans_apart_from_ints():
    """Bool is its own type in the language (`True` is not the integer 1, its text is
    `True`): the "outputs 0 or 1" filter must not drop Bool outputs (regression: `True in
    (0, 1)` holds in Python, which once dropped every Bool-valued environment). Bools are
    dropped by their own filter, which can be turned off."""
    keep = attrs.evolve(F, bool_values=False)
    assert value_filter(keep, True, "True") is None
    assert value_filter(keep, False, "False") is None
    assert value_filter(F, True, "True") == value_filter(F, False, "False") == "bool"
    assert value_filter(F, 1, "1") == "value"


# ------------------------------------------------------------ filters inside a compile

TOY = toy_library("toy", '''\
env add_k(n: Nat, k: Int where 2 <= it <= 9) -> Nat:
    """Add {k} to n, wrapping around at 201."""
    return (n + k) % 201

env double(n: Nat) -> Nat:
    """Double n, wrapping around at 201."""
    return (2 * n) % 201

env parity(n: Nat) -> Nat:
    """Return n modulo 2."""
    return n % 2

env times_thousand(n: Nat) -> Int where 0 <= it <= 200000:
    """Multiply n by 1000."""
    return n * 1000

env stars(n: Nat) -> Str:
    """Write n % 7 + 2 copies of the letter z."""
    return "z" * (n % 7 + 2)

env long_word(n: Nat) -> Str:
    """Write the decimal digits of n followed by 150 letters a and b alternating."""
    return str(n) + "ab" * 75

env spin(n: Nat) -> Nat:
    """Count up to 1000 + n one step at a time, then return n + 1 wrapped at 201."""
    k = 0
    while k < 1000 + n:
        k += 1
    return (n + 1) % 201

env keep_small(n: Nat) -> Nat:
    """Return n when it is at most 200, else 0."""
    return n if n <= 200 else 0
''', top=200, pick_top=200)


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    d = tmp_path_factory.mktemp("filters")
    p = d / "toy.races"
    p.write_text(TOY, encoding="utf-8")
    return p, load([p])


def _compile(lib, n=150, ops="sequential=2-3,parallel=2-3", **filters):
    cfg = CompileConfig(n=n, seed=0, operators=parse_operators(ops), filters=Filters(**filters))
    return compile_tasks(lib, cfg)


def _used(tasks) -> Counter:
    return Counter(q for t in tasks for q in t.chain)


def _outputs(tasks):
    for t in tasks:
        yield from t.trace


@pytest.mark.parametrize("env, filt, off, why", [
    ("toy.parity", "value", {"drop_values": ()}, "outputs 0 or 1"),
    ("toy.times_thousand", "big_int", {"max_int": 10**6}, "integers above 500"),
    ("toy.stars", "repeated_char", {"repeated_char": False}, "a string of one repeated character"),
    ("toy.long_word", "long_text", {"max_text": 1000}, "text longer than 100 characters"),
    ("toy.spin", "fuel", {"max_steps": 10_000}, "more than 400 steps"),
    ("toy.keep_small", "repeated_state", {"repeated_state": False}, "a state repeated along the path"),
])
def test_filter_keeps_env_out_until_turned_off(toy, env, filt, off, why):
    _, lib = toy
    tasks, summary = _compile(lib)
    assert len(tasks) == 150
    # chains: the parallel builder's own handling of repeated states is tested below
    chains = [t for t in tasks if t.operator == "sequential"] if filt == "repeated_state" else tasks
    assert env not in _used(chains), f"{env} ({why}) slipped through"
    assert summary.rejections[filt] > 0, dict(summary.rejections)
    tasks2, summary2 = _compile(lib, **off)
    chains2 = [t for t in tasks2 if t.operator == "sequential"]
    assert _used(chains2)[env] > 0, f"{env} never appears in a chain with the {filt} filter off"
    assert summary2.rejections[filt] == 0, dict(summary2.rejections)


def test_parallel_items_never_copy_their_input(toy):
    """A parallel item whose output equals its input is the one-step case of "a state
    repeated along the path": its answer is a copy of the prompt. The parallel builder runs
    no repeated-state check, so an identity-like environment (`keep_small`) fills parallel
    tasks with such items (and, having spare quota, is drawn for them more than any other)."""
    _, lib = toy
    tasks, _ = _compile(lib)
    copies = [(q, x) for t in tasks if t.operator == "parallel"
              for q, x, y in zip(t.chain, t.extra["inputs"], t.trace) if x == y]
    assert not copies, f"{len(copies)} parallel items answer with their own input, e.g. {copies[:3]}"


def test_default_filters_hold_on_every_output(toy):
    _, lib = toy
    tasks, _ = _compile(lib, n=150)
    for t in tasks:
        states = [t.input, *t.trace] if t.operator == "sequential" else list(t.trace)
        if t.operator == "sequential":
            assert len(set(states)) == len(states), t
        for text in t.trace:
            assert text not in ("0", "1") and len(text) <= 100, t


def test_min_path_drops_short_paths(toy):
    """LANGUAGE §5: paths shorter than `min_path` (2) are dropped. Filters.min_path is never
    read by the search, so `--operators sequential=1-3` still makes 1-step chains, and
    `min_path=3` still makes 2-step ones."""
    _, lib = toy
    tasks, _ = _compile(lib, n=40, ops="sequential=1-3", min_path=3)
    assert tasks, "no tasks at all"
    assert min(t.size for t in tasks) >= 3, Counter(t.size for t in tasks)


# ------------------------------------------------------------ through the CLI


def test_cli_filter_override_and_summary_counts(toy, tmp_path):
    path, _ = toy
    out = tmp_path / "t.jsonl"
    p = run_racesc("compile", path, "-n", "120", "-o", out, "--operators", "sequential=2-3,parallel=2-3",
                   "--summary", "full", cwd=tmp_path)
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(recs) == 120
    assert not any("toy.parity" in r["chain"] for r in recs)
    assert "expansions dropped" in p.stdout
    rows = {name: int(count.replace(",", ""))
            for name, count in re.findall(r"│ ([a-z_]+)\s*│\s*([\d,]+) │", p.stdout)}
    for name in ("value", "big_int", "repeated_char", "long_text", "fuel"):
        assert rows.get(name, 0) > 0, (name, rows, p.stdout)

    out2 = tmp_path / "t2.jsonl"
    run_racesc("compile", path, "-n", "120", "-o", out2, "--operators", "sequential=2-3,parallel=2-3",
               "--filter", "drop_values=[]", "--filter", "max_int=1000000", "-q", cwd=tmp_path)
    recs2 = [json.loads(x) for x in out2.read_text().splitlines()]
    used = Counter(q for r in recs2 for q in r["chain"])
    assert used["toy.parity"] > 0 and used["toy.times_thousand"] > 0, used


@pytest.mark.parametrize("bad", ["nosuch=1", "max_int=[1"])
def test_cli_bad_filter_is_a_usage_error(toy, tmp_path, bad):
    path, _ = toy
    p = run_racesc("compile", path, "-n", "5", "-o", tmp_path / "x.jsonl", "--filter", bad, "-q",
                   cwd=tmp_path, check=False)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "error" in p.stderr
    assert "Traceback" not in p.stderr
    assert not (tmp_path / "x.jsonl").exists()


# ------------------------------------------------------------ static pruning (solver on)

BIT = TOY + '''
@sample(n=pick_n)
env bit(n: Nat) -> Int where 0 <= it <= 1:
    """Return n modulo 2."""
    return n % 2

@sample(n=pick_n)
env huge(n: Nat) -> Int where 1000 <= it <= 2000:
    """Return 1000 plus n."""
    return 1000 + n
'''


@pytest.fixture(scope="module")
def bitlib(tmp_path_factory):
    d = tmp_path_factory.mktemp("prune")
    (d / "toy.races").write_text(BIT, encoding="utf-8")
    return load([d / "toy.races"])


def test_solver_prunes_always_degenerate_outputs(bitlib):
    """LANGUAGE §5: with the solver on, an environment whose output refinement already
    implies a filter is never executed; without it, the filter drops every output."""
    cfg = dict(n=100, seed=0, operators=parse_operators("sequential=2-3,parallel=2-3"))
    tasks, summary = compile_tasks(bitlib, CompileConfig(**cfg))
    assert summary.solver["on"] is True
    assert summary.solver["pruned"].get("toy.bit") == "value"
    assert summary.solver["pruned"].get("toy.huge") == "big_int"
    assert "toy.add_k" not in summary.solver["pruned"] and "toy.parity" not in summary.solver["pruned"]
    assert not {"toy.bit", "toy.huge"} & set(_used(tasks))
    off, s_off = compile_tasks(bitlib, CompileConfig(**cfg, solver=False))
    assert s_off.solver == {"on": False}
    assert not {"toy.bit", "toy.huge"} & set(_used(off))
    assert s_off.executions > summary.executions  # the pruned bodies ran, for nothing
    # moving the filter un-prunes the environment
    moved, s_moved = compile_tasks(bitlib, CompileConfig(**cfg, filters=Filters(drop_values=())))
    assert "toy.bit" not in s_moved.solver["pruned"]
    assert _used(moved)["toy.bit"] > 0
