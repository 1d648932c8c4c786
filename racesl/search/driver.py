"""Compile a library into tasks: deterministic batches, optional worker processes.

Determinism: task index i is built from (seed, i) and the quota snapshot of its batch.
Batches have a fixed size, workers split a batch by index, and results merge in index
order — so `--workers 1` and `--workers 8` give byte-identical output. With W workers the
parent forks W - 1 processes and builds the first share of each batch itself: W busy
processes on W cores, none waiting idle for the others.
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import os
import time
from collections import Counter
from typing import Callable

import attrs

from racesl.graph.signature import SignatureGraph, build_graph
from racesl.operators.build import Builder, Task
from racesl.sample.seeding import item_rng
from racesl.search.config import CompileConfig
from racesl.search.engine import Search


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


class Generator:
    """Builds task i. Lives in the parent and, after fork, in each worker."""

    def __init__(self, lib, cfg: CompileConfig, graph: SignatureGraph | None = None):
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
        self.search = Search(lib, self.graph, cfg, exclude=set(self.pruned))
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

    def build_many(self, indices: list[int], quota: dict[str, float]):
        from racesl.runtime.watchdog import WATCHDOG

        with WATCHDOG.session():
            return [self.build(i, quota) for i in indices]


_WORKER: Generator | None = None


def _worker_build(args):
    indices, quota = args
    return _WORKER.build_many(indices, quota)


def compile_tasks(lib, cfg: CompileConfig, workers: int = 1,
                  progress: Callable[[int, int], None] | None = None) -> tuple[list[Task], Summary]:
    global _WORKER
    t0, c0 = time.perf_counter(), time.process_time()
    children0 = sum(os.times()[2:4])
    gen = Generator(lib, cfg)
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
    pool = None
    if workers > 1:
        _WORKER = gen
        gc.collect()
        gc.freeze()  # keep the collector from touching (and so copying) the parent's pages
        pool = mp.get_context("fork").Pool(workers - 1)  # the parent builds a share too
    child_cpu = 0.0
    try:
        i = 0
        stall = 0
        while len(tasks) < cfg.n:
            batch = list(range(i, i + cfg.batch))
            i += cfg.batch
            snapshot = dict(quota)
            if pool is None:
                results = gen.build_many(batch, snapshot)
            else:
                parts = [batch[k::workers] for k in range(workers)]
                pending = pool.map_async(_worker_build, [(p, snapshot) for p in parts[1:]])
                results = gen.build_many(parts[0], snapshot)
                results += [r for chunk in pending.get() for r in chunk]
                results.sort(key=lambda r: r[0])
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
                seen.add(key)
                tasks.append(task)
                summary.by_operator[task.operator] += 1
                summary.by_size[(task.operator, task.size)] += 1
                for q in task.chain:
                    summary.usage[q] += 1
                    quota[q] = quota.get(q, 0) - 1
                if len(tasks) == cfg.n:
                    break
            if progress:
                progress(len(tasks), cfg.n)
            stall = stall + 1 if len(tasks) == before else 0
            if stall >= 8:
                break  # eight batches without a new task: the library cannot make more
            if all(v <= 0 for v in quota.values()):
                quota = gen.search.initial_quota(mean)  # every quota spent: start a new round
    finally:
        if pool is not None:
            pool.close()
            pool.join()
            gc.unfreeze()
            _WORKER = None
            child_cpu = sum(os.times()[2:4]) - children0  # only this pool's workers
    summary.tasks = len(tasks)
    summary.seconds = time.perf_counter() - t0
    summary.cpu_seconds = time.process_time() - c0 + child_cpu
    return tasks, summary
