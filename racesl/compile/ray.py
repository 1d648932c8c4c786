"""Batches built by Ray actors (`racesc compile --ray ADDRESS`, the `ray` extra).

The driver decides every batch and its quotas exactly as it does for forked workers
(racesl.compile.workers); here each batch is cut into one contiguous chunk per actor, and
the chunks' results come back in index order. So the output is the one `--workers 1`
writes, however many actors, machines or retries there are.

The library travels once: its sources go into Ray's object store, and each actor builds
the library, its signature graph and its searches from them when it starts (checking that
it is the very library the driver named: same sources, same racesl version). From then on
a batch message is a block number, an index range and a quota snapshot.
"""

from __future__ import annotations

from collections import deque

from racesl.compile.generator import Generator
from racesl.search.config import CompileConfig


class RayMissing(RuntimeError):
    """Ray is not installed, or the cluster cannot be reached: a one-line message for the user."""


def _ray():
    try:
        import ray
    except ImportError:
        raise RayMissing("--ray needs Ray: pip install -e '.[ray]' in the racesl checkout") from None
    return ray


def check_address(address: str, timeout: float = 5.0) -> None:
    """Refuse, before any work starts, what cannot be a Ray address, and a HOST:PORT nothing
    answers at (Ray itself would retry for minutes)."""
    import socket

    _ray()
    a = address.strip()
    if not a:
        raise ValueError("--ray wants 'local', 'auto' or a cluster address such as 10.0.0.5:6379")
    if a in ("local", "auto"):
        return
    host, sep, port = a.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--ray {address!r}: want 'local', 'auto', HOST:PORT or ray://HOST:PORT")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as e:
        raise RayMissing(f"no Ray cluster answers at {a}: {e.strerror or e}") from None


def chunks(lo: int, hi: int, parts: int) -> list[tuple[int, int]]:
    """lo..hi-1 cut into `parts` contiguous ranges, none empty, in order."""
    n = hi - lo
    parts = max(1, min(parts, n))
    return [(lo + k * n // parts, lo + (k + 1) * n // parts) for k in range(parts)]


class _Builder:
    """One actor: a Generator over the library rebuilt from its sources."""

    def __init__(self, sources: dict, expect: str, cfg: CompileConfig, untrusted: bool):
        import functools
        import os

        os.environ.setdefault("OMP_NUM_THREADS", "1")
        from racesl.library import Library

        lib = Library.from_sources(sources, expect)
        sandbox = None
        if untrusted:
            from racesl.sandbox_runner import SandboxRunner

            sandbox = functools.partial(SandboxRunner, lib, workers=1, wall=cfg.filters.wall)
        self.gen = Generator(lib, cfg, sandbox=sandbox)
        ex = self.gen.search.exec
        ex.warm(self.gen.search.envs[q] for q in self.gen.search.names)
        ex.open_sandbox()

    def build(self, block: int, lo: int, hi: int, quota: dict) -> list:
        return [(i, task, dict(stats)) for i, task, stats in self.gen.build_many(range(lo, hi), quota, block)]

    def finish(self) -> tuple[dict, float]:
        """(dropped environments, this actor's CPU seconds), at the end."""
        import os
        import time

        self.gen.search.exec.close_sandbox()
        return self.gen.search.exec.dropped(), time.process_time() + sum(os.times()[2:4])


LOCAL_STORE = 200 * 2**20  # object store of a Ray started here: batches are small, and it is shared memory


def _unreachable(address: str, e: Exception) -> str:
    text = str(e)
    hint = ""
    if "auth" in text.lower() or "token" in text.lower():
        hint = (" — the cluster wants its token: set RAY_AUTH_MODE=token, and RAY_AUTH_TOKEN (or the token "
                "in ~/.ray/auth_token) as on the cluster")
    first = text.strip().splitlines()[-1] if text.strip() else type(e).__name__
    return f"cannot start or reach Ray at {address!r}: {first[:300]}{hint}"


class OnRay:
    """`workers` actors, one CPU each, on the cluster at `address` ("local": a Ray started
    here for this compile, stopped after)."""

    def __init__(self, lib, cfg: CompileConfig, workers: int, address: str, untrusted: bool = False):
        ray = self.ray = _ray()
        self.owned = not ray.is_initialized()
        if self.owned:
            opts = dict(include_dashboard=False, configure_logging=False, log_to_driver=False)
            try:
                if address == "local":
                    ray.init(num_cpus=workers, object_store_memory=LOCAL_STORE, **opts)
                else:
                    ray.init(address=address, **opts)
            except (ConnectionError, RuntimeError, ray.exceptions.RayError) as e:
                raise RayMissing(_unreachable(address, e)) from None
        sources = ray.put(lib.sources())
        actor = ray.remote(num_cpus=1, max_restarts=0)(_Builder)
        self.actors = [actor.remote(sources, lib.hash, cfg, untrusted) for _ in range(workers)]
        self.queue: deque = deque()
        self.cpu_seconds = 0.0
        self._dropped: dict[str, int] = {}

    def submit(self, block: int, lo: int, hi: int, quota: dict[str, float]) -> None:
        parts = chunks(lo, hi, len(self.actors))
        self.queue.append([a.build.remote(block, a_lo, a_hi, quota) for a, (a_lo, a_hi) in zip(self.actors, parts)])

    def results(self) -> list:
        try:
            parts = self.ray.get(self.queue.popleft())
        except self.ray.exceptions.RayError as e:
            raise RuntimeError(f"a Ray compile worker failed:\n{e}") from None
        return [r for part in parts for r in part]

    def cancel(self) -> None:
        for refs in self.queue:  # let them finish (actors run calls in order), drop what they built
            self.ray.wait(refs, num_returns=len(refs))
        self.queue.clear()

    def dropped(self) -> dict[str, int]:
        for dropped, cpu in self.ray.get([a.finish.remote() for a in self.actors]):
            for q, calls in dropped.items():
                self._dropped[q] = max(calls, self._dropped.get(q, 0))
            self.cpu_seconds += cpu
        return dict(sorted(self._dropped.items()))

    def close(self, clean: bool) -> None:
        for a in self.actors:
            self.ray.kill(a)
        self.actors = []
        if self.owned:
            self.ray.shutdown()
