"""Shared limits of the hostile tests: every `racesc` and CPython child runs under a 2 GB
address-space limit and a wall timeout, so a hole in the sandbox fails a test instead of
taking the machine down."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RACESC = str(Path(sys.executable).with_name("racesc"))
MEMORY = 2 * 1024 ** 3  # bytes of address space a child may map
WALL = 60.0  # seconds a child may run
CUT = {"fuel", "timeout", "size", "recursion", "error"}


# Sets the address-space limit, then becomes argv: no preexec_fn (unsafe with threads).
_LAUNCH = ("import os, resource, sys; m = int(sys.argv[1]); resource.setrlimit(resource.RLIMIT_AS, (m, m)); "
           "os.execv(sys.argv[2], sys.argv[2:])")


def limited(argv: list[str], memory: int = MEMORY) -> list[str]:
    """argv, run under an address-space limit of `memory` bytes."""
    return [sys.executable, "-c", _LAUNCH, str(memory), *argv]


def child(argv: list[str], *, cwd, timeout: float = WALL, stdin: str | None = None,
          env: dict | None = None) -> tuple[subprocess.CompletedProcess | None, float]:
    """Run argv under the limits; (None, elapsed) when it ran past `timeout` (then its whole
    process group is killed)."""
    e = dict(os.environ, PYTHONHASHSEED="0", NO_COLOR="1", **(env or {}))
    t0 = time.monotonic()
    p = subprocess.Popen(limited(argv), cwd=cwd, env=e, text=True,
                         stdin=subprocess.PIPE if stdin is not None else None, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, process_group=0,  # a timeout kills its workers too
                         encoding="utf-8", errors="backslashreplace")
    try:
        out, err = p.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, 9)
        except ProcessLookupError:
            pass
        p.communicate()
        return None, time.monotonic() - t0
    return subprocess.CompletedProcess(argv, p.returncode, out, err), time.monotonic() - t0


def racesc(*args, cwd, timeout: float = WALL, stdin: str | None = None):
    return child([RACESC, *map(str, args)], cwd=cwd, timeout=timeout, stdin=stdin)
