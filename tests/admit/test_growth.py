"""Issue 47: admission time must not grow with the pool. A candidate's graph is the pool's,
built once, with the candidate's edges added; its library is the pool's instrumented program
beside the candidate's own. Both must be what a build over pool + candidate gives."""

from __future__ import annotations

import random
from pathlib import Path

from racesl.admit import front
from racesl.admit.gates import Candidate
from racesl.graph.signature import SignatureGraph
from racesl.library import Library
from racesl.runtime.contract import canonical
from racesl.sample.default import NoSample

CANDIDATES = Path(__file__).parent / "candidates"


def checked(ctx, name):
    path = CANDIDATES / f"{name}.races"
    cand = Candidate(str(path), path.read_text(encoding="utf-8"))
    assert front.parse(cand, ctx) is None and front.check(cand, ctx) is None
    return cand


def test_the_extended_graph_is_the_graph_of_pool_and_candidate(stdlib_ctx):
    cand = checked(stdlib_ctx, "valid_alternating")
    classify = stdlib_ctx.solver().cached.classify
    full = SignatureGraph(list(stdlib_ctx.pool_envs()) + cand.envs, classify=classify)
    before = stdlib_ctx.pool_graph().edges()
    ext = front.extended_graph(stdlib_ctx.pool_graph(), cand.envs, classify)
    assert stdlib_ctx.pool_graph().edges() == before  # (not in place: the pool's graph is untouched)
    assert ext.edges() == full.edges() and list(ext.envs) == list(full.envs)
    assert ext.dropped == full.dropped
    for q in full.envs:
        assert ext.successors(q) == full.successors(q)
        assert ext.predecessors(q) == full.predecessors(q)


def test_the_extended_library_runs_as_the_whole_library(stdlib_ctx):
    cand = checked(stdlib_ctx, "valid_alternating")
    whole = Library(cand.checked)
    assert cand.lib.hash == whole.hash and set(cand.lib.envs) == set(whole.envs)
    rng = random.Random(5)
    names = ["alternating.alternating_sum", *sorted(whole.envs)[::23]]
    for q in names:
        env = whole.envs[q]
        for level in range(3):
            try:
                x = whole.sample_input(env, rng, level)
                st = whole.sample_settings(env, rng, level)
            except NoSample:  # a sampler that finds nothing: nothing to compare
                continue
            a, b = cand.lib.run(cand.lib.envs[q], x, st), whole.run(env, x, st)
            assert (a.status, canonical(a.value), a.steps) == (b.status, canonical(b.value), b.steps), q
            assert cand.lib.may_mutate(cand.lib.envs[q]) == whole.may_mutate(env)


def test_an_admission_grows_what_was_built_into_what_a_fresh_build_makes(tmp_path):
    """Context.extend after an admission: the same checked modules, graph, library hash and
    novelty index (probes and answers) as a context opened fresh on the grown pool."""
    from racesl.admit import novelty
    from racesl.admit.context import Context
    from racesl.admit.run import admit_text
    from racesl.pool import Pool

    ctx = Context(Pool.open(tmp_path / "pool"))
    fresh = None
    try:
        path = CANDIDATES / "valid_alternating.races"
        v, out = admit_text(path.read_text(encoding="utf-8"), str(path), ctx)
        assert v.admitted, v.reason
        ctx.admitted(out)
        assert ctx._pool_checked is not None and "alternating" in ctx.pool_checked().modules  # grown, not dropped
        fresh = Context(Pool.open(tmp_path / "pool"))
        fresh.warm()
        assert set(ctx.pool_checked().modules) == set(fresh.pool_checked().modules)
        assert ctx.pool_lib().hash == fresh.pool_lib().hash
        assert ctx.pool_graph().edges() == fresh.pool_graph().edges()
        a, b = novelty.pool_index(ctx), novelty.pool_index(fresh)
        assert a.answers == b.answers and a.by_shape == b.by_shape and a.texts == b.texts
        assert (a.behaviour_threshold, a.text_threshold) == (b.behaviour_threshold, b.text_threshold)
        env = ctx.pool_lib().envs["alternating.alternating_sum"]
        assert ctx.pool_lib().run(env, [3, 1, 4]).value == 6
    finally:
        ctx.close()
        if fresh is not None:
            fresh.close()
