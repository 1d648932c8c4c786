"""Answers a learner could guess from the environment alone.

An item whose environment gives one output most of the time is answered by that output
without solving it: `racesc audit`'s env_mode strategy collects exactly that. So the
builder asks `Outputs.keep` before an environment's output becomes an answer: every task,
whatever its operator, passes one gate (racesl.operators.build, `Builder._gate`) that asks it
of each item the answer is made of (a parallel item, a sequential chain's first item, a
loop's, a branch's or an individual task's answer).

Each environment's outputs are profiled once per context (PROFILE runs through the search's
own filters, seeded by the environment's name and the context: every process, worker or Ray
actor gets the same profile), on the inputs it meets where it answers: OWN, its own
sampler's (a parallel item, a chain's first step, an individual task); `after(d)`, at the
end of a path of d predecessors drawn from the signature graph, whose start is sampled by the
first one's sampler or, half the time, by a branch condition's that takes it (the end of a
branch's arm of d + 1 steps); `looped(k)`, its own output fed back k times with fixed
settings (a loop of k steps, exactly as the loop builder runs it). A deep answer must pass
every profile up to its own (OWN, after(1), ..., after(d)): values converge along chains (an
integer after two steps is mostly small, and `to_binary` of it mostly '10'), and one profile
mixing depths undercounted exactly the outputs the deepest inputs favour (the 30,000-task
stdlib compile's branch-3 answers gave the per-environment mode 0.083 against a bar of 0.05).

An output v of estimated share p(v) (add-one counts) is then kept with probability
min(1, c / p(v)) (the least over the profiles it must pass), with c the largest cut at which the kept outputs' most common one has at
most `share` of them (the `item_share` filter): common outputs are thinned, rare ones
untouched. An environment too narrow for that (fewer than about 1 / share distinct
outputs) never makes such an answer. The coin comes from the task's own random stream,
drawn only for an output above the cut: a coin per item (not a hash of it) also thins an
input that many tasks happen to share.

A sequential answer's first item bounds the rest: the reward is the right prefix, so a
strategy that gets item 1 right with probability q collects at most q.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
from collections import Counter

from racesl.check.model import EnvSig
from racesl.runtime.contract import canonical
from racesl.sample.default import NoSample
from racesl.sample.seeding import item_rng
from racesl.types import types as T

OWN = ("own", 0)
MAX_DEPTH = 3  # predecessors profiled at most (deeper arms pass the profiles up to this depth)


def after(d: int) -> tuple[str, int]:
    """The context of an answer at the end of a path of d predecessors (d >= 1)."""
    return ("after", min(d, MAX_DEPTH))


def looped(k: int) -> tuple[str, int]:
    """The context of a loop's answer: the environment applied k times, its output fed back."""
    return ("loop", k)


def contexts(ctx: tuple[str, int]) -> list[tuple[str, int]]:
    """The profiles an answer in `ctx` must pass."""
    kind, d = ctx
    if kind == "after":
        return [OWN] + [after(j) for j in range(1, d + 1)]
    if kind == "loop":
        return [OWN, ctx]
    return [OWN]


PROFILE = 192  # sampled runs per environment (fewer: thinning by a noisy share lifts the outputs it undercounts)
PROFILES = 8192  # profiles this process remembers across compiles (a profile is a function of its key;
# an environment has up to nine: own, after 1 to 3 predecessors, looped 2 to 6 times)
_NARROW = object()
_PROFILES: dict[tuple, tuple] = {}


def flatten(counts: Counter, share: float) -> float | None:
    """The cut c (a share) at which min(p, c) over the outputs' shares p leaves no output
    above `share` of the total; None when no cut does (too few distinct outputs)."""
    total = sum(counts.values())
    if not total:
        return 1.0
    ps = sorted((v / total for v in counts.values()), reverse=True)

    def top(c: float) -> float:  # the most common output's share once every share is cut at c
        return c / sum(min(p, c) for p in ps)

    if top(ps[0]) <= share:
        return ps[0]
    if 1 / len(ps) > share:  # even cut to nothing, the outputs are too few
        return None
    lo, hi = 0.0, ps[0]  # top() rises with c: the largest c with top(c) <= share
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if top(mid) <= share else (lo, mid)
    return lo


class DiskProfiles:
    """Profiles kept across processes (the solver's cache folder: `RACESL_CACHE_DIR`,
    `RACESL_NO_CACHE=1` turns it off), one file per library, filters, level and graph digest.
    A compile's profiles cost it seconds per environment; every later compile of the same
    library reads them. New profiles are written every SAVE_EVERY and when the process ends
    (read, merged and replaced atomically: concurrent writers may lose an entry, never a file)."""

    SAVE_EVERY = 32

    def __init__(self, digest: str):
        from racesl import __version__
        from racesl.solver.cache import cache_dir

        d = cache_dir()
        self.path = None if d is None else d / f"profiles-{__version__}-{digest}.json"
        self.table: dict[str, list] = self._read()
        self.new: dict[str, list] = {}
        if self.path is not None:
            atexit.register(self.save)

    def _read(self) -> dict:
        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return {}
        return data if isinstance(data, dict) else {}

    @staticmethod
    def _key(q: str, ctx: tuple[str, int]) -> str:
        return f"{q}\x00{ctx[0]}\x00{ctx[1]}"

    def get(self, q: str, ctx: tuple[str, int]) -> tuple | None:
        got = self.table.get(self._key(q, ctx))
        if not (isinstance(got, list) and len(got) == 2 and isinstance(got[1], dict)):
            return None
        cut, shares = got
        if cut is not None and not isinstance(cut, float) or not all(isinstance(v, float) for v in shares.values()):
            return None
        return cut, shares

    def put(self, q: str, ctx: tuple[str, int], cut: float | None, shares: dict) -> None:
        self.table[self._key(q, ctx)] = self.new[self._key(q, ctx)] = [cut, shares]
        if len(self.new) >= self.SAVE_EVERY:
            self.save()

    def save(self) -> None:
        if not self.new or self.path is None:
            return
        table = {**self._read(), **self.new}
        self.new = {}
        # (a temporary file and os.replace, not racesl.atomic: a compile's written_together()
        # would stage the cache with its outputs)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(table, sort_keys=True), encoding="utf-8")
            os.replace(tmp, self.path)
        except (OSError, ValueError):  # a cache that cannot be written is only a missed speed-up
            tmp.unlink(missing_ok=True)


_DISKS: dict[str, DiskProfiles] = {}  # one per digest in a process (each saves when the process ends)


class Outputs:
    """The keep rule for answers, with each environment's profile computed when first asked."""

    def __init__(self, search):
        self.search = search
        self.share = search.cfg.filters.item_share
        lib = search.lib
        self._names = set(search.names)
        self._key = (getattr(lib, "hash", id(lib)), search.cfg.filters, search.cfg.max_level)
        if search.cfg.text_limits:  # ([text_limits]: environments' own filters; absent, the key is as before)
            self._key += (search.cfg.text_limits,)
        self._disk: DiskProfiles | None = None
        self._befores: dict[str, list[str]] = {}  # (a profile's path asks one at every step)
        self._conds: dict = {}  # input shape → the branch conditions that take it

    def _stored(self) -> DiskProfiles | None:
        """The on-disk profiles of this library, filters, level and graph (built when first
        asked: the digest reads every environment's predecessors)."""
        if self._disk is None and getattr(self.search.lib, "hash", None) is not None:
            search = self.search
            parts = [repr(self._key), repr(search.cfg.solver), repr(sorted(search.names)),
                     repr(sorted(search.conditions))]
            parts += [f"{q}<{self._before(q)!r}" for q in sorted(search.names)]
            digest = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]
            self._disk = _DISKS.get(digest) or _DISKS.setdefault(digest, DiskProfiles(digest))
        return self._disk

    def _profile(self, env: EnvSig, ctx: tuple[str, int]) -> tuple:
        """(cut, output shares) of `env` in context `ctx`, or (_NARROW, ...): from this
        process's memo, else the disk's (a profile is a function of its key and the graph, so
        a stored one is exactly what a fresh run gives), else run."""
        key = self._key + (env.qualname, ctx)
        hit = _PROFILES.get(key)
        if hit is not None:
            return hit
        disk = self._stored()
        stored = disk.get(env.qualname, ctx) if disk is not None else None
        if stored is not None:
            if len(_PROFILES) >= PROFILES:
                _PROFILES.clear()
            hit = _PROFILES[key] = (_NARROW if stored[0] is None else stored[0], stored[1])
            return hit
        search = self.search
        refused = search.exec.refused
        search.exec.refused = Counter()  # nor are its dropped runs (a profile is run once per process)
        try:
            return self._computed(env, ctx, key, disk)
        finally:
            search.exec.refused = refused

    def _computed(self, env: EnvSig, ctx: tuple[str, int], key: tuple, disk) -> tuple:
        """`_profile`'s runs: PROFILE of them, seeded by the environment and the context."""
        search = self.search
        rng = item_rng(0, "outputs", env.qualname, *ctx)
        counts: Counter = Counter()
        stats: Counter = Counter()  # not the task's: a profile is no part of any task
        kind, depth = ctx
        for k in range(PROFILE):
            lvl = k % (search.cfg.max_level + 1)
            if kind == "loop":
                text = self._loop(env, depth, rng, lvl, stats)
            else:
                path = [env]
                for _ in range(depth if kind == "after" else 0):
                    before = self._before(path[0].qualname)
                    if not before:
                        break
                    path.insert(0, search.envs[rng.choice(before)])
                text = self._run(path, rng, lvl, stats, condition=kind == "after" and rng.random() < 0.5)
            if text is not None:
                counts[text] += 1
        # add-one counts: an output seen once is not taken for rarer than it may be
        smooth = Counter({t: v + 1 for t, v in counts.items()})
        total = sum(smooth.values())
        cut = flatten(smooth, self.share)
        shares = {t: v / total for t, v in smooth.items()}
        if len(_PROFILES) >= PROFILES:
            _PROFILES.clear()
        hit = _PROFILES[key] = (_NARROW if cut is None else cut, shares)
        if disk is not None:
            disk.put(env.qualname, ctx, cut, shares)
        return hit

    def _loop(self, env: EnvSig, times: int, rng, lvl: int, stats: Counter) -> str | None:
        """`env` applied `times` times from a sample of its input, its settings fixed (the loop
        builder's run); None where a step fails or a state repeats (the builder drops those)."""
        search = self.search
        try:
            x = search.lib.sample_input(env, rng, lvl)
            st = search.settings(env, rng, lvl)
        except NoSample:
            return None
        seen = {canonical(x)}
        step = None
        for k in range(times):
            step = search.exec.run(env, x, st, k > 0, stats, canonical(x))
            if step is None or step.text in seen:
                return None
            seen.add(step.text)
            x = step.output
        return step.text

    def _before(self, q: str) -> list[str]:
        """The environments a chain may take just before `q` (remembered: the graph is fixed
        for the search's life, and its `predecessors` sorts a fresh list on every call)."""
        hit = self._befores.get(q)
        if hit is None:
            names, envs = self._names, self.search.envs
            hit = self._befores[q] = [p for p, _ in self.search.graph.predecessors(q)
                                      if p in names and not envs[p].terminal]
        return hit

    def _conditions(self, shape) -> list[str]:
        """The branch conditions whose input has `shape` (refinements erased), in the search's order."""
        hit = self._conds.get(shape)
        if hit is None:
            search = self.search
            hit = self._conds[shape] = [q for q in search.conditions if T.erase(search.envs[q].input) == shape]
        return hit

    def _run(self, path: list[EnvSig], rng, lvl: int, stats: Counter, condition: bool = False) -> str | None:
        """The last output text of `path` run from a sample of its first input (`condition`:
        from a branch condition's sampler, where one takes that input), or None."""
        search = self.search
        step = None
        guard = False
        if condition and not path[0].source and len(path) > 1:
            conds = self._conditions(T.erase(path[0].input))
            if conds:
                try:
                    x = search.lib.sample_input(search.envs[rng.choice(conds)], rng, lvl)
                except NoSample:
                    return None
                guard = True
        if guard:
            pass
        elif path[0].source:  # a generator environment: its step is drawn, not run
            got = search.source_step(path[0], rng, lvl, stats)
            if got is None:
                return None
            step = got[1]
            x, path = step.output, path[1:]
            if not path:
                return step.text
        else:
            try:
                x = search.lib.sample_input(path[0], rng, lvl)
            except NoSample:
                return None
        for env in path:
            try:
                st = search.settings(env, rng, lvl)
            except NoSample:
                return None
            step = search.exec.run(env, x, st, guard or step is not None, stats, canonical(x))  # (guarded after a step)
            if step is None:
                return None
            x = step.output
        return step.text

    def keep(self, env: EnvSig, out_text: str, rng, ctx: tuple[str, int] = OWN) -> bool:
        """Whether `out_text`, made by `env`, may be an answer this time, in context `ctx`
        (OWN, after(d), looped(k)): one coin, against the least keep chance of the profiles
        the context must pass."""
        if self.share >= 1:
            return True
        chance = 1.0
        for c in contexts(ctx):
            cut, shares = self._profile(env, c)
            if cut is _NARROW:
                return False
            p = shares.get(out_text, 0.0)
            if p > cut:
                chance = min(chance, cut / p)
        return chance >= 1.0 or rng.random() < chance
