"""A small compiled task file (every operator, sort/select answers re-executed through the
library sidecar) and `racesc serve` started on it as a real process on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import time
import urllib.request

import pytest

from racesl.rewards.libraries import read_tasks
from tests.support.tasks import RACESC, TOY, run_racesc


@pytest.fixture(scope="package")
def tasks_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("serve")
    (d / "shop.races").write_text(TOY, encoding="utf-8")
    run_racesc("compile", d / "shop.races", "-n", 120, "-o", d / "tasks.jsonl", "-q",
               "--operators", "sequential=2-3,parallel=2-3,sort=2-3,select=2-3,branch=2-3,loop=2-3",
               "--filter", "sort_orders=1", cwd=d)
    return d / "tasks.jsonl"


@pytest.fixture(scope="package")
def records(tasks_file):
    return read_tasks(tasks_file)  # (registers the library here too: the in-process verdicts need it)


class Server:
    """A running `racesc serve`, its URL, and its process group (workers included)."""

    def __init__(self, proc: subprocess.Popen, url: str):
        self.proc, self.url = proc, url

    def get(self, path: str) -> dict:
        with urllib.request.urlopen(self.url + path, timeout=30) as r:
            return json.loads(r.read())

    def post(self, path: str, body, timeout: float = 60) -> tuple[int, dict]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def worker_pids(self) -> list[int]:
        return self.get("/health")["workers"]["pids"]

    def stop(self) -> tuple[int, str]:
        """SIGTERM, then the exit code and stderr."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            _, err = self.proc.communicate(timeout=60)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        return self.proc.returncode, err


@contextlib.contextmanager
def serving(tasks, *flags, start_within: float = 120):
    e = dict(os.environ, NO_COLOR="1")
    proc = subprocess.Popen([RACESC, "serve", *map(str, tasks), "--port", "0", *map(str, flags)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=e,
                            start_new_session=True)
    try:
        line, deadline = "", time.monotonic() + start_within
        while "listening on" not in line:
            line = proc.stderr.readline()
            assert line or proc.poll() is None, f"racesc serve exited {proc.poll()}"
            assert time.monotonic() < deadline, f"racesc serve did not start listening within {start_within:g} s"
        yield Server(proc, re.search(r"http://[\d.]+:\d+", line).group(0))
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def gone(pid: int) -> bool:
    """The process no longer runs (it is gone, or a zombie waiting for its reaper)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True
