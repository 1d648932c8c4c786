"""Who builds the batches: this process alone (`Serial`), or forked workers beside it
(`Forked`); `racesl.compile.ray` adds Ray actors. All three take the same calls from the
driver, which decides every batch and its quotas, so the builders change no task:

    submit(block, lo, hi, quota)  queue the batch of indices lo..hi-1
    results()                     the oldest queued batch's (i, task, stats), in index order
    cancel()                      drop every queued batch (a block is done)
    dropped()                     {environment: timed-out calls} of those dropped
    close(clean)                  stop the workers (clean: they finished normally)
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections import deque

from racesl.compile.generator import Generator
from racesl.runtime.children import close_in_forks, die_with_parent


class Serial:
    """Builds each batch in this process when its results are asked for."""

    def __init__(self, gen: Generator):
        self.gen = gen
        self.queue: deque = deque()

    def submit(self, block: int, lo: int, hi: int, quota: dict[str, float]) -> None:
        self.queue.append((block, lo, hi, quota))

    def results(self) -> list:
        block, lo, hi, quota = self.queue.popleft()
        return self.gen.build_many(range(lo, hi), quota, block)

    def cancel(self) -> None:
        self.queue.clear()

    def dropped(self) -> dict[str, int]:
        return self.gen.search.exec.dropped()

    def close(self, clean: bool) -> None:
        pass


class Forked(Serial):
    """W - 1 forked processes that build chunks of each batch beside this one.

    Inside a batch, every process claims chunks of CHUNK indices from a shared counter
    until none is left, so they all finish within one chunk of each other, however uneven
    the tasks are. This process, done with its share before the workers' results are in,
    claims chunks of the next batch (queued already, its quotas fixed) instead of waiting.

    Not a `multiprocessing.Pool`: its queues are served by threads of the parent, which
    wait for the GIL while the parent builds, so work reached the children late. Here the
    parent writes each batch to a pipe before working itself, and reads results when done.
    """

    def __init__(self, gen: Generator, workers: int):
        super().__init__(gen)
        ctx = mp.get_context("fork")
        self.claim = ctx.Value("q", 0)  # the next index of this block nobody has claimed
        self.conns, self.procs = [], []
        for _ in range(workers - 1):
            ours, theirs = ctx.Pipe()
            close_in_forks(ours)  # a worker holding our end would never see EOF when we die
            # not daemonic: under --untrusted it forks a sandbox worker (`close` always ends it,
            # and it dies with us: see racesl.runtime.children)
            proc = ctx.Process(target=_serve, args=(gen, self.claim, theirs, os.getpid()), daemon=False)
            proc.start()
            theirs.close()
            self.conns.append(ours)
            self.procs.append(proc)
        self.ahead: list = []  # this process's results of the next batch, built while it waited

    def submit(self, block: int, lo: int, hi: int, quota: dict[str, float]) -> None:
        for conn in self.conns:
            conn.send((block, hi, quota))
        super().submit(block, lo, hi, quota)

    def ready(self) -> bool:
        """Whether every worker's results for the oldest queued batch are in."""
        return all(conn.poll() for conn in self.conns)

    def results(self) -> list:
        block, _, hi, quota = self.queue.popleft()
        own = self.ahead + self.gen.build_claimed(self.claim, hi, quota, block)
        self.ahead = []
        if self.queue:  # build into the next batch until the workers' share of this one is in
            nblock, _, nhi, nquota = self.queue[0]
            self.ahead = self.gen.build_claimed(self.claim, nhi, nquota, nblock, until=self.ready)
        results = own + self._collect()
        results.sort(key=lambda r: r[0])
        return results

    def _collect(self) -> list:
        out = []
        for conn in self.conns:
            ok, value = conn.recv()
            if not ok:
                raise RuntimeError(f"a compile worker failed:\n{value}")
            out.extend(value)
        return out

    def cancel(self) -> None:
        """Claim what is left, drop what was built; the next block counts from 0 again."""
        if self.queue:
            with self.claim.get_lock():
                self.claim.value = max(self.claim.value, self.queue[-1][2])
            for _ in self.queue:
                self._collect()
        self.queue.clear()
        self.ahead = []
        self.claim.value = 0

    def close(self, clean: bool) -> None:
        for conn, proc in zip(self.conns, self.procs):
            if clean:
                try:
                    conn.send(None)
                except OSError:
                    pass
            else:
                proc.terminate()
        for conn, proc in zip(self.conns, self.procs):
            proc.join()
            conn.close()


def _serve(gen: Generator, claim, conn, ppid: int) -> None:
    import signal
    import traceback

    die_with_parent(ppid)
    close_in_forks(conn)  # not held by the sandbox workers this one forks (--untrusted)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles ^C and stops us
    try:
        gen.search.exec.open_sandbox()  # this worker's own (--untrusted)
    except Exception:
        conn.send((False, traceback.format_exc()))
        return
    try:
        while True:
            try:
                msg = conn.recv()
            except EOFError:
                return
            if msg is None:
                return
            block, end, quota = msg
            try:
                # stats as plain dicts: unpickling a Counter runs Counter.update in Python, and
                # the parent, which unpickles every result, is the compile's serial part
                results = [(i, task, dict(stats)) for i, task, stats in gen.build_claimed(claim, end, quota, block)]
                conn.send((True, results))
            except Exception:
                conn.send((False, traceback.format_exc()))
    finally:
        gen.search.exec.close_sandbox()
