"""`Generator`: builds task i of block b. It lives in the parent and in every worker
(forked, or a Ray actor that rebuilt the library from its sources).

Task (b, i) is built from `task_rng(seed, b, i)` and the quota snapshot of its batch, and
from nothing else, so the process that builds it does not matter.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Callable

from racesl.graph.signature import SignatureGraph, build_graph
from racesl.operators import rederive
from racesl.operators.build import Builder
from racesl.records import Task
from racesl.sample.seeding import item_rng
from racesl.search.config import CompileConfig, ConfigError
from racesl.search.engine import Search, usable_names
from racesl.search.holdout import HoldoutSpec, Split
from racesl.search.subsets import choose, env_filters

CHUNK = 8  # indices a forked worker claims at a time


def task_rng(seed: int, block: int, i: int):
    """The random source of task i of block b. Block 0 keeps the key tasks had before there
    were blocks, so a compile of one block is what it always was."""
    return item_rng(seed, "task", i) if block == 0 else item_rng(seed, "task", block, i)


class Generator:
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
            own = env_filters(lib.envs, cfg)  # ([text_limits]: an environment's own text limit)
            for q, env in sorted(lib.envs.items()):
                why = self.solver.cached.degenerate(env.output, own.get(q, cfg.filters))
                if why:
                    self.pruned[q] = why  # every output would be dropped: never run it
            self.solver.cached.save()
        # the whole solver-backed part: classification, pruning, cache reads and writes
        self.solver_seconds = time.perf_counter() - t0 if self.solver is not None else 0.0
        # envs, exclude and [weights]: which environments, and how often (racesl.search.subsets)
        self.choice = choose(lib.envs, cfg, usable_names(lib.envs, cfg, self.pruned))
        exclude = set(self.pruned) | set(self.choice.left_out)
        self.split = self._split()
        ops = [(name, lo, hi) for name, lo, hi in cfg.operators]
        forbid: frozenset = frozenset()
        if self.split is not None:
            if self.split.part == "train":  # held-out environments and pairs are never drawn
                exclude |= self.split.envs
                forbid = self.split.pairs
            ops = [(name, *r) for name, lo, hi in ops if (r := self.split.sizes(name, lo, hi))]
            if not ops:
                raise ConfigError(f"[compile] holdout {self.split.spec}: no operator can make a "
                                  f"{self.split.part} task (a size holdout needs an operator that reaches it)",
                                  "compile", "holdout")
        self.search = Search(lib, self.graph, cfg, exclude=exclude, sandbox=sandbox,
                             weights=self.choice.weights, forbid=forbid)
        self.builder = Builder(self.search, cfg.templates)
        self.ops = ops

    def _split(self) -> Split | None:
        """The held-out split of the whole library (Split.of_library), never of what this
        compile narrowed it to: the same for every compile, stream and curriculum of one
        library, SPEC and seed, whatever their envs, exclude, weights or pruning."""
        if self.cfg.holdout is None:
            return None
        return Split.of_library(HoldoutSpec.parse(self.cfg.holdout), self.cfg.part, self.cfg.seed,
                                self.lib.envs.values())

    @property
    def mean_size(self) -> float:
        return sum((lo + hi) / 2 for _, lo, hi in self.ops) / len(self.ops)

    def build(self, i: int, quota: dict[str, float], block: int = 0) -> tuple[int, Task | None, Counter]:
        rng = task_rng(self.cfg.seed, block, i)
        name, lo, hi = self.ops[rng.randrange(len(self.ops))]
        stats: Counter = Counter()
        if name not in ("parallel", "individual"):  # chains shorter than min_path are degenerate
            lo = max(lo, self.cfg.filters.min_path)
            if lo > hi:
                stats["min_path"] += 1
                return i, None, stats
        size = rng.randint(lo, hi)
        refused = self.search.exec.refused
        refused.clear()
        task = self.make(name, size, rng, quota, stats)
        for (q, why), n in refused.items():  # each environment's dropped runs, for the "never used" reasons
            stats["refused", q, why] = n  # (racesl.search.unused; the driver moves them out of the counts)
        return i, task, stats

    def make(self, name: str, size: int, rng, quota: dict[str, float], stats: Counter) -> Task | None:
        """A task of operator `name` and `size`, or None (counted in `stats`). With a split, a
        task its part may not hold is dropped here, whoever drew it (a compile, the training
        stream, a curriculum's size): a test task that holds nothing held out, a train task
        that does (the search already avoids held-out environments and pairs)."""
        task = getattr(self.builder, name)(rng, size, quota, stats)
        if task is not None and self._disagrees(task):  # every generator pair re-derived (racesl.operators.rederive)
            stats[rederive.REASON] += 1
            return None
        if task is not None and self.split is not None and not self.split.admits(task):
            stats["holdout"] += 1
            return None
        return task

    def _disagrees(self, task: Task) -> bool:
        f = self.cfg.filters  # (bodies run by the sandbox's runner with --untrusted)
        return rederive.disagrees(self.lib, task, self.search.exec.runner, f.max_steps, f.wall) is not None

    def build_many(self, indices, quota: dict[str, float], block: int = 0) -> list:
        from racesl.runtime.watchdog import WATCHDOG

        with WATCHDOG.session():
            return [self.build(i, quota, block) for i in indices]

    def build_claimed(self, claim, end: int, quota: dict[str, float], block: int = 0,
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
            out.extend(self.build_many(range(lo, hi), quota, block))
        return out
