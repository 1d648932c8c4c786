"""`racesc compile --ray`: real Ray, on this machine (`local`) and as a cluster head on
127.0.0.1; the output is byte for byte the one `--workers 1` writes."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from racesl import resources
from racesl.compile.ray import RayMissing, check_address, chunks
from tests.support.tasks import RACESC, run_racesc

RAY = str(Path(RACESC).with_name("ray"))
N = 3000


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ray") / "one.jsonl"
    run_racesc("compile", resources.stdlib_dir(), "-n", N, "--seed", 5, "--no-audit", "-q", "-o", out)
    return out.read_bytes()


@pytest.mark.parametrize("lo, hi, parts", [(0, 256, 2), (256, 512, 3), (0, 5, 8), (7, 8, 1)])
def test_chunks_cut_a_batch_into_ordered_ranges(lo, hi, parts):
    got = chunks(lo, hi, parts)
    assert got[0][0] == lo and got[-1][1] == hi and all(a < b for a, b in got)
    assert all(got[k][1] == got[k + 1][0] for k in range(len(got) - 1))
    assert len(got) == min(parts, hi - lo)


@pytest.mark.parametrize("address, message", [("", "wants 'local'"), ("nohost", "HOST:PORT"),
                                              ("1.2.3.4:99999", "HOST:PORT")])
def test_an_address_that_cannot_be_one_is_refused(address, message):
    with pytest.raises(ValueError, match=message):
        check_address(address)


def test_an_address_nobody_answers_at_is_refused_at_once(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # free, and nothing listens once closed
    with pytest.raises(RayMissing, match="no Ray cluster answers"):
        check_address(f"127.0.0.1:{port}")
    p = run_racesc("compile", resources.stdlib_dir(), "-n", 20, "--ray", f"127.0.0.1:{port}", "-o",
                   tmp_path / "x.jsonl", cwd=tmp_path, check=False, timeout=60)
    assert p.returncode == 2 and "no Ray cluster answers" in p.stderr and "Traceback" not in p.stderr
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
def test_ray_local_writes_what_one_worker_writes(tmp_path, reference):
    out = tmp_path / "ray.jsonl"
    run_racesc("compile", resources.stdlib_dir(), "-n", N, "--seed", 5, "--no-audit", "-q", "--ray", "local",
               "--workers", 2, "-o", out, timeout=300)
    assert out.read_bytes() == reference


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_a_ray_head_on_127_0_0_1_writes_what_one_worker_writes(tmp_path, reference):
    """A real cluster head (`ray start --head`), reached at its address with its token."""
    port = _free_port()
    env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32), OMP_NUM_THREADS="1")
    temp = Path("/tmp") / f"rt{port}"  # short: Ray's socket paths must fit 107 characters
    head = subprocess.Popen([RAY, "start", "--head", "--block", "--node-ip-address", "127.0.0.1", "--port", str(port),
                             "--num-cpus", "2", "--include-dashboard", "false", "--disable-usage-stats",
                             "--temp-dir", str(temp)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert head.poll() is None, head.stderr.read().decode()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the Ray head did not start"
                time.sleep(0.5)
        out = tmp_path / "cluster.jsonl"
        run_racesc("compile", resources.stdlib_dir(), "-n", N, "--seed", 5, "--no-audit", "-q", "--ray",
                   f"127.0.0.1:{port}", "--workers", 2, "-o", out, env=env, timeout=300)
        assert out.read_bytes() == reference
    finally:
        os.killpg(head.pid, signal.SIGTERM)  # the head and every process it started
        try:
            head.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()
