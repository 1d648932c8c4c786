"""`racesc compile`: formats, sidecars, configuration, errors, and atomic output when
interrupted."""

from __future__ import annotations

import json
import signal
import subprocess
import time

import pyarrow.parquet as pq
import pytest

from racesl import resources
from racesl.records import read_records
from racesl.rewards import load_sidecar, score
from tests.support.tasks import HALVE, PYTHON, REPO, TRIPLE, default_sigint, run_racesc, start_racesc, toy_library, wrap

TOY = toy_library("toy", '''\
env add_k(n: Nat, k: Int where 2 <= it <= 9) -> Nat:
    """Add {k} to n, capped at 300."""
    return min(n + k, 300)
''', TRIPLE, HALVE, '''\
env is_even(n: Nat) -> Bool:
    """Return True when n is even."""
    return n % 2 == 0
''')


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    d = tmp_path_factory.mktemp("toycompile")
    (d / "toy.races").write_text(TOY, encoding="utf-8")
    return d / "toy.races"


def _parts(d):
    return sorted(p.name for p in d.iterdir() if p.name.endswith(".part"))


# ------------------------------------------------------------ outputs


def test_formats_sidecar_and_summary(toy, tmp_path):
    """JSONL (with the summary on stdout) and verl's Parquet under its default name; the
    plain Parquet format is covered by tests/search/test_determinism.py."""
    p = run_racesc("compile", toy, "-n", 40, "-o", tmp_path / "a.jsonl", cwd=tmp_path)
    for text in ("40 tasks", "tasks by operator and size", "dropped by filter: ", "graph: ", "usage: most used"):
        assert text in p.stdout, text
    p = run_racesc("compile", toy, "-n", 40, "-o", tmp_path / "a.jsonl", "--summary", "full", cwd=tmp_path)
    for text in ("40 tasks", "tasks by operator and size", "expansions dropped", "signature graph",
                 "usage per environment"):
        assert text in p.stdout, text
    run_racesc("compile", toy, "-n", 40, "--format", "verl", "-q", cwd=tmp_path)  # default name
    a = read_records(tmp_path / "a.jsonl")
    assert len(a) == 40
    assert (tmp_path / "tasks.parquet").exists()
    assert pq.read_table(tmp_path / "tasks.parquet").column_names == [
        "data_source", "prompt", "ability", "reward_model", "extra_info"]
    assert read_records(tmp_path / "tasks.parquet") == a
    for name in ("a.jsonl", "tasks.parquet"):
        side = json.loads((tmp_path / (name + ".library.json")).read_text())
        assert side["library"] == a[0]["library"]
        assert side["modules"] == {"toy": TOY}
    assert _parts(tmp_path) == []
    load_sidecar(tmp_path / "a.jsonl.library.json")  # sort and select re-execute in it
    for r in a:
        assert score(r, wrap(r["answer"])) == 1.0


def test_operators_option(toy, tmp_path):
    out = tmp_path / "o.jsonl"
    run_racesc("compile", toy, "-n", 30, "-o", out, "--operators", "loop=3-4,sort=2", "-q", cwd=tmp_path)
    recs = read_records(out)
    assert {r["operator"] for r in recs} <= {"loop", "sort"}
    assert all(3 <= r["size"] <= 4 for r in recs if r["operator"] == "loop")
    assert all(r["size"] == 2 for r in recs if r["operator"] == "sort")


def test_races_toml_and_command_line_wins(toy, tmp_path):
    (tmp_path / "toy.races").write_text(TOY, encoding="utf-8")
    (tmp_path / "loop.txt").write_text("LOOP {x0} x{times}: {description}", encoding="utf-8")
    (tmp_path / "races.toml").write_text(
        '[compile]\nn = 12\nseed = 4\nsources = ["toy.races"]\n\n[operators]\nloop = "2-2"\n\n'
        '[templates]\nloop = "loop.txt"\n', encoding="utf-8")
    run_racesc("compile", "-o", "x.jsonl", "-q", cwd=tmp_path)
    recs = read_records(tmp_path / "x.jsonl")
    assert len(recs) == 12 and {r["seed"] for r in recs} == {4}
    assert all(r["operator"] == "loop" and r["size"] == 2 for r in recs)
    assert all(r["prompt"].startswith("LOOP " + r["input"] + " x2: ") for r in recs)
    run_racesc("compile", "-o", "y.jsonl", "-n", 5, "--seed", 9, "-q", cwd=tmp_path)
    recs = read_records(tmp_path / "y.jsonl")
    assert len(recs) == 5 and {r["seed"] for r in recs} == {9}


def test_too_small_a_library_warns(tmp_path):
    (tmp_path / "one.races").write_text('''module one

env halve(n: Int where 8 <= it <= 9) -> Int where 4 <= it <= 4:
    """Halve n, rounding down."""
    return n // 2
''', encoding="utf-8")
    p = run_racesc("compile", tmp_path / "one.races", "-n", 50, "-o", tmp_path / "t.jsonl", "-q", cwd=tmp_path)
    assert "only" in p.stderr and "of 50 tasks" in p.stderr
    assert len(read_records(tmp_path / "t.jsonl")) < 50


@pytest.mark.parametrize("args, code", [
    (["--workers", "0"], 2),
    (["--operators", "nosuch"], 2),
    (["--config", "missing.toml"], 2),
    (["--filter", "max_steps=1125899906842625"], 2),  # above MAX_FUEL
])
def test_usage_errors_write_nothing(toy, tmp_path, args, code):
    p = run_racesc("compile", toy, "-n", 5, "-o", tmp_path / "t.jsonl", *args, cwd=tmp_path, check=False)
    assert p.returncode == code, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr
    assert not (tmp_path / "t.jsonl").exists()


def test_bad_sources_write_nothing(tmp_path):
    (tmp_path / "bad.races").write_text("module bad\n\nenv oops(n: Int) -> Int:\n    return n\n", encoding="utf-8")
    p = run_racesc("compile", tmp_path / "bad.races", "-n", 5, "-o", tmp_path / "t.jsonl", cwd=tmp_path, check=False)
    assert p.returncode == 1
    assert "nothing was written" in p.stderr
    assert not (tmp_path / "t.jsonl").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    p = run_racesc("compile", empty, "-n", 5, "-o", tmp_path / "t.jsonl", cwd=tmp_path, check=False)
    assert p.returncode == 2 and not (tmp_path / "t.jsonl").exists()


# ------------------------------------------------------------ interrupted compiles


@pytest.mark.parametrize("sig, after, old", [(signal.SIGINT, 1.5, True), (signal.SIGTERM, 3.0, False)])
def test_interrupted_compile_leaves_nothing_half_written(tmp_path, sig, after, old):
    out = tmp_path / "out.jsonl"
    if old:
        out.write_text('{"old": "complete"}\n')
    p = start_racesc("compile", resources.stdlib_dir(), "-n", 20000, "-o", out, "-q", cwd=tmp_path)
    time.sleep(after)
    assert p.poll() is None, "the compile finished before it could be interrupted"
    p.send_signal(sig)
    p.communicate(timeout=60)
    assert p.returncode != 0
    if old:
        assert out.read_text() == '{"old": "complete"}\n'
    else:
        assert not out.exists()
    assert not (tmp_path / "out.jsonl.library.json").exists()
    assert _parts(tmp_path) == []


_DURING_WRITE = """
import os, signal, sys, time
import racesl.records as R
sig = getattr(signal, sys.argv[1])
orig, count = R.dumps, [0]
def dumps(r):
    count[0] += 1
    if count[0] == 20:  # halfway through writing the file
        os.kill(os.getpid(), sig)
        time.sleep(5)
    return orig(r)
R.dumps = dumps
from racesl.cli.main import main
sys.exit(main(["compile", sys.argv[2], "-n", "40", "-o", sys.argv[3], "-q"]))
"""


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_signal_while_writing_leaves_no_temp_file(toy, tmp_path, sig):
    """A signal that arrives while the records are being written: the old file stays and the
    temporary `.part` file goes. atomic_write cleans up on any Python exception, but the CLI
    installs no SIGTERM handler, so SIGTERM (what `kill`, `timeout` and job schedulers send)
    kills the process inside `write(tmp)` and leaves `.out.jsonl.XXXX.part` behind."""
    out = tmp_path / "out.jsonl"
    out.write_text("old\n")
    p = subprocess.run([PYTHON, "-c", _DURING_WRITE, sig, str(toy), str(out)], cwd=REPO, capture_output=True,
                       text=True, timeout=120, preexec_fn=default_sigint)
    assert p.returncode != 0, p.stderr
    assert out.read_text() == "old\n"
    assert _parts(tmp_path) == [], "temporary file left behind"


# ------------------------------------------------------------ output and sidecar together

_KILL_AT = """
import os, signal, sys
import racesl.atomic as A
import racesl.records as R
point = sys.argv[1]
def die():
    os.kill(os.getpid(), signal.SIGKILL)
orig_dumps, count = R.dumps, [0]
def dumps(r):
    count[0] += 1
    if point == "write" and count[0] == 20:  # halfway through the records
        die()
    return orig_dumps(r)
R.dumps = dumps
real_replace, real_unlink = os.replace, A._unlink
def replace(a, b):
    real_replace(a, b)
    if point == "after_" + ("sidecar" if str(b).endswith(".library.json") else "output"):
        die()
def unlink(p):
    if point == "before_commit":  # the commit's first step: the old output goes
        die()
    real_unlink(p)
    if point == "after_unlink":
        die()
os.replace, A._unlink = replace, unlink
from racesl.cli.main import main
sys.exit(main(["compile", sys.argv[2], "-n", "40", "-o", sys.argv[3], "-q", "--no-solver"]))
"""


def _consistent(out) -> str:
    """'none' (no output: the commit point is absent) or the library hash the output and
    its sidecar both name; fails when the output is there without its own sidecar."""
    if not out.exists():
        return "none"
    side = out.parent / (out.name + ".library.json")
    assert side.exists(), "output without its sidecar"
    lib = json.loads(side.read_text())["library"]
    assert {r["library"] for r in read_records(out)} == {lib}, "output beside another library's sidecar"
    return lib


@pytest.mark.parametrize("point, expect", [("write", "old"), ("before_commit", "old"), ("after_unlink", "none"),
                                           ("after_sidecar", "none"), ("after_output", "new"),
                                           ("never", "new")])
def test_output_and_sidecar_appear_together(toy, tmp_path, point, expect):
    """SIGKILL at each step of the write: the output, when present, has its own library's
    sidecar beside it; the `.part` files a killed run leaves go with the next run."""
    (tmp_path / "old").mkdir()
    old_src = tmp_path / "old" / "toy.races"
    old_src.write_text(TOY.replace("capped at 300", "capped at 300 (old)"), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    run_racesc("compile", old_src, "-n", 10, "-o", out, "-q", "--no-solver", cwd=tmp_path)
    old = _consistent(out)
    p = subprocess.run([PYTHON, "-c", _KILL_AT, point, str(toy), str(out)], cwd=REPO, capture_output=True,
                       text=True, timeout=120)
    if point == "never":
        assert p.returncode == 0, p.stderr
    else:
        assert p.returncode == -signal.SIGKILL, p.stderr
    got = _consistent(out)
    assert {"old": got == old, "none": got == "none", "new": got not in (old, "none")}[expect], (got, old)
    if point == "write":
        assert _parts(tmp_path), "the killed writer left no temporary file: the test tests nothing"
    run_racesc("compile", toy, "-n", 40, "-o", out, "-q", "--no-solver", cwd=tmp_path)
    assert _consistent(out) not in (old, "none")
    assert _parts(tmp_path) == []


def test_a_wrong_worked_example_is_refused_and_nothing_written(tmp_path):
    """Prompts show descriptions' examples: compile refuses a library whose body disagrees
    with one (check's E604, with its line), in process and under --untrusted."""
    src = tmp_path / "wrong.races"
    src.write_text(toy_library("wrong", '''\
env third(n: Nat) -> Nat:
    """Divide n by three, rounding down. Example: 6 -> 3."""
    return n // 3
''', TRIPLE), encoding="utf-8")
    line = next(k for k, t in enumerate(src.read_text().splitlines(), 1) if "Example: 6 -> 3." in t)
    for extra in ((), ("--untrusted",)):
        out = tmp_path / "t.jsonl"
        p = run_racesc("compile", src, "-n", 5, "-o", out, *extra, cwd=tmp_path, check=False)
        assert p.returncode == 1, p.stderr
        assert "Traceback" not in p.stderr
        assert (f"{src}:{line}:" in p.stderr and "error[E604]: the worked example third(6) does not hold: "
                "the example says 3, the body returns 2" in p.stderr)
        assert "1 worked example does not hold; nothing was written" in p.stderr
        assert not out.exists() and not (tmp_path / "t.jsonl.library.json").exists()
    src.write_text(src.read_text().replace("6 -> 3.", "6 -> 2."), encoding="utf-8")
    run_racesc("compile", src, "-n", 5, "-o", tmp_path / "t.jsonl", cwd=tmp_path)  # fixed: written
    assert (tmp_path / "t.jsonl").exists()
