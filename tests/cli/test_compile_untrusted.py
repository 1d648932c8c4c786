"""`racesc compile --untrusted`: bodies run in sandbox workers, one per compile process;
the files are byte-identical to an in-process compile for any `--workers`, and an
environment that always times out is dropped there too."""

from __future__ import annotations

import functools
import json

from racesl import resources
from racesl.compile import compile_tasks
from racesl.runtime.limits import MAX_FUEL
from racesl.sandbox_runner import SandboxRunner
from racesl.search.config import CompileConfig
from racesl.search.engine import Executor
from tests.search.test_timeouts import SPIN
from tests.support.tasks import run_racesc, stdlib


def test_untrusted_files_are_byte_identical(tmp_path):
    mods = [resources.stdlib_dir() / f"{m}.races" for m in ("numbers", "strings", "lists")]
    outs = {}
    for name, extra in (("plain", []), ("untrusted", ["--untrusted"]), ("two", ["--untrusted", "--workers", 2])):
        out = tmp_path / f"{name}.jsonl"
        run_racesc("compile", *mods, "-n", 150, "--seed", 2, "-o", out, "-q", "--no-audit", *extra, cwd=tmp_path)
        outs[name] = (out.read_bytes(), (tmp_path / f"{name}.jsonl.library.json").read_bytes())
    assert outs["plain"][0].count(b"\n") == 150
    assert outs["untrusted"] == outs["plain"] and outs["two"] == outs["plain"]


def test_untrusted_bodies_never_run_in_the_compile_process(monkeypatch):
    def local(*a):
        raise AssertionError("a body ran in the compile process")

    monkeypatch.setattr(Executor, "_execute", local)
    lib = stdlib()
    cfg = CompileConfig(n=40, seed=4)
    tasks, summary = compile_tasks(lib, cfg, sandbox=functools.partial(SandboxRunner, lib, workers=1, wall=2.0))
    assert len(tasks) == 40 and summary.executions > 0


def test_untrusted_compile_drops_an_environment_that_times_out(tmp_path):
    (tmp_path / "spin.races").write_text(SPIN, encoding="utf-8")
    got = []
    for extra in ([], ["--untrusted", "--workers", 2]):
        out = tmp_path / "o.jsonl"
        p = run_racesc("compile", tmp_path / "spin.races", "-n", 60, "--seed", 1, "-o", out, "--json",
                       "--no-audit", "--filter", f"max_steps={MAX_FUEL}", "--filter", "wall=0.25", *extra,
                       cwd=tmp_path, timeout=120)
        summary = json.loads(p.stdout)
        assert summary["never_used"]["spin.spin"].startswith("dropped after"), summary["never_used"]
        assert summary["seconds"] < 60
        got.append(out.read_bytes())
    assert got[0] == got[1]


def test_untrusted_audit_runs_in_a_child_and_says_the_same(tmp_path):
    """The shortcut audit re-executes bodies (sort and select answers are scored through
    the library): under --untrusted it runs in a limited child (runtime.children
    `run_limited`), and its verdict and JSON report are those of the plain compile."""
    mods = [resources.stdlib_dir() / f"{m}.races" for m in ("numbers", "lists")]
    got = {}
    for name, extra in (("plain", []), ("untrusted", ["--untrusted"])):
        p = run_racesc("compile", *mods, "-n", 80, "--seed", 3, "-o", tmp_path / f"{name}.jsonl", "--json",
                       *extra, cwd=tmp_path)
        got[name] = json.loads(p.stdout)["audit"]
    assert got["plain"] is not None and "ok" in got["plain"]
    assert got["untrusted"] == got["plain"]


def test_the_untrusted_audit_reports_a_child_that_failed(monkeypatch, capsys, tmp_path):
    import racesl.audit as audit
    from racesl.cli.main import main

    def boom(records):
        raise MemoryError("the audit ran out of memory")

    monkeypatch.setattr(audit, "audit_records", boom)
    out = tmp_path / "t.jsonl"
    mods = [str(resources.stdlib_dir() / "numbers.races")]
    assert main(["compile", *mods, "-n", "20", "--seed", "1", "-o", str(out), "--untrusted"]) == 0
    err = capsys.readouterr().err
    assert "the shortcut audit was stopped: MemoryError: the audit ran out of memory" in err
    assert out.exists()  # the tasks are written; only the verdict is missing
