"""The grammar fuzzer (issue 17): programs grown by tests/hostile/grow.py, seeds 0..N-1
(N = 200, or $RACESL_FUZZ_N), each refused with well-formed diagnostics or run to a cut-off
status or CPython's answer, within the wall limit and 2 GB, with nothing escaping; every
fifth program that checks also runs through `SandboxRunner` (`--untrusted`) and must answer
as in-process.

The programs run in a driver child (`python -m tests.hostile.grow`), since one C call can
hang its process: a program that stops the driver past its deadline is reported as hung,
and the driver restarts after it.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys

from tests.hostile.grow import WALL, grow, judge
from tests.hostile.limits import ROOT, limited

N = int(os.environ.get("RACESL_FUZZ_N", "200"))
UNTRUSTED_EVERY = 5
DEADLINE = WALL + 10.0  # seconds one program may hold the driver (checking, the oracle, a worker)
DRIVER_MEMORY = 4 * 1024 ** 3  # a safety net; the 2 GB bound is judged from the peak RSS


def drive(seeds: list[int]) -> tuple[list[dict], list[int]]:
    """Records of the seeds, and the seeds that hung the driver."""
    records, hung = [], []
    todo = list(seeds)
    while todo:
        argv = [sys.executable, "-m", "tests.hostile.grow", "--untrusted", str(UNTRUSTED_EVERY), *map(str, todo)]
        proc = subprocess.Popen(limited(argv, DRIVER_MEMORY), cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, process_group=0,
                                env=dict(os.environ, PYTHONHASHSEED="0"))
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        try:
            while todo:
                line = proc.stdout.readline() if sel.select(timeout=DEADLINE) else None
                if not line:  # hung past the deadline, or died
                    hung.append(todo.pop(0))
                    break
                rec = json.loads(line)
                assert rec["seed"] == todo[0]
                records.append(rec)
                todo.pop(0)
        finally:
            sel.close()
            if proc.poll() is None:
                os.killpg(proc.pid, 9)
            proc.wait()
            proc.stdout.close()
    return records, hung


def test_grown_programs_are_deterministic():
    assert grow(7) == grow(7)
    assert grow(7).races != grow(8).races
    compile(grow(7).python, "plain", "exec")


def test_fuzz():
    records, hung = drive(list(range(N)))
    failures = [f"seed {r['seed']}: {why}" for r in records if (why := judge(r))]
    failures += [f"seed {s}: hung the driver past {DEADLINE:.0f} s" for s in hung]
    checked = [r for r in records if r.get("checked")]
    answered = [r for r in checked if r.get("status") == "ok" and r.get("value") == r.get("cpython")]
    untrusted = [r for r in checked if "u_status" in r]
    assert not failures, f"{len(failures)} of {N} programs fail:\n" + "\n".join(failures)
    # the fuzzer is not vacuous: most programs check, many agree with CPython, some ran --untrusted
    assert len(checked) >= N // 2, len(checked)
    assert len(answered) >= N // 10, len(answered)
    assert len(untrusted) >= N // 20, len(untrusted)
