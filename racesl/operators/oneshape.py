"""Sort's and select's chains: environments of one shape, so that declared types rule out
no order.

A sort prompt lists its candidates shuffled, and their signatures are public. Where the
candidates take and give different shapes (a matrix to a list to a number), the types alone
leave one or two orders of the n!, and a learner who reads them and computes nothing solves
most tasks (`racesc audit`'s type_order strategy: 0.78, 0.81, 0.63 at sizes 3, 4, 5 against
a chance of 0.17, 0.05, 0.01 before this module). So sort draws its chains, as the paper's
sort tasks are, among environments whose input and output have one shape (string to string,
grid to grid), each of which the signature graph lets follow every other (`OneShape.chain`);
the builder then keeps a task only when every order of its candidates passes the type test
(racesl.operators.orders.type_fit(...).all_fit()), refinements, the start and the target
included, so guessing among the orders the types allow is guessing among all of them.

Select is the same attack on sequences of the path's length (0.50 to 0.21 at sizes 2 to 6
against chances of 0.015 and less): its path and its distractors are drawn the same way, and
a select task is kept only when at least MIN_SELECTIONS sequences of its candidates pass the
type test, as a uniform guess must already face that many (racesl.operators.build).

The draw is the search's own (usage quotas, levels, input checks on guarded edges, the
repeated-state and sibling filters, held-out pairs): only the environments offered at each
step are narrowed.
"""

from __future__ import annotations

from collections import Counter

from racesl.operators.orders import graph_link
from racesl.runtime.contract import canonical
from racesl.sample.default import NoSample
from racesl.search.engine import Chain, Search
from racesl.types import types as T


class OneShape:
    """Chains of environments whose input and output share one shape."""

    def __init__(self, search: Search):
        self.search = search
        envs = search.envs
        self.link = graph_link(search.graph)  # what the builder's type test and this draw agree on
        self.same = {q for q in search.names if not envs[q].terminal and not envs[q].source
                     and T.erase(envs[q].input) == T.erase(envs[q].output)}
        by_shape = Counter(T.erase(envs[q].input) for q in self.same)
        self._width = {q: by_shape[T.erase(envs[q].input)] for q in self.same}
        self._starts: dict[int, list[str]] = {}
        self._next: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {}

    def starts(self, size: int) -> list[str]:
        """The start environments of a shape that has at least `size` such environments."""
        hit = self._starts.get(size)
        if hit is None:
            hit = self._starts[size] = [q for q in self.search.starts if q in self.same and self._width[q] >= size]
        return hit

    def successors(self, q: str) -> tuple[tuple[str, ...], dict[str, str]]:
        """The search's successors of `q` (held-out pairs left out) that keep its shape and may
        also come before it: in a sort task every candidate may be tried after every other."""
        hit = self._next.get(q)
        if hit is None:
            names, kinds = self.search._next[q, False]  # (no terminal step: it could only end an order)
            env = self.search.envs[q]
            keep = tuple(d for d in names if d in self.same and self.link(self.search.envs[d], env))
            hit = self._next[q] = (keep, {d: kinds[d] for d in keep})
        return hit

    def chain(self, rng, size: int, quota: dict[str, float], stats: Counter,
              want_alternatives: int = 0) -> Chain | None:
        """A chain of `size` one-shape environments, restarting with fresh inputs when stuck
        (as Search.chain does); `want_alternatives`: steps of the same shape that could have been
        taken at each position after the first (select's distractors)."""
        s = self.search
        s.set_quota(quota)
        starts = self.starts(size)
        for _ in range(s.cfg.restarts):
            lvl = s.level(rng)
            q0 = next(iter(s.draw(rng, ("one-shape", size), starts, 1)), None)
            if q0 is None:
                return None
            try:
                x = s.lib.sample_input(s.envs[q0], rng, lvl)
            except NoSample:
                stats["error"] += 1
                continue
            x_text = canonical(x)
            steps: list = []
            states = {x_text}
            alternatives: list = []
            ok = s.extend(steps, states, x, rng, lvl, stats, ("start", q0), (q0,), {}, alternatives)
            while ok and len(steps) < size:
                last = steps[-1].env
                names, kinds = self.successors(last)
                ok = s.extend(steps, states, steps[-1].output, rng, lvl, stats, ("one-shape", last), names, kinds,
                              alternatives, want_alternatives)
            if ok:
                return Chain(x, x_text, tuple(steps), lvl, tuple(alternatives))
            stats["restart"] += 1
        return None
