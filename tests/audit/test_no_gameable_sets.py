"""The done-when of "no gameable task set is written silently" (issue 32): for the stdlib and
for a second library built to be gameable (tests/fixtures/narrow: small output spaces,
Bool and small-Int outputs, reverse orders that are ill-typed, environments that compose in
one order only), no strategy beats chance in any cell over three seeds, by the audit's own
bar (3 standard errors or the 0.05 margin); and `racesc compile` exits 1 exactly when its
verdict names a shortcut."""

from __future__ import annotations

import functools
import json
import subprocess
from pathlib import Path

import pytest

from racesl.audit import audit_records
from racesl.audit.shortcuts import MIN_TASKS
from racesl.compile import compile_tasks
from racesl.library import load
from racesl.records import to_record
from racesl.rewards import register
from racesl.search.config import CompileConfig
from tests.support.tasks import RACESC, stdlib

NARROW = Path(__file__).resolve().parents[1] / "fixtures" / "narrow"
SEEDS = (0, 1, 2)
N = 240  # tasks per seed and library: every operator, sizes 2 to 4 (cells of ~20)
SIZES = "sequential=2-4,parallel=2-4,sort=2-4,select=2-4,branch=2-4,loop=2-4"


@functools.lru_cache(maxsize=1)
def narrow():
    lib = load([str(NARROW)])
    register(lib)
    return lib


def _records(lib, seed: int, **filters) -> list[dict]:
    from racesl.search.config import Filters, parse_operators

    cfg = CompileConfig(n=N, seed=seed, operators=parse_operators(SIZES), filters=Filters(**filters))
    tasks, _ = compile_tasks(lib, cfg)
    return [to_record(t, k, seed, lib.hash) for k, t in enumerate(tasks)]


def test_the_narrow_library_is_what_it_claims():
    lib = narrow()
    assert len(lib.envs) >= 20
    outs = {str(e.output) for e in lib.envs.values()}
    assert any("Bool" in o for o in outs)


@pytest.mark.parametrize("which", ["stdlib", "narrow"])
@pytest.mark.parametrize("seed", SEEDS)
def test_no_strategy_beats_chance(which, seed):
    lib = stdlib() if which == "stdlib" else narrow()
    records = _records(lib, seed)
    assert len(records) >= N * 0.9
    report = audit_records(records)
    assert report.missing_library == 0
    assert report.ok, report.verdict()
    for c in report.cells:
        if c.n < MIN_TASKS:  # shown, never judged (two tasks that share an answer prove nothing)
            continue
        for name, r in c.results.items():
            assert r.mean <= c.chance + max(report.z * r.se, report.margin), (c.operator, c.size, name)


def test_type_order_is_judged_in_every_letter_cell():
    """Issue 45: the strategy that guesses among the orders the declared types allow is scored
    in every sort and select cell of both libraries (and stays at chance: above)."""
    for lib in (stdlib(), narrow()):
        report = audit_records(_records(lib, 0))
        letters = [c for c in report.cells if c.operator in ("sort", "select")]
        assert letters and all("type_order" in c.results for c in letters)


@pytest.mark.slow
def test_a_2000_task_stdlib_compile_leaves_every_strategy_at_chance():
    """Issue 45: every strategy (type_order included) in every operator × size cell of a
    default 2,000-task stdlib compile, by the audit's own bar."""
    lib = stdlib()
    tasks, _ = compile_tasks(lib, CompileConfig(n=2000, seed=3))
    records = [to_record(t, k, 3, lib.hash) for k, t in enumerate(tasks)]
    assert len(records) == 2000
    report = audit_records(records)
    assert report.ok, report.verdict()
    assert {c.operator for c in report.cells} >= {"sequential", "parallel", "sort", "select", "branch", "loop"}
    for c in report.cells:
        if c.operator in ("sort", "select"):
            assert "type_order" in c.results
        for name, r in c.results.items():
            assert r.mean <= c.chance + max(report.z * r.se, report.margin), (c.operator, c.size, name)


def test_without_the_guard_the_narrow_library_leaks_and_is_named():
    """item_share=1 turns the guard off: the per-environment mode strategy then collects the
    narrow environments' outputs, and the audit names them."""
    report = audit_records(_records(narrow(), 0, item_share=1.0))
    assert not report.ok
    beaten = {name for c in report.cells for name in c.beaten}
    assert "env_mode" in beaten
    named = report.leaks()
    assert named and all(q.startswith(("glyphs.", "tallies.")) for q in named)
    assert "carried by" in report.verdict()


def _compile(tmp_path: Path, *extra: str) -> tuple[int, dict, str]:
    out = tmp_path / "t.jsonl"
    done = subprocess.run([RACESC, "compile", str(NARROW), "-n", "200", "--operators", "parallel=4-8", "-o",
                           str(out), "--json", *extra], capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


def test_compile_exit_code_agrees_with_its_verdict(tmp_path):
    rc, summary, _ = _compile(tmp_path)
    assert summary["audit"]["ok"] and rc == 0
    rc, summary, err = _compile(tmp_path, "--filter", "item_share=1")
    assert not summary["audit"]["ok"] and rc == 1
    assert "--allow-shortcuts" in err and "carried by" in err
    assert (tmp_path / "t.jsonl").exists()  # written all the same
    rc, summary, _ = _compile(tmp_path, "--filter", "item_share=1", "--allow-shortcuts")
    assert not summary["audit"]["ok"] and rc == 0
    done = subprocess.run([RACESC, "audit", str(tmp_path / "t.jsonl")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1 and "env_mode: carried by" in done.stdout


def test_quiet_compile_says_the_verdict_and_exits_1(tmp_path):
    out = tmp_path / "q.jsonl"
    done = subprocess.run([RACESC, "compile", str(NARROW), "-n", "200", "--operators", "parallel=4-8", "-o",
                           str(out), "-q", "--filter", "item_share=1"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and done.stdout == ""
    assert "beat chance" in done.stderr and out.exists()
