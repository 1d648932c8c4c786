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
