"""Behaviour over the declared domain: what an environment does on inputs drawn from its
declared types' default samplers, not only from its `@sample` helpers.

The compile, another module's outputs and the type graph feed an environment any value of
its declared input type; a candidate whose `@sample` draws 0..40 while it declares
0..1,000,000 is only tested where it chose to be. The sample gate therefore also draws
`DECLARED` inputs (and settings) from the declared types, at levels spread from 1 to
`TOP_LEVEL` (racesl.sample.default: level 8 reaches a range of ±10·5⁸, every bound the stdlib
declares), and runs them in the same sandbox. What those runs show is judged like the
sampled ones: mostly failing is refused at `sample` (every shape); constant, nearly
constant or degenerate (one value at `MODE_LIMIT` of the outputs or more) at `nontrivial`
(integer inputs: `judged_shape`), each with a hint to narrow the declared type.

Runs cut off by fuel, the wall clock or the size limits are resource limits, not behaviour,
and a failed `assert` is the language's "outside my domain": the compile drops them all, so
they count neither way (large declared inputs may well be expensive).
"""

from __future__ import annotations

from collections import Counter

DECLARED = 24  # declared-domain draws per environment
TOP_LEVEL = 8  # the draws' levels go 1..TOP_LEVEL (level 0 is what the sampled runs cover most)
MIN_RUNS = 8  # declared runs that must reach a value (or a failure) before they are judged
# statuses that say nothing against the body: resource limits, and `assert`, the language's
# way to say "outside my domain" (the compile drops such an expansion; no task is built on it)
RESOURCE = ("fuel", "timeout", "size", "assert")
# The most common output's share, at or above which an environment is "nearly a constant".
# Set from the stdlib's own distribution (benchmarks/bench_admit.py, leave-one-out round,
# scores.nontrivial): its non-condition environments' largest share is 0.725 on 40 sampled
# runs (strings.vowel_count) and 0.75 on the 24 declared-domain draws (numbers.gcd_with), so
# 0.8 admits them all and still refuses one value on 85% of the inputs.
MODE_LIMIT = 0.8


def level(i: int, n: int) -> int:
    return 1 + i * TOP_LEVEL // max(n, 1)


def draw_declared(lib, env, i: int, seed: int):
    """(input, settings) drawn from the declared types (never the @sample helpers), or None
    when the default sampler finds no value."""
    from racesl.sample.default import NoSample, sampler_for
    from racesl.sample.seeding import item_rng

    rng = item_rng(seed, "declared", env.qualname, i)
    lv = level(i, DECLARED)
    try:
        x = sampler_for(env.input).draw(rng, lv, lib.check_pred)
        st = tuple(sampler_for(s.type).draw(rng, lv, lib.check_pred) for s in env.settings)
    except NoSample:
        return None
    return x, st


def run_declared(lib, env, runner, seed: int) -> list:
    """[(x, settings, Run)] over the declared domain (draws the sampler cannot make skipped)."""
    out = []
    for i in range(DECLARED):
        drawn = draw_declared(lib, env, i, seed)
        if drawn is not None:
            out.append((*drawn, runner(env, *drawn)))
    return out


def failing(runs: list) -> tuple[int, int, Counter]:
    """(runs that reached a value, runs judged, failure statuses) of declared runs."""
    statuses = Counter(r.status for _, _, r in runs if r.status not in RESOURCE)
    judged = sum(statuses.values())
    return statuses["ok"], judged, Counter({s: n for s, n in statuses.items() if s != "ok"})


def mode_share(texts: list[str]) -> tuple[float, str | None]:
    """(the most common output's share, that output) of canonical output texts."""
    if not texts:
        return 0.0, None
    value, n = Counter(texts).most_common(1)[0]
    return n / len(texts), value


def judged_shape(env) -> bool:
    """Is the output on declared draws judged for degeneracy? Only for integer inputs (and
    settings): there the default sampler's levels reach across the declared range, as the
    compile's values do. For lists, grids, trees and the like the default sampler draws small,
    unrepresentative values (that is why such environments have a @sample): the stdlib's
    grids.count_regions gives 1 on 22 of 24 of them, trees.tree_height is 1 on 7 of 8."""
    from racesl.types import types as T

    return all(isinstance(T.shape(t), T.IntT) for t in (env.input, *(s.type for s in env.settings)))


def narrow_hint(env) -> str:
    return (f"narrow the declared input type {env.input} to the inputs the body is meant for "
            "(what its @sample draws), or make the body handle the whole type")
