"""Running untrusted (generated) programs in worker processes.

    with WorkerPool(source, "gen.races", workers=2) as pool:
        outcomes = pool.run_batch([("gen__f", (3,), 400), ("gen__g", ("ab",), 400), ...])

`source` is instrumented text from `racesl.lower.instrument.lower_to_source`. Each worker is
a forked process that compiles it itself (`Program.from_source`), limits its own address
space (`RLIMIT_AS`: its size at start plus `memory_mb`) and CPU time (`RLIMIT_CPU`: `cpu_s`
more seconds for each chunk), runs the watchdog for its whole life, and answers chunks of
16–256 calls with one message each (per MEASURED.md a message per call costs 450–650 µs,
a chunk 9–44 µs a call).

The parent watches every worker through a small shared array (index of the call in
progress, when it started, its wall limit). A worker whose call runs past `wall + margin` — a C call the
watchdog cannot interrupt, or a worker without a watchdog — is killed (SIGKILL, never
abandoned) and replaced; that call is reported as "timeout", the other calls of its chunk are
run again. A worker that dies (memory, SIGXCPU, a crash) is replaced the same way, its call
reported as "error" with "worker died: ...". Results come back in input order and do not
depend on the number of workers or the chunk size (except, inherently, which calls time out
under load). Every result has been checked by `check_result` in the worker, so rendering
it in the parent is safe.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import pickle
import signal
import time
from collections import deque
from multiprocessing.connection import wait

from racesl.runtime.children import close_in_forks, die_with_parent, limit_cpu, limit_memory
from racesl.runtime.execute import Outcome, Program
from racesl.runtime.limits import DEFAULT_WALL, call_limits
from racesl.runtime.watchdog import WATCHDOG

__all__ = ["WorkerPool"]



def _transferable(out: list) -> list:
    """Replace results that cannot be pickled (say, nested too deeply) by errors."""
    fixed = []
    for item in out:
        try:
            pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
            fixed.append(item)
        except (Exception, RecursionError) as exc:  # noqa: B014
            fixed.append((None, "error", item[2], f"result not transferable: {type(exc).__name__}",
                          None))
    return fixed


def _sampler_call(prog, name, args, fuel, wall) -> Outcome:
    """The "rng" call kind: `args` = (a random.Random, *rest); the function gets a SafeRng
    over it, and the value comes back as (value, the generator's state afterwards), so the
    caller's generator continues exactly as if the sampler had run in its own process."""
    from racesl.runtime.builtins import rng_over

    src, rest = args[0], args[1:]
    o = prog.call(name, rest, fuel=fuel, wall=wall, rng=rng_over(src))
    return Outcome((o.value, src.getstate()), o.status, o.steps, o.error, o.line)


def _worker_main(conn, others, source, filename, memory_mb, cpu_s, wall, watchdog, progress, ppid, budgets):
    die_with_parent(ppid)  # killed with the parent, even inside one long C call
    for c in others:  # siblings' pipe ends inherited through fork
        try:
            c.close()
        except OSError:
            pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when workers stop
    prog = Program.from_source(source, filename, budgets)
    if memory_mb:
        limit_memory(memory_mb)
    session = WATCHDOG.session() if watchdog else None
    if session is not None:
        session.__enter__()
    monotonic = time.monotonic
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            break
        if msg is None:
            break
        cid, calls = msg
        if cpu_s:
            limit_cpu(cpu_s)
        out = []
        for k, call in enumerate(calls):
            name, args, fuel = call[:3]
            w = call[3] if len(call) > 3 and call[3] is not None else wall
            progress[2] = w
            progress[0] = k
            progress[1] = monotonic()
            if len(call) > 4 and call[4] == "rng":  # a sampler: args[0] is its random.Random
                o = _sampler_call(prog, name, args, fuel, w if watchdog else None)
            else:
                o = prog.call(name, args, fuel=fuel, wall=w if watchdog else None)
            progress[1] = 0.0
            out.append((o.value, o.status, o.steps, o.error, o.line))
        try:
            conn.send((cid, out))
        except (Exception, RecursionError):  # noqa: B014
            conn.send((cid, _transferable(out)))
    conn.close()


class _Worker:
    __slots__ = ("proc", "conn", "progress", "job", "since")

    def __init__(self, proc, conn, progress):
        self.proc = proc
        self.conn = conn
        self.progress = progress
        self.job = None  # (chunk id, [(index, call), ...]) being run
        self.since = 0.0


class WorkerPool:
    """See the module docstring.

    `workers`: processes; `memory_mb`: address space each may add to what it had when it
    started (RLIMIT_AS); `cpu_s`: CPU seconds a worker may spend on one chunk (RLIMIT_CPU;
    0: no limit); `wall`: the wall limit of one call inside the worker (its watchdog) —
    the parent kills a worker whose call passes `wall + margin` (margin: max(0.5, wall/2)
    by default; a call may carry its own wall as a fourth element); `watchdog`: run the
    in-worker watchdog (off only for tests of the parent's kill); `budgets`: the functions'
    `@fuel` budgets (racesl.lower.budgets): a call of one gets at least its budget and the
    wall limit grown with it (racesl.runtime.limits.call_limits), the kill margin too."""

    def __init__(self, source: str, filename: str, *, workers: int, memory_mb: int = 512,
                 cpu_s: int = 60, wall: float = DEFAULT_WALL, watchdog: bool = True,
                 margin: float | None = None, budgets: dict[str, int] | None = None):
        if workers < 1:
            raise ValueError("workers must be at least 1")
        compile(source, filename, "exec", dont_inherit=True)  # fail here, not in every worker
        self.source = source
        self.filename = filename
        self.memory_mb = memory_mb
        self.cpu_s = cpu_s
        self.wall = wall
        self.watchdog = watchdog
        self.margin = margin  # None: max(0.5, wall / 2) for each call's wall
        self.budgets = dict(budgets or {})
        self.restarts = 0  # workers killed or lost, and replaced
        self._ctx = mp.get_context("fork")
        self._workers: list[_Worker] = []
        self._closed = False
        for _ in range(workers):
            self._workers.append(self._spawn())

    # ------------------------------------------------------------ processes

    def _spawn(self) -> _Worker:
        parent, child = self._ctx.Pipe(duplex=True)
        progress = self._ctx.RawArray("d", 3)  # call index, its start, its wall limit
        others = [w.conn for w in self._workers if w is not None]
        proc = self._ctx.Process(
            target=_worker_main, daemon=True, name="races-worker",
            args=(child, [parent, *others], self.source, self.filename, self.memory_mb,
                  self.cpu_s, self.wall, self.watchdog, progress, os.getpid(), self.budgets))
        close_in_forks(parent)
        proc.start()
        child.close()
        return _Worker(proc, parent, progress)

    def _kill(self, w: _Worker) -> str:
        """Kill `w` (if still running), reap it, and say how it ended."""
        if w.proc.is_alive():
            w.proc.kill()
        w.proc.join(5)
        try:
            w.conn.close()
        except OSError:
            pass
        code = w.proc.exitcode
        if code is None:
            return "still running after SIGKILL"
        if code < 0:
            try:
                return signal.Signals(-code).name
            except ValueError:
                return f"signal {-code}"
        return f"exit code {code}"

    def _replace(self, w: _Worker) -> None:
        i = self._workers.index(w)
        self._workers[i] = None  # (not inherited by the new worker)
        self._workers[i] = self._spawn()
        self.restarts += 1

    # ------------------------------------------------------------ batches

    def run_batch(self, calls: list[tuple]) -> list[Outcome]:
        """Run `(function name, args, fuel)` calls — or `(name, args, fuel, wall)` to give
        one call its own wall limit, `(name, (rng, *args), fuel, wall, "rng")` for a sampler
        (its value comes back as `(value, rng state)`: `_sampler_call`) — and return their
        Outcomes in the same order."""
        if self._closed:
            raise RuntimeError("WorkerPool is closed")
        if self.budgets:
            calls = [self._raised(c) for c in calls]
        n = len(calls)
        results: list[Outcome | None] = [None] * n
        if not n:
            return []
        size = max(16, min(256, math.ceil(n / (4 * len(self._workers)))))
        walls = [c[3] for c in calls if len(c) > 3 and c[3] is not None]
        longest = max(walls, default=self.wall)
        if self.cpu_s and longest > self.wall:  # calls given more time (@fuel): a chunk must fit its CPU limit
            size = max(1, min(size, int(self.cpu_s // longest)))
        items = list(enumerate(calls))
        queue = deque(items[i:i + size] for i in range(0, n, size))
        attempts: dict[int, int] = {}
        next_id = 0
        poll = min(0.05, max(0.005, min([self.wall, *walls]) / 8))
        margin = self.margin

        def limit_of(w: _Worker) -> float:
            wall = w.progress[2] or self.wall
            return wall + (max(0.5, wall / 2) if margin is None else margin)

        def requeue(job, skip):
            rest = [it for k, it in enumerate(job) if k != skip]
            if rest:
                queue.appendleft(rest)

        while queue or any(w.job is not None for w in self._workers):
            for w in self._workers:  # hand out work
                if w.job is None and queue:
                    job = queue.popleft()
                    w.job = (next_id, job)
                    next_id += 1
                    w.since = time.monotonic()
                    try:
                        w.conn.send((w.job[0], [c for _, c in job]))
                    except (OSError, ValueError):
                        pass  # found dead below
            busy = [w for w in self._workers if w.job is not None]
            ready = set(wait([x for w in busy for x in (w.conn, w.proc.sentinel)], timeout=poll))
            now = time.monotonic()
            for w in busy:
                cid, job = w.job
                got = None
                if w.conn in ready or w.proc.sentinel in ready:
                    try:
                        if w.conn.poll():
                            got = w.conn.recv()
                    except (EOFError, OSError):
                        got = None
                    if got is not None and got[0] == cid:
                        for (i, _), r in zip(job, got[1]):
                            results[i] = Outcome(*r)
                        w.job = None
                        continue
                    if w.proc.is_alive() and w.proc.sentinel not in ready:
                        continue
                    # the worker is gone: blame the call in flight, if any
                    k, started = int(w.progress[0]), w.progress[1]
                    reason = self._kill(w)
                    self._replace(w)
                    if started and 0 <= k < len(job):
                        i = job[k][0]
                        results[i] = Outcome(None, "error", 0, f"worker died: {reason}")
                        requeue(job, k)
                    else:  # died between calls: run the chunk again, twice at most
                        for i, _ in job:
                            attempts[i] = attempts.get(i, 0) + 1
                        if max(attempts[i] for i, _ in job) > 2:
                            for i, _ in job:
                                results[i] = Outcome(None, "error", 0, f"worker died: {reason}")
                        else:
                            requeue(job, -1)
                    continue
                # still running: is a call stuck?
                started = w.progress[1]
                k = int(w.progress[0])
                if started and w.progress[1] == started and now - started > limit_of(w) and 0 <= k < len(job):
                    self._kill(w)
                    self._replace(w)
                    i = job[k][0]
                    results[i] = Outcome(None, "timeout", 0,
                                         f"Timeout: worker killed after {now - started:.2f} s")
                    requeue(job, k)
                elif not started and now - w.since > sum((c[3] if len(c) > 3 and c[3] else self.wall) + 1
                                                          for _, c in job) + 10:
                    reason = self._kill(w)  # stuck outside any call (sending a result?)
                    self._replace(w)
                    for i, _ in job:
                        results[i] = Outcome(None, "error", 0, f"worker died: stuck ({reason})")
        return results  # type: ignore[return-value]

    def _raised(self, call: tuple) -> tuple:
        """`call` with the budget and wall limit its function's `@fuel` gives it, where
        larger (as the worker's Program would raise them: here too, for the kill limits)."""
        name, args, fuel = call[:3]
        wall = call[3] if len(call) > 3 and call[3] is not None else self.wall
        f, w = call_limits(self.budgets, name, fuel, wall)
        return call if f == fuel else (name, args, f, w, *call[4:])

    # ------------------------------------------------------------ lifetime

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for w in self._workers:
            try:
                w.conn.send(None)
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + 1.0
        for w in self._workers:
            w.proc.join(max(0.0, deadline - time.monotonic()))
            self._kill(w)

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
