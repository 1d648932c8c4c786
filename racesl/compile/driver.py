"""Compile a library into tasks: independent blocks of deterministic batches, streamed.

Blocks. The n tasks are built in blocks of `block` tasks (the last one shorter). A block
has its own usage quotas, duplicate check and answer-share filter, and its task indices
are its own (task i of block b comes from `task_rng(seed, b, i)`), so a block's tasks
depend on (sources, config, seed, b) only. That is what lets `--shard K/N` build a range
of blocks on another machine, and what bounds memory: nothing outlives its block.

Batches. Inside a block, indices are built in batches of `batch`; batch k is built from
the quotas as they stood after merging batch k - 2 (one batch of lag, so builders always
have the next batch queued), and results merge in index order. So the output does not
depend on who builds a batch: this process, forked workers, or Ray actors
(racesl.compile.workers, racesl.compile.ray).

Streaming. Each kept task goes to `emit(index, task)` as its batch merges, where index is
`b * block + its place in the block`; nothing else is kept per task but a 64-bit digest of
its key until its block ends.
"""

from __future__ import annotations

import gc
import hashlib
import os
import time
from collections import Counter
from typing import Callable

import attrs

from racesl.compile.generator import Generator
from racesl.compile.workers import Forked, Serial
from racesl.records import Task
from racesl.search.config import CompileConfig
from racesl.search.filters import AnswerShare
from racesl.search.unused import unused_reasons

STALL = 8  # batches in a row without a new task: the library cannot make more in this block


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
    refused: dict = attrs.Factory(dict)  # environment → Counter of why its runs were dropped in the search
    dropped: dict = attrs.Factory(dict)  # environment → its timed-out calls, once it was dropped
    blocks: tuple[int, int] = (0, 0)  # the blocks built: first, last + 1
    requested: int = 0  # the tasks those blocks were to hold
    short: list = attrs.Factory(list)  # blocks the library could not fill
    environments: dict = attrs.Factory(dict)  # envs, exclude, [weights] and the chosen set, when given
    split: dict = attrs.Factory(dict)  # the held-out split and this compile's part, when given (Split.to_json)


def blocks_of(cfg: CompileConfig) -> int:
    """How many blocks n tasks take."""
    return -(-cfg.n // cfg.block)


def block_target(cfg: CompileConfig, b: int) -> int:
    return min(cfg.block, cfg.n - b * cfg.block)


def shard_blocks(cfg: CompileConfig, k: int, of: int) -> range:
    """The blocks of shard k of `of` (1-based): a contiguous range, so the shards' outputs,
    concatenated in order, are the whole compile's. Some shards are empty when there are
    fewer blocks than shards."""
    total = blocks_of(cfg)
    return range((k - 1) * total // of, k * total // of)


def digest(task: Task) -> int:
    """A fixed-size stand-in for `task.key()` in the duplicate check (8 bytes: inside a block of
    100,000 tasks, two keys share a digest with probability about 3e-10)."""
    return int.from_bytes(hashlib.blake2b(repr(task.key()).encode(), digest_size=8).digest(), "little")


class _Block:
    """The state of one block while its batches merge."""

    def __init__(self, gen: Generator, cfg: CompileConfig, b: int, summary: Summary, emit):
        self.gen, self.cfg, self.b = gen, cfg, b
        self.target = block_target(cfg, b)
        self.summary, self.emit = summary, emit
        self.quota = self.fresh_quota()
        self.seen: set[int] = set()
        self.shares = AnswerShare(cfg.filters.answer_share)
        self.kept = 0
        self.stall = 0

    def fresh_quota(self) -> dict[str, float]:
        return self.gen.search.initial_quota(self.gen.mean_size, self.target)

    def merge(self, results) -> bool:
        """Fold one batch into the block; True when the block is done."""
        s = self.summary
        before = self.kept
        for _, task, stats in results:
            s.attempts += 1
            s.executions += stats.pop("executions", 0)
            s.reused += stats.pop("reused", 0)
            for key in [k for k in stats if type(k) is tuple]:  # ("refused", env, why): per environment
                s.refused.setdefault(key[1], Counter())[key[2]] += stats.pop(key)
            s.rejections.update(stats)
            if task is None:
                s.failed += 1
                continue
            key = digest(task)
            if key in self.seen:
                s.duplicates += 1
                continue
            if not self.shares.admit(task.operator, task.size, task.answer):
                s.rejections["answer_share"] += 1
                s.failed += 1
                continue
            self.seen.add(key)
            self.emit(self.b * self.cfg.block + self.kept, task)
            self.kept += 1
            s.tasks += 1
            s.by_operator[task.operator] += 1
            s.by_size[(task.operator, task.size)] += 1
            for q in task.chain:
                s.usage[q] += 1
                self.quota[q] = self.quota.get(q, 0) - 1
            if self.kept == self.target:
                return True
        self.stall = self.stall + 1 if self.kept == before else 0
        if self.stall >= STALL:
            s.short.append(self.b)
            return True
        if all(v <= 0 for v in self.quota.values()):
            self.quota = self.fresh_quota()  # every quota spent: start a new round
        return False


def _build_block(builders, blk: _Block, batch: int, progress) -> None:
    # quotas of the batches to come: batch k's are those after merging batch k - 2
    # (batches 0 and 1: the initial ones); builders always have the next batch queued
    for k in (0, 1):
        builders.submit(blk.b, k * batch, (k + 1) * batch, dict(blk.quota))
    k = 0
    while not blk.merge(builders.results()):
        if progress:
            progress(blk.summary.tasks, blk.summary.requested)
        builders.submit(blk.b, (k + 2) * batch, (k + 3) * batch, dict(blk.quota))
        k += 1
    builders.cancel()


def compile_stream(lib, cfg: CompileConfig, emit: Callable[[int, Task], None], workers: int = 1, *,
                   blocks: range | None = None, ray: str | None = None,
                   progress: Callable[[int, int], None] | None = None, sandbox=None) -> Summary:
    """Build the tasks of `blocks` (default: all of them) and hand each to `emit(index,
    task)` in index order; return the summary.

    `workers`: processes that build (forked; with `ray`, Ray actors on the cluster at that
    address, or on a Ray started here for "local"). `sandbox` (`--untrusted`): a function
    that starts a runner with a one-process pool, `SandboxRunner(lib, workers=1, wall=...)`
    (racesl.sandbox_runner); every building process then starts one and runs the bodies in
    it. Neither changes a task."""
    t0, c0 = time.perf_counter(), time.process_time()
    children0 = sum(os.times()[2:4])
    blocks = range(blocks_of(cfg)) if blocks is None else blocks
    gen = Generator(lib, cfg, sandbox=sandbox)
    from racesl.passing import recorded_counts

    summary = Summary(workers=workers, edges=recorded_counts(lib, gen.graph), blocks=(blocks.start, blocks.stop),
                      requested=sum(block_target(cfg, b) for b in blocks),
                      environments=gen.choice.to_json() if gen.choice.active else {},
                      split=gen.split.to_json() if gen.split is not None else {})
    if gen.solver is not None:
        st = gen.solver.stats()
        summary.solver = {"on": True, "seconds": gen.solver_seconds, "queries": st["queries"],
                          "pruned": dict(gen.pruned)}
    else:
        summary.solver = {"on": False}
    ex = gen.search.exec
    remote_cpu = 0.0
    if ray is not None:
        from racesl.compile.ray import OnRay

        builders = OnRay(lib, cfg, workers, ray, untrusted=sandbox is not None)
    else:
        ex.warm(gen.search.envs[q] for q in gen.search.names)  # before forking: once, not per worker
        if workers > 1:
            gc.freeze()  # keep the collector from touching (and so copying) the parent's pages
        builders = Forked(gen, workers) if workers > 1 else Serial(gen)
    clean = False
    try:
        ex.open_sandbox()  # the parent's own, after the forks (--untrusted)
        for b in blocks:
            _build_block(builders, _Block(gen, cfg, b, summary, emit), cfg.batch, progress)
        if progress:
            progress(summary.tasks, summary.requested)
        clean = True
        summary.dropped = builders.dropped()
        summary.unused = unused_reasons(lib, cfg, gen.graph, summary.usage, gen.pruned, summary.dropped,
                                        ex.runner.run if ex.runner is not None else None, gen.choice.left_out,
                                        summary.refused)
    finally:
        ex.close_sandbox()
        builders.close(clean)
        remote_cpu = getattr(builders, "cpu_seconds", 0.0)
        if workers > 1 and ray is None:
            gc.unfreeze()
    child_cpu = sum(os.times()[2:4]) - children0  # this compile's workers (and sandboxes)
    summary.seconds = time.perf_counter() - t0
    summary.cpu_seconds = time.process_time() - c0 + child_cpu + remote_cpu
    return summary


def compile_tasks(lib, cfg: CompileConfig, workers: int = 1,
                  progress: Callable[[int, int], None] | None = None,
                  sandbox=None, **kw) -> tuple[list[Task], Summary]:
    """`compile_stream` into a list (for callers that want every task in memory)."""
    tasks: list[Task] = []
    summary = compile_stream(lib, cfg, lambda _, task: tasks.append(task), workers,
                             progress=progress, sandbox=sandbox, **kw)
    return tasks, summary
