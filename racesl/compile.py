"""Compile a library into tasks: deterministic batches, optional worker processes.

Determinism: task index i is built from (seed, i) and the quota snapshot of its batch, and
results merge in index order, so `--workers 1` and `--workers 8` give byte-identical
output. Batch k is built from the quotas as they stood after merging batch k - 2 (one
batch of lag): workers always have the next batch queued, so none waits for the merge.

With W workers the parent forks W - 1 processes and works too. Inside a batch, every
process claims small chunks of indices from a shared counter until none is left, so they
all finish within one chunk of each other, however uneven the tasks are. The parent, done
with its share of a batch before the workers' results are in, claims chunks of the next
batch (already queued, its quotas fixed) instead of waiting.
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import os
import time
from collections import Counter, deque
from typing import Callable

import attrs

from racesl.graph.signature import SignatureGraph, build_graph
from racesl.operators.build import Builder
from racesl.records import Task
from racesl.runtime.children import close_in_forks, die_with_parent
from racesl.sample.seeding import item_rng
from racesl.search.config import CompileConfig
from racesl.search.engine import Search
from racesl.search.filters import AnswerShare
from racesl.search.unused import unused_reasons


@attrs.define
class Summary:
    tasks: int = 0
    attempts: int = 0
    executions: int = 0  # environment bodies run (the solver's pruning lowers this)
    reused: int = 0  # results the search already had for that environment, input and settings
    failed: int = 0
    duplicates: int = 0
    by_operator: Counter = attrs.Factory(Counter)
    by_size: Counter = attrs.Factory(Counter)  # (operator, size) → count
    rejections: Counter = attrs.Factory(Counter)
    usage: Counter = attrs.Factory(Counter)
    edges: dict = attrs.Factory(dict)
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    workers: int = 1
    solver: dict = attrs.Factory(dict)  # on, seconds, queries, pruned environments
    unused: dict = attrs.Factory(dict)  # environment no task used → why (search.unused)
    dropped: dict = attrs.Factory(dict)  # environment → its timed-out calls, once it was dropped


class Generator:
    """Builds task i. Lives in the parent and, after fork, in each worker."""

    def __init__(self, lib, cfg: CompileConfig, graph: SignatureGraph | None = None, sandbox=None):
        self.lib = lib
        self.cfg = cfg
        self.solver = None
        t0 = time.perf_counter()
        if graph is None:
            graph, self.solver = build_graph(lib.envs.values(), cfg.solver)
        self.graph = graph
        self.pruned: dict[str, str] = {}
        if self.solver is not None:
            for q, env in sorted(lib.envs.items()):
                why = self.solver.cached.degenerate(env.output, cfg.filters)
                if why:
                    self.pruned[q] = why  # every output would be dropped: never run it
            self.solver.cached.save()
        # the whole solver-backed part: classification, pruning, cache reads and writes
        self.solver_seconds = time.perf_counter() - t0 if self.solver is not None else 0.0
        self.search = Search(lib, self.graph, cfg, exclude=set(self.pruned), sandbox=sandbox)
        self.builder = Builder(self.search, cfg.templates)
        self.ops = [(name, lo, hi) for name, lo, hi in cfg.operators]

    def build(self, i: int, quota: dict[str, float]) -> tuple[int, Task | None, Counter]:
        rng = item_rng(self.cfg.seed, "task", i)
        name, lo, hi = self.ops[rng.randrange(len(self.ops))]
        stats: Counter = Counter()
        if name != "parallel":  # chains shorter than min_path are degenerate
            lo = max(lo, self.cfg.filters.min_path)
            if lo > hi:
                stats["min_path"] += 1
                return i, None, stats
        size = rng.randint(lo, hi)
        task = getattr(self.builder, name)(rng, size, quota, stats)
        return i, task, stats

    def build_many(self, indices, quota: dict[str, float]):
        from racesl.runtime.watchdog import WATCHDOG

        with WATCHDOG.session():
            return [self.build(i, quota) for i in indices]

    def build_claimed(self, claim, end: int, quota: dict[str, float],
                      until: Callable[[], bool] | None = None) -> list:
        """Build chunks of indices claimed from the shared counter `claim` until it reaches
        `end`, or until `until()` says to stop (asked before each claim)."""
        out = []
        while until is None or not until():
            with claim.get_lock():
                lo = claim.value
                if lo >= end:
                    return out
                hi = claim.value = min(lo + CHUNK, end)
            out.extend(self.build_many(range(lo, hi), quota))
        return out


CHUNK = 8  # indices claimed at a time by a worker


class _Workers:
    """Forked processes that build chunks of each batch beside the parent.

    Not a `multiprocessing.Pool`: its queues are served by threads of the parent, which wait
    for the GIL while the parent builds, so work reached the children late. Here the parent
    writes each batch to a pipe before working itself, and reads results when done."""

    def __init__(self, gen: Generator, n: int):
        ctx = mp.get_context("fork")
        self.claim = ctx.Value("q", 0)  # the next task index nobody has claimed
        self.conns, self.procs = [], []
        for _ in range(n):
            ours, theirs = ctx.Pipe()
            close_in_forks(ours)  # a worker holding our end would never see EOF when we die
            # not daemonic: under --untrusted it forks a sandbox worker (`close` always ends it,
            # and it dies with us: see racesl.runtime.children)
            proc = ctx.Process(target=_serve, args=(gen, self.claim, theirs, os.getpid()), daemon=False)
            proc.start()
            theirs.close()
            self.conns.append(ours)
            self.procs.append(proc)
        self.pending = 0  # batches started and not yet collected
        self.last_end = 0

    def start(self, end: int, quota: dict[str, float]) -> None:
        """Queue the batch ending at `end`; a worker takes it up when done with the last."""
        for conn in self.conns:
            conn.send((end, quota))
        self.pending += 1
        self.last_end = end

    def ready(self) -> bool:
        """Whether every worker's results for the oldest pending batch are in."""
        return all(conn.poll() for conn in self.conns)

    def collect(self) -> list:
        """The workers' results for the oldest batch still pending."""
        out = []
        for conn in self.conns:
            ok, value = conn.recv()
            if not ok:
                raise RuntimeError(f"a compile worker failed:\n{value}")
            out.extend(value)
        self.pending -= 1
        return out

    def cancel(self) -> None:
        """Stop every pending batch: claim what is left, drop what was built."""
        with self.claim.get_lock():
            self.claim.value = max(self.claim.value, self.last_end)
        while self.pending:
            self.collect()

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
            try:
                # stats as plain dicts: unpickling a Counter runs Counter.update in Python, and
                # the parent, which unpickles every result, is the compile's serial part
                results = [(i, task, dict(stats)) for i, task, stats in gen.build_claimed(claim, *msg)]
                conn.send((True, results))
            except Exception:
                conn.send((False, traceback.format_exc()))
    finally:
        gen.search.exec.close_sandbox()


def compile_tasks(lib, cfg: CompileConfig, workers: int = 1,
                  progress: Callable[[int, int], None] | None = None,
                  sandbox=None) -> tuple[list[Task], Summary]:
    """`sandbox` (`--untrusted`): a function that starts a runner with a one-process pool,
    `SandboxRunner(lib, workers=1, wall=...)` (racesl.sandbox_runner). Every compile
    process (the parent and each of its workers) then starts one and runs the bodies in
    it, so W workers mean W compile processes and W sandbox processes; the output is the
    same as without."""
    t0, c0 = time.perf_counter(), time.process_time()
    children0 = sum(os.times()[2:4])
    gen = Generator(lib, cfg, sandbox=sandbox)
    summary = Summary(workers=workers, edges=gen.graph.counts())
    if gen.solver is not None:
        st = gen.solver.stats()
        summary.solver = {"on": True, "seconds": gen.solver_seconds, "queries": st["queries"],
                          "pruned": dict(gen.pruned)}
    else:
        summary.solver = {"on": False}
    mean = sum((lo + hi) / 2 for _, lo, hi in gen.ops) / len(gen.ops)
    quota = gen.search.initial_quota(mean)
    tasks: list[Task] = []
    seen: set = set()
    shares = AnswerShare(cfg.filters.answer_share)
    pool = None
    gen.search.exec.warm(gen.search.envs[q] for q in gen.search.names)  # before forking: once, not per worker
    if workers > 1:
        gc.freeze()  # keep the collector from touching (and so copying) the parent's pages
        pool = _Workers(gen, workers - 1)  # the parent builds a share too
    child_cpu = 0.0
    clean = False
    ex = gen.search.exec

    ahead: list = []  # the parent's results of the next batch, built while it waited

    def run_batch(k: int, snapshot: dict[str, float]) -> list:
        nonlocal ahead
        lo, hi = k * cfg.batch, (k + 1) * cfg.batch
        if pool is None:
            return gen.build_many(range(lo, hi), snapshot)
        own = ahead + gen.build_claimed(pool.claim, hi, snapshot)
        # until the workers' share of this batch is in, build ahead into the next one: it
        # is queued already, with its quotas fixed (queued[0]), so this changes no result
        ahead = gen.build_claimed(pool.claim, hi + cfg.batch, queued[0], until=pool.ready)
        results = own + pool.collect()
        results.sort(key=lambda r: r[0])
        return results

    def merge(results) -> bool:
        """Fold one batch into the tasks; True when the compile is done."""
        nonlocal quota, stall
        before = len(tasks)
        for _, task, stats in results:
            summary.attempts += 1
            summary.executions += stats.pop("executions", 0)
            summary.reused += stats.pop("reused", 0)
            summary.rejections.update(stats)
            if task is None:
                summary.failed += 1
                continue
            key = task.key()
            if key in seen:
                summary.duplicates += 1
                continue
            if not shares.admit(task.operator, task.size, task.answer):
                summary.rejections["answer_share"] += 1
                summary.failed += 1
                continue
            seen.add(key)
            tasks.append(task)
            summary.by_operator[task.operator] += 1
            summary.by_size[(task.operator, task.size)] += 1
            for q in task.chain:
                summary.usage[q] += 1
                quota[q] = quota.get(q, 0) - 1
            if len(tasks) == cfg.n:
                return True
        if progress:
            progress(len(tasks), cfg.n)
        stall = stall + 1 if len(tasks) == before else 0
        if stall >= 8:
            return True  # eight batches without a new task: the library cannot make more
        if all(v <= 0 for v in quota.values()):
            quota = gen.search.initial_quota(mean)  # every quota spent: start a new round
        return False

    stall = 0
    try:
        ex.open_sandbox()  # the parent's own, after the forks (--untrusted)
        # quotas of the batches to come: batch k's are those after merging batch k - 2
        # (batches 0 and 1: the initial ones); workers always have the next batch queued
        queued = deque([dict(quota), dict(quota)])
        if pool is not None:
            pool.start(cfg.batch, queued[0])
            pool.start(2 * cfg.batch, queued[1])
        k = 0
        while not merge(run_batch(k, queued.popleft())):
            queued.append(dict(quota))
            if pool is not None:
                pool.start((k + 3) * cfg.batch, queued[-1])
            k += 1
        if pool is not None:
            pool.cancel()
        clean = True
        summary.dropped = ex.dropped()
        summary.unused = unused_reasons(lib, cfg, gen.graph, summary.usage, gen.pruned, summary.dropped,
                                        ex.runner.run if ex.runner is not None else None)
    finally:
        ex.close_sandbox()
        if pool is not None:
            pool.close(clean)
            gc.unfreeze()
    child_cpu = sum(os.times()[2:4]) - children0  # this compile's workers (and sandboxes)
    summary.tasks = len(tasks)
    summary.seconds = time.perf_counter() - t0
    summary.cpu_seconds = time.process_time() - c0 + child_cpu
    return tasks, summary
