"""Answers a learner could guess from the environment alone.

An item whose environment gives one output most of the time is answered by that output
without solving it: `racesc audit`'s env_mode strategy collects exactly that. So the
builder asks `Outputs.keep` before an environment's output becomes an answer (a parallel
item, a sequential chain's first item, a loop's or a branch's answer).

Each environment's outputs are profiled once (PROFILE runs through the search's own
filters, seeded by the environment's name: every process, worker or Ray actor gets the
same profile), on the inputs it meets where it answers: its own sampler's for a parallel
item or a chain's first step; for the end of a branch's arm or a loop (`deep`), a third
from its sampler, a third from a predecessor's output and a third from a two-step chain's
(inputs at the end of chains converge: a sampler-only profile missed those).

An output v of estimated share p(v) (add-one counts) is then kept with probability
min(1, c / p(v)), with c the largest cut at which the kept outputs' most common one has at
most `share` of them (the `item_share` filter): common outputs are thinned, rare ones
untouched. An environment too narrow for that (fewer than about 1 / share distinct
outputs) never makes such an answer. The coin comes from the task's own random stream,
drawn only for an output above the cut: a coin per item (not a hash of it) also thins an
input that many tasks happen to share.

A sequential answer's first item bounds the rest: the reward is the right prefix, so a
strategy that gets item 1 right with probability q collects at most q.
"""

from __future__ import annotations

from collections import Counter

from racesl.check.model import EnvSig
from racesl.runtime.contract import canonical
from racesl.sample.default import NoSample
from racesl.sample.seeding import item_rng

PROFILE = 192  # sampled runs per environment (fewer: thinning by a noisy share lifts the outputs it undercounts)
PROFILES = 4096  # profiles this process remembers across compiles (a profile is a function of its key)
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


class Outputs:
    """The keep rule for answers, with each environment's profile computed when first asked."""

    def __init__(self, search):
        self.search = search
        self.share = search.cfg.filters.item_share
        lib = search.lib
        self._names = set(search.names)
        self._key = (getattr(lib, "hash", id(lib)), search.cfg.filters, search.cfg.max_level)

    def _profile(self, env: EnvSig, deep: bool) -> tuple:
        """(cut, output shares) of `env`, or (_NARROW, ...)."""
        key = self._key + (env.qualname, deep)
        hit = _PROFILES.get(key)
        if hit is not None:
            return hit
        search = self.search
        rng = item_rng(0, "outputs", env.qualname, int(deep))
        counts: Counter = Counter()
        stats: Counter = Counter()  # not the task's: a profile is no part of any task
        for k in range(PROFILE):
            lvl = k % (search.cfg.max_level + 1)
            path = [env]
            for _ in range(k % 3 if deep else 0):
                before = self._before(path[0].qualname)
                if not before:
                    break
                path.insert(0, search.envs[rng.choice(before)])
            text = self._run(path, rng, lvl, stats)
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
        return hit

    def _before(self, q: str) -> list[str]:
        """The environments a chain may take just before `q`."""
        names = self._names
        return [p for p, _ in self.search.graph.predecessors(q) if p in names and not self.search.envs[p].terminal]

    def _run(self, path: list[EnvSig], rng, lvl: int, stats: Counter) -> str | None:
        """The last output text of `path` run from a sample of its first input, or None."""
        search = self.search
        step = None
        if path[0].source:  # a generator environment: its step is drawn, not run
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
            step = search.exec.run(env, x, st, step is not None, stats, canonical(x))  # (guarded after a step)
            if step is None:
                return None
            x = step.output
        return step.text

    def keep(self, env: EnvSig, out_text: str, rng, deep: bool = False) -> bool:
        """Whether `out_text`, made by `env`, may be an answer this time (`deep`: at the end
        of a chain of several steps)."""
        if self.share >= 1:
            return True
        cut, shares = self._profile(env, deep)
        if cut is _NARROW:
            return False
        p = shares.get(out_text, 0.0)
        if p <= cut:
            return True
        return rng.random() < cut / p
