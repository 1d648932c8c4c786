"""Workers die with their parent: a SIGKILLed (or SIGTERMed) `racesc compile --workers 2`
leaves no compile worker behind, nor an `--untrusted` sandbox worker stuck in one long
call (before: 13 minutes and ~57 s; see racesl.runtime.children)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import psutil
import pytest

from racesl import resources
from racesl.runtime.limits import MAX_FUEL
from tests.search.test_timeouts import SPIN
from tests.support.tasks import start_racesc

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE  # (reaped by whoever adopted it)
    except psutil.NoSuchProcess:
        return True


def _descendants(p, want: int, busy: float = 0.0, within: float = 90.0) -> list[int]:
    """Pids of `want` or more descendants of `p` once they exist (and, with `busy`, one of
    them has used that much CPU: it is inside a call)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        assert p.poll() is None, p.communicate()
        kids = psutil.Process(p.pid).children(recursive=True)
        if len(kids) >= want:
            try:
                if not busy or max(sum(k.cpu_times()[:2]) for k in kids) >= busy:
                    return [k.pid for k in kids]
            except psutil.NoSuchProcess:
                pass
        time.sleep(0.1)
    raise AssertionError(f"no {want} workers appeared in {within} s")


def _all_gone(pids, within: float = 5.0) -> list[int]:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and not all(_gone(q) for q in pids):
        time.sleep(0.05)
    return [q for q in pids if not _gone(q)]


def _end(p, kids=()) -> None:
    """Kill what is left (survivors hold the output pipes: `communicate` would wait them out)."""
    for q in [p.pid, *kids]:
        try:
            psutil.Process(q).kill()
        except psutil.NoSuchProcess:
            pass
    p.communicate(timeout=30)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_compile_workers_die_with_their_parent(tmp_path, sig):
    p = start_racesc("compile", resources.stdlib_dir(), "-n", 100000, "--workers", 2, "-o", tmp_path / "o.jsonl",
                     "-q", "--no-audit", cwd=tmp_path)
    kids = []
    try:
        kids = _descendants(p, 1)
        time.sleep(0.5)  # at work
        p.send_signal(sig)
        p.wait(30)
        assert _all_gone(kids) == [], "a compile worker outlived its parent"
    finally:
        _end(p, kids)


def test_a_stuck_sandbox_worker_dies_with_its_parent(tmp_path):
    """`spin` loops with fuel for days and a wall limit of ten minutes: its sandbox worker
    would run on after its parent's death until then."""
    (tmp_path / "spin.races").write_text(SPIN, encoding="utf-8")
    p = start_racesc("compile", tmp_path / "spin.races", "-n", 200, "--workers", 2, "--untrusted", "--no-solver",
                     "--filter", f"max_steps={MAX_FUEL}", "--filter", "wall=600", "-o", tmp_path / "o.jsonl",
                     "-q", "--no-audit", cwd=tmp_path)
    kids = []
    try:
        kids = _descendants(p, 3, busy=1.0)  # a compile worker, two sandbox workers, one spinning
        p.kill()
        p.wait(30)
        assert _all_gone(kids) == [], "a worker outlived its parent"
    finally:
        _end(p, kids)


_ORPHAN = """
import os, time
parent = os.getpid()
pid = os.fork()
if pid == 0:
    while os.getppid() == parent:  # until the parent is gone
        time.sleep(0.01)
    die_with_parent(parent)
    time.sleep(60)
    os._exit(0)
print(pid, flush=True)
os._exit(0)
"""


def test_a_worker_whose_parent_died_before_the_request_exits():
    """The parent-death signal is asked for after the fork: a parent already dead by then is
    noticed by the pid check, not by the signal."""
    p = subprocess.run([sys.executable, "-c", _ORPHAN], capture_output=True, text=True, timeout=60)
    assert _all_gone([int(p.stdout)], within=10) == []
