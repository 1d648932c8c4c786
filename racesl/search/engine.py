"""The composition search: grow chains of environments from sampled inputs.

One task index `i` is built from `item_rng(seed, "task", i)` and a snapshot of the usage
quotas taken at the start of its batch, so the result depends on (sources, config, seed,
i) only — never on how many workers share the batch. Tasks are merged in index order.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any

import attrs

from racesl.check.model import EnvSig
from racesl.graph.signature import GUARDED, SignatureGraph
from racesl.runtime.contract import canonical
from racesl.sample.default import NoSample
from racesl.search.config import CompileConfig
from racesl.search.filters import value_filter


@attrs.frozen
class Step:
    """One executed environment in a chain."""

    env: str  # qualname
    settings: tuple
    output: Any
    text: str  # canonical(output)
    steps: int


@attrs.frozen
class Chain:
    x0: Any
    x0_text: str
    steps: tuple[Step, ...]
    level: int
    # executable alternatives met during the search: (position, Step) — the step that
    # could have been taken at that position instead (for select's distractors)
    alternatives: tuple[tuple[int, Step], ...] = ()

    @property
    def envs(self) -> tuple[str, ...]:
        return tuple(s.env for s in self.steps)

    @property
    def output(self):
        return self.steps[-1].output

    @property
    def fuel(self) -> int:
        return sum(s.steps for s in self.steps)


class Executor:
    """Runs environments for the search, with the input check that guarded edges need."""

    def __init__(self, lib, cfg: CompileConfig):
        self.lib = lib
        self.cfg = cfg

    def run(self, env: EnvSig, x, settings: tuple, guarded: bool, stats: Counter) -> Step | None:
        lib, f = self.lib, self.cfg.filters
        if guarded and lib.conforms(x, env.input) is not None:
            stats["domain"] += 1
            return None
        r = lib.run(env, x, settings, fuel=f.max_steps, wall=f.wall)
        if not r.ok:
            stats["error" if r.status in ("error", "contract", "recursion") else r.status] += 1
            return None
        text = canonical(r.value)
        why = value_filter(f, r.value, text)
        if why:
            stats[why] += 1
            return None
        return Step(env.qualname, settings, r.value, text, r.steps)


class Search:
    def __init__(self, lib, graph: SignatureGraph, cfg: CompileConfig):
        self.lib = lib
        self.graph = graph
        self.cfg = cfg
        self.exec = Executor(lib, cfg)
        self.envs = graph.envs
        self.names = sorted(q for q, e in self.envs.items())
        self.starts = [q for q in self.names if not self.envs[q].terminal and graph.successors(q)]

    # ------------------------------------------------------------ sampling helpers

    def level(self, rng: random.Random) -> int:
        return rng.randint(0, self.cfg.max_level)

    def weighted(self, rng: random.Random, names, quota: dict[str, float], k: int) -> list[str]:
        """Up to k distinct names, drawn by remaining quota (Efraimidis–Spirakis keys)."""
        keyed = []
        for q in names:
            w = quota.get(q, 1.0)
            if w <= 0:
                continue
            keyed.append((rng.random() ** (1.0 / w), q))
        keyed.sort(reverse=True)
        return [q for _, q in keyed[:k]]

    def settings(self, env: EnvSig, rng: random.Random, level: int) -> tuple:
        return self.lib.sample_settings(env, rng, level)

    # ------------------------------------------------------------ chains

    def extend(self, chain_steps: list[Step], states: set[str], cur, rng, level, quota, stats,
               candidates: list[tuple[str, str]], alternatives: list) -> bool:
        """Try up to `expansions` next environments from `cur`; take the first that passes."""
        f = self.cfg.filters
        kinds = dict(candidates)
        picked = self.weighted(rng, [d for d, _ in candidates], quota, self.cfg.expansions)
        survivors: list[Step] = []
        outputs: set[str] = set()
        last = chain_steps[-1].env if chain_steps else None
        for q in picked:
            env = self.envs[q]
            if q == last and ("idempotent" in env.laws or "involution" in env.laws):
                stats["law"] += 1  # e; e changes nothing (or undoes e): never worth running
                continue
            try:
                st = self.settings(env, rng, level)
            except NoSample:
                stats["error"] += 1
                continue
            step = self.exec.run(env, cur, st, kinds[q] == GUARDED, stats)
            if step is None:
                continue
            if f.repeated_state and step.text in states:
                stats["repeated_state"] += 1
                continue
            if f.sibling_duplicate and step.text in outputs:
                stats["sibling_duplicate"] += 1
                continue
            outputs.add(step.text)
            survivors.append(step)
        if not survivors:
            return False
        chosen = survivors[0]
        pos = len(chain_steps)
        alternatives.extend((pos, s) for s in survivors[1:])
        chain_steps.append(chosen)
        states.add(chosen.text)
        return True

    def chain(self, rng: random.Random, size: int, quota: dict[str, float], stats: Counter,
              start: str | None = None, x0=None, level: int | None = None,
              allow_terminal_end: bool = True) -> Chain | None:
        """A chain of `size` environments, restarting with fresh inputs when stuck."""
        for _ in range(self.cfg.restarts):
            lvl = self.level(rng) if level is None else level
            q0 = start or next(iter(self.weighted(rng, self.starts, quota, 1)), None)
            if q0 is None:
                return None
            env0 = self.envs[q0]
            if x0 is None:
                try:
                    x = self.lib.sample_input(env0, rng, lvl)
                except NoSample:
                    stats["error"] += 1
                    continue
            else:
                x = x0
            x_text = canonical(x)
            steps: list[Step] = []
            states = {x_text}
            alternatives: list = []
            ok = self.extend(steps, states, x, rng, lvl, quota, stats, [(q0, "proved")], alternatives)
            while ok and len(steps) < size:
                succ = [(d, k) for d, k in self.graph.successors(steps[-1].env)
                        if not self.envs[d].terminal or (allow_terminal_end and len(steps) == size - 1)]
                ok = self.extend(steps, states, steps[-1].output, rng, lvl, quota, stats, succ, alternatives)
            if ok and len(steps) == size:
                return Chain(x, x_text, tuple(steps), lvl, tuple(alternatives))
            stats["restart"] += 1
        return None

    # ------------------------------------------------------------ quotas

    def initial_quota(self, mean_size: float) -> dict[str, float]:
        share = self.cfg.n * mean_size / max(1, len(self.names))
        q = max(2.0, math.ceil(share * self.cfg.quota_slack))
        return {name: q for name in self.names}
