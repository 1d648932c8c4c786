"""The composition search: grow chains of environments from sampled inputs.

One task index `i` is built from `item_rng(seed, "task", i)` and a snapshot of the usage
quotas taken at the start of its batch, so the result depends on (sources, config, seed,
i) only — never on how many workers share the batch. Tasks are merged in index order.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import random
from bisect import bisect_right
from collections import Counter
from typing import Any

import attrs

from racesl.cache import Memo
from racesl.check.model import EnvSig
from racesl.graph.signature import GUARDED, SignatureGraph
from racesl.runtime.contract import canonical
from racesl.runtime.execute import classify
from racesl.runtime.limits import Cutoff
from racesl.sample.default import NoSample
from racesl.search.config import CompileConfig
from racesl.search.filters import value_filter
from racesl.search.subsets import env_filters
from racesl.types import types as T


_NONE = object()

DROP_AFTER = 3  # calls of one environment that time out before the compile drops it


def _is_bool(t: T.Type) -> bool:
    return isinstance(T.shape(t), T.BoolT)


@attrs.frozen
class Step:
    """One executed environment in a chain."""

    env: str  # qualname
    settings: tuple
    output: Any
    text: str  # canonical(output)
    steps: int
    latent: Any = None  # a generator's latent value, for its @verify checker (racesl.check.verifiers)


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
    """Runs environments for the search, with the input check that guarded edges need.

    This is `Library.run` without its `Run` record, inlined: it is the innermost loop of
    every compile. Results are remembered by (environment, input text, settings): bodies
    are deterministic functions of their arguments, and the search meets the same states
    again and again. Only a timeout (which depends on the machine) is never remembered, so
    a reused result is exactly what running again would give, in any process.

    Timeouts are counted instead, per environment, in memory shared with the workers forked
    after this is made: once DROP_AFTER calls of one environment have timed out (in any
    process), it is not run again and every later call of it counts as a timeout. For an
    environment that always times out that is exactly what running it would give, so the
    output does not change, and the wall time it wastes is bounded (DROP_AFTER calls, plus
    at most one in flight in each other worker), not paid again by every chain.

    `sandbox` (`--untrusted`): a function that starts a runner (racesl.sandbox_runner's
    `SandboxRunner`, whose `run` is `Library.run`'s). Bodies then run in the runner's
    worker (`open_sandbox`, in each compile process after the forks), not here; the values
    come back as plain data and are filtered and checked here as before."""

    MEMO = (40_000_000, 100_000)  # (budget in characters of input and output texts, entries): racesl.cache.Memo

    def __init__(self, lib, cfg: CompileConfig, sandbox=None):
        self.lib = lib
        self.cfg = cfg
        self.sandbox = sandbox
        self.runner = None  # this process's runner, with a sandbox
        self._fns: dict[str, Any] = {}
        self._memo: Memo = Memo(*self.MEMO)  # (env, input text, settings) → Step, or why it was dropped
        names = sorted(lib.envs)
        self._index = {lib.envs[q].pyname: k for k, q in enumerate(names)}
        self._names = names
        self.timeouts = mp.RawArray("i", max(1, len(names)))  # (increments may race: off by one at worst)
        # [text_limits]: the filters of each environment with a text limit of its own
        self._filters = env_filters(lib.envs, cfg)
        # (environment, why) → runs of it dropped, since the caller last cleared it: what the
        # compile's "never used" reasons name (racesl.search.unused); the caller moves it out
        self.refused: Counter = Counter()

    def filters(self, qualname: str):
        """The value filters of one environment: the config's, with its own text limit."""
        return self._filters.get(qualname, self.cfg.filters)

    def dropped(self) -> dict[str, int]:
        """{environment: timed-out calls} of those dropped so far."""
        return {q: self.timeouts[k] for k, q in enumerate(self._names) if self.timeouts[k] >= DROP_AFTER}

    def open_sandbox(self) -> None:
        """Start this process's sandbox worker (with a sandbox only; once per process,
        after any fork of compile workers, which must not share it)."""
        if self.sandbox is not None and (self.runner is None or self._runner_pid != os.getpid()):
            self.runner = self.sandbox()
            self._runner_pid = os.getpid()

    def close_sandbox(self) -> None:
        if self.runner is not None and self._runner_pid == os.getpid():
            self.runner.close()
        self.runner = None

    def warm(self, envs) -> None:
        """Do now, once, what the first runs of each environment would do lazily: its hot
        function, its contract checkers, its samplers. Worker processes forked afterwards
        inherit all of it instead of each paying for it again."""
        for env in envs:
            self._function(env)
            self.lib.warm(env)

    def _function(self, env: EnvSig):
        # the library's hot path (it copies arguments for bodies that may mutate the shared
        # state) and its meter, cached here by name: one dict lookup in the innermost loop
        f = self.cfg.filters
        fn = self.lib.function(env, f.wall, f.max_steps)
        hit = self._fns[env.pyname] = (fn, fn.meter, fn.fuel)
        return hit

    def run(self, env: EnvSig, x, settings: tuple, guarded: bool, stats: Counter,
            x_text: str | None = None) -> Step | None:
        lib = self.lib
        if guarded and lib.conforms(x, env.input, x_text) is not None:
            stats["domain"] += 1
            self.refused[env.qualname, "domain"] += 1
            return None
        key = None
        if x_text is not None:
            key = (env.pyname, x_text, settings)  # settings: this env's declared types, so
            # equal tuples are equal values (no `True == 1` between a Bool and an Int setting)
            try:
                hit = self._memo.get(key)
            except TypeError:  # a List or Dict setting: not hashable, not remembered
                key = hit = None
            if hit is not None:
                stats["reused"] += 1
                if type(hit) is str:
                    stats[hit] += 1
                    self.refused[env.qualname, hit] += 1
                    return None
                return hit
        k = self._index[env.pyname]
        if self.timeouts[k] >= DROP_AFTER:
            stats["reused"] += 1  # a remembered timeout
            stats["timeout"] += 1
            self.refused[env.qualname, "timeout"] += 1
            return None
        stats["executions"] += 1
        out = self._execute(env, x, settings) if self.runner is None else self._execute_remote(env, x, settings)
        if out == "timeout":
            self.timeouts[k] += 1
        elif key is not None:
            self._memo.put(key, out, len(x_text) + (len(out.text) if type(out) is Step else 0))
        if type(out) is str:
            stats[out] += 1
            self.refused[env.qualname, out] += 1
            return None
        return out

    def _execute(self, env: EnvSig, x, settings: tuple) -> Step | str:
        """The step, or the name of what dropped it (a status or a filter)."""
        fn, meter, fuel = self._fns.get(env.pyname) or self._function(env)
        try:
            value = fn(x, *settings)
            text = canonical(value)  # (SizeExceeded, before rendering, for a text too long)
        except (Exception, Cutoff) as exc:
            return _dropped(classify(exc))
        return self._step(env, settings, value, text, fuel - meter[0],
                          lambda: self.lib.conforms(value, env.output, text) is None)

    def _execute_remote(self, env: EnvSig, x, settings: tuple) -> Step | str:
        """`_execute` in the sandbox worker, whose runner has checked the contract: the same
        step, or the same reason to drop it."""
        f = self.cfg.filters
        run = self.runner.run(env, x, settings, fuel=f.max_steps, wall=f.wall)
        if run.status not in ("ok", "contract"):
            return _dropped(run.status)
        return self._step(env, settings, run.value, canonical(run.value), run.steps, lambda: run.status == "ok")

    def _step(self, env: EnvSig, settings: tuple, value, text: str, steps: int, conforms) -> Step | str:
        """A finished run's step, or what drops it: the value filters first, then the
        contract (`conforms()`: whether the value is of the output type)."""
        why = value_filter(self._filters.get(env.qualname, self.cfg.filters), value, text)
        if why:
            return why
        if not conforms():
            return "contract"
        return Step(env.qualname, settings, value, text, steps)


def _dropped(status: str) -> str:
    """What a cut-off or failed run counts as in the search's statistics."""
    return "error" if status in ("error", "recursion") else status


def usable_names(envs: dict, cfg: CompileConfig, pruned) -> list[str]:
    """The environments a search over `envs` could use, `pruned` ones aside: answer makers,
    and Bool ones where a branch may take them as its condition (what `--envs N` draws from)."""
    branch = any(op == "branch" for op, _, _ in cfg.operators)
    return [q for q in sorted(envs) if q not in pruned
            and (branch or not cfg.filters.bool_values or not _is_bool(envs[q].output))]


_CHAINS = ("sequential", "sort", "select")  # the operators whose chains a source may start


def source_boost(cfg: CompileConfig, names: int, starts: int) -> float:
    """How much more often the start draw takes a generator environment than its quota alone
    says. Any other environment is used wherever a chain, a parallel item, a branch or a
    loop may hold it, about U / names times a task (U: the environments a task uses, by
    the configured operators and sizes); a source is used only as a parallel or individual
    item and as the start of a chain. The boost gives the start draw the rest:

        boost * chains / starts + (parallel * s_parallel + individual) / names = U / names

    (each operator drawn alike; `chains`, `parallel`, `individual`: their shares of tasks).
    A pure function of the configuration and the library: the same for every worker."""
    sizes = {}
    for op, lo, hi in cfg.operators:
        if op not in ("parallel", "individual"):
            lo = max(lo, cfg.filters.min_path)
        if lo <= hi:
            sizes[op] = (lo + hi) / 2
    if not sizes or names <= 0 or starts <= 0:
        return 1.0
    uses = {"branch": lambda s: 1 + 2 * s, "loop": lambda s: 1, "individual": lambda s: 1}
    share = 1 / len(sizes)
    total = sum(uses.get(op, lambda s: s)(s) for op, s in sizes.items()) * share
    own = (sizes.get("parallel", 0.0) + sizes.get("individual", 0.0)) * share
    chains = sum(share for op in sizes if op in _CHAINS)
    if not chains:
        return 1.0
    return max(1.0, (total - own) * starts / (chains * names))


class Search:
    def __init__(self, lib, graph: SignatureGraph, cfg: CompileConfig, exclude: set[str] = frozenset(),
                 sandbox=None, weights: dict[str, float] | None = None, forbid: frozenset = frozenset()):
        self.lib = lib
        self.weights = weights or {}  # environment → weight, where not 1 ([weights]): scales its quota
        self.graph = graph
        self.cfg = cfg
        self.exec = Executor(lib, cfg, sandbox)
        self.envs = graph.envs
        # `exclude`: environments the solver showed can only produce degenerate outputs.
        # Bool-valued ones may still be a branch's condition, which is never an answer.
        self.conditions = sorted(q for q in self.envs if q not in exclude and _is_bool(self.envs[q].output)
                                 and not self.envs[q].source)  # (a generator's answer is drawn, not run)
        if cfg.filters.bool_values:
            exclude = set(exclude) | set(self.conditions)  # their every output would be dropped
        self.names = sorted(q for q in self.envs if q not in exclude)
        self.starts = [q for q in self.names if not self.envs[q].terminal and graph.successors(q)]
        # a generator environment (a source) can only start a chain: its start draws are
        # weighed up so that it is used about as often as any other environment
        self.source_boost = source_boost(cfg, len(self.names), len(self.starts))
        self._by_input: dict[T.Type, list[str]] = {}
        # successors of each env, (names, kinds), with and without terminal environments
        self._next: dict = {}
        for q in self.names:
            # `forbid`: compositions (q, d) a chain may not make (a held-out split's pairs)
            succ = [(d, k) for d, k in graph.successors(q) if d not in exclude and (q, d) not in forbid]
            for final in (False, True):
                keep = [(d, k) for d, k in succ if final or not self.envs[d].terminal]
                self._next[q, final] = (tuple(d for d, _ in keep), dict(keep))

    def starts_taking(self, t: T.Type) -> list[str]:
        """The start environments whose input has the shape of `t` (refinements erased) that
        run on a given value: generator environments (sources) draw their own."""
        shape = T.erase(t)
        hit = self._by_input.get(shape)
        if hit is None:
            hit = self._by_input[shape] = [q for q in self.starts if T.erase(self.envs[q].input) == shape
                                           and not self.envs[q].source]
        return hit

    def source_step(self, env: EnvSig, rng: random.Random, level: int, stats: Counter) -> tuple[Any, Step] | None:
        """A generator environment's instance and its step (racesl.check.generators): the
        input and answer its helper draws, then its settings; the answer is not computed
        from the input, so the body never runs. None (counted) when the draw fails or the
        answer is dropped by the filters (a copy of the input included)."""
        try:
            x, value, latent = self.lib.draw_instance(env, rng, level)
            st = self.settings(env, rng, level)
        except NoSample:
            stats["error"] += 1
            self.exec.refused[env.qualname, "error"] += 1
            return None
        text = canonical(value)
        why = value_filter(self.exec.filters(env.qualname), value, text)
        if not why and self.cfg.filters.repeated_state and text == canonical(x):
            why = "repeated_state"
        if why:
            stats[why] += 1
            self.exec.refused[env.qualname, why] += 1
            return None
        return x, Step(env.qualname, st, value, text, 0, latent)

    # ------------------------------------------------------------ weighted choice

    def set_quota(self, quota: dict[str, float]) -> None:
        """Take a batch's quota snapshot: cumulative weights per successor list, built once
        per batch so that each draw is a bisection instead of a pass over the list."""
        if getattr(self, "_quota", None) is quota:
            return
        self._quota = quota
        self._cum: dict = {}

    def _cumulative(self, key, names) -> tuple[list[str], list[float], float] | None:
        pop, cum, total = [], [], 0.0
        boost = self.source_boost if key == "starts" else 1.0
        for q in names:
            w = self._quota.get(q, 1.0)
            if boost != 1.0 and self.envs[q].source:
                w *= boost
            if w > 0:
                total += w
                pop.append(q)
                cum.append(total)
        hit = self._cum[key] = (pop, cum, total) if pop else None
        return hit

    def draw(self, rng: random.Random, key, names, k: int) -> list[str]:
        """Up to k distinct names, drawn by remaining quota."""
        return list(self.iter_draw(rng, key, names, k))

    def iter_draw(self, rng: random.Random, key, names, k: int):
        """Like `draw`, lazily: the search usually needs only the first one or two."""
        pc = self._cum.get(key, _NONE)
        if pc is _NONE:
            pc = self._cumulative(key, names)
        if pc is None:
            return
        pop, cum, total = pc
        if len(pop) <= k:
            order = pop[:]
            rng.shuffle(order)
            yield from order
            return
        seen: set[str] = set()
        rand = rng.random
        for _ in range(4 * k):
            q = pop[bisect_right(cum, rand() * total)]
            if q not in seen:
                seen.add(q)
                yield q
                if len(seen) == k:
                    return

    def level(self, rng: random.Random) -> int:
        return rng.randint(0, self.cfg.max_level)

    def settings(self, env: EnvSig, rng: random.Random, level: int) -> tuple:
        return self.lib.sample_settings(env, rng, level)

    # ------------------------------------------------------------ chains

    def extend(self, chain_steps: list[Step], states: set[str], cur, rng, level, stats,
               key, candidates: tuple[str, ...], kinds: dict[str, str], alternatives: list | None,
               want_alternatives: int = 0) -> bool:
        """Try next environments from `cur` in weighted order; take the first that passes.

        Candidates are executed lazily: only as many as it takes to find one survivor (plus
        `want_alternatives` more, which `select` shows as distractors)."""
        f = self.cfg.filters
        last = chain_steps[-1].env if chain_steps else None
        cur_text = chain_steps[-1].text if chain_steps else None
        chosen: Step | None = None
        outputs: set[str] = set()
        extra = 0
        for q in self.iter_draw(rng, key, candidates, self.cfg.expansions + want_alternatives):
            env = self.envs[q]
            if q == last and ("idempotent" in env.laws or "involution" in env.laws):
                stats["law"] += 1  # e; e changes nothing (or undoes e): never worth running
                continue
            try:
                st = self.settings(env, rng, level)
            except NoSample:
                stats["error"] += 1
                continue
            step = self.exec.run(env, cur, st, kinds.get(q) == GUARDED, stats, cur_text)
            if step is None:
                continue
            if f.repeated_state and step.text in states:
                stats["repeated_state"] += 1
                continue
            if f.sibling_duplicate and step.text in outputs:
                stats["sibling_duplicate"] += 1
                continue
            outputs.add(step.text)
            if chosen is None:
                chosen = step
                if not want_alternatives:
                    break
            else:
                alternatives.append((len(chain_steps), step))
                extra += 1
                if extra >= want_alternatives:
                    break
        if chosen is None:
            return False
        chain_steps.append(chosen)
        states.add(chosen.text)
        return True

    def chain(self, rng: random.Random, size: int, quota: dict[str, float], stats: Counter,
              start: str | None = None, x0=None, level: int | None = None,
              allow_terminal_end: bool = True, want_alternatives: int = 0) -> Chain | None:
        """A chain of `size` environments, restarting with fresh inputs when stuck."""
        self.set_quota(quota)
        for _ in range(self.cfg.restarts):
            lvl = self.level(rng) if level is None else level
            q0 = start or next(iter(self.draw(rng, "starts", self.starts, 1)), None)
            if q0 is None:
                return None
            env0 = self.envs[q0]
            if env0.source and x0 is None:  # a generator environment draws x0 with its step
                drawn = self.source_step(env0, rng, lvl, stats)
                if drawn is None:
                    continue
                x, first = drawn
                x_text = canonical(x)
                steps, states, alternatives = [first], {x_text, first.text}, []
                ok = True
            elif x0 is None:
                try:
                    x = self.lib.sample_input(env0, rng, lvl)
                except NoSample:
                    stats["error"] += 1
                    continue
            else:
                x = x0
            if not env0.source or x0 is not None:
                x_text = canonical(x)
                steps, states, alternatives = [], {x_text}, []
                ok = self.extend(steps, states, x, rng, lvl, stats, ("start", q0), (q0,), {}, alternatives)
            while ok and len(steps) < size:
                last = steps[-1].env
                final = allow_terminal_end and len(steps) == size - 1
                names, kinds = self._next[last, final]
                ok = self.extend(steps, states, steps[-1].output, rng, lvl, stats, (last, final), names, kinds,
                                 alternatives, want_alternatives)
            if ok and len(steps) == size:
                return Chain(x, x_text, tuple(steps), lvl, tuple(alternatives))
            stats["restart"] += 1
        return None

    # ------------------------------------------------------------ quotas

    def initial_quota(self, mean_size: float, count: int | None = None) -> dict[str, float]:
        """Each environment's quota for `count` tasks (default: n) of that mean size."""
        share = (self.cfg.n if count is None else count) * mean_size / max(1, len(self.names))
        q = max(2.0, math.ceil(share * self.cfg.quota_slack))
        if self.weights:  # each quota in proportion to its weight, the mean weight keeping the total
            w = self.weights
            mean = sum(w.get(name, 1.0) for name in self.names) / max(1, len(self.names)) or 1.0
            return {name: q * w.get(name, 1.0) / mean for name in sorted(set(self.names) | set(self.conditions))}
        return {name: q for name in sorted(set(self.names) | set(self.conditions))}
