"""Answers the environment alone gives away (racesl.operators.outputs) and sort listings
that are uniform for any library: both on tests/fixtures/narrow, a library of small output
spaces, Bool outputs and reverse orders that are ill-typed."""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from pathlib import Path

import pytest

from racesl.compile import compile_tasks
from racesl.library import load
from racesl.operators.outputs import flatten
from racesl.records import to_record
from racesl.rewards import register, score
from racesl.search.config import CompileConfig, ConfigError, Filters, parse_operators
from tests.support.tasks import letters, oracle_reaches

NARROW = Path(__file__).resolve().parents[1] / "fixtures" / "narrow"


@functools.lru_cache(maxsize=1)
def narrow():
    lib = load([str(NARROW)])
    register(lib)
    return lib


@functools.lru_cache(maxsize=4)
def _compiled(ops: str, n: int, seed: int, share: float):
    lib = narrow()
    cfg = CompileConfig(n=n, seed=seed, operators=parse_operators(ops), filters=Filters(item_share=share))
    tasks, summary = compile_tasks(lib, cfg)
    return [to_record(t, k, seed, lib.hash) for k, t in enumerate(tasks)], summary


def _mode_share(records: list[dict]) -> dict[str, float]:
    """Each environment's most common parallel item, as a share of its items."""
    seen: dict[str, Counter] = {}
    for r in records:
        for q, t in zip(r["chain"], r["trace"]):
            seen.setdefault(q, Counter())[t] += 1
    return {q: c.most_common(1)[0][1] / sum(c.values()) for q, c in seen.items() if sum(c.values()) >= 15}


def test_flatten_cuts_common_outputs_to_the_share():
    counts = Counter({"big": 50, **{f"v{k}": 1 for k in range(50)}})
    cut = flatten(counts, 0.04)
    total = sum(counts.values())
    kept = {t: min(v / total, cut) for t, v in counts.items()}
    assert max(kept.values()) / sum(kept.values()) == pytest.approx(0.04, abs=1e-6)
    assert flatten(Counter({f"v{k}": 1 for k in range(30)}), 0.04) == pytest.approx(1 / 30)  # nothing to cut
    assert flatten(Counter({f"v{k}": 5 for k in range(10)}), 0.04) is None  # ten outputs: too narrow
    assert flatten(Counter(), 0.04) == 1.0


def test_parallel_items_are_not_guessable_from_their_environment():
    guarded, summary = _compiled("parallel=4-8", 150, 0, 0.03)
    assert summary.rejections["guessable"] > 0
    assert max(_mode_share(guarded).values()) < 0.2  # ~25 outputs, ~60 items each: a max of 0.1-0.15 by chance
    assert not {q for r in guarded for q in r["chain"]} & {"glyphs.yes_no", "tallies.clamp_small"}
    unguarded, _ = _compiled("parallel=4-8", 150, 0, 1.0)  # item_share = 1: the guard is off
    assert max(_mode_share(unguarded).values()) > 0.3


def test_sequential_first_items_are_not_guessable():
    recs, _ = _compiled("sequential=2-3", 200, 1, 0.03)
    firsts = Counter(r["trace"][0] for r in recs)
    by_env: dict[str, Counter] = {}
    for r in recs:
        by_env.setdefault(r["chain"][0], Counter())[r["trace"][0]] += 1
    assert all(c.most_common(1)[0][1] <= max(3, 0.2 * sum(c.values())) for c in by_env.values()), by_env
    assert len(firsts) > 20


def test_item_share_is_a_checked_filter():
    assert Filters().item_share == 0.03
    with pytest.raises(ConfigError, match="item_share"):
        Filters(item_share=1.5)


def test_sort_listings_are_uniform_for_any_library():
    """On a narrow library (sort draws its environments of one shape: racesl.operators.oneshape)
    the listing spreads uniformly, so the identity order and its reverse are each accepted
    about as often as chance says (here, within 4 standard errors)."""
    recs, _ = _compiled("sort=2-3", 400, 2, 0.03)
    lib = narrow()
    for n in (2, 3):
        cell = [r for r in recs if r["size"] == n]
        assert len(cell) >= 60, n
        for fixed in (letters(n), letters(n)[::-1]):
            hits = sum(oracle_reaches(lib, r, fixed) for r in cell)
            shares = [sum(oracle_reaches(lib, r, list(p)) for p in itertools.permutations(letters(n)))
                      / (2 if n == 2 else 6) for r in cell]
            chance = sum(shares) / len(cell)
            se = (sum(s * (1 - s) for s in shares) / len(cell)) ** 0.5 / len(cell) ** 0.5
            assert abs(hits / len(cell) - chance) < 4 * se, (n, fixed, hits, len(cell), chance)


def test_sort_answers_are_right_and_the_listing_is_drawn_last():
    recs, _ = _compiled("sort=2-3", 400, 2, 0.03)
    for r in recs[:40]:
        assert score(r, f"<answer>{r['answer']}</answer>") == 1.0
        assert oracle_reaches(narrow(), r, r["answer"].split(", "))


def test_profile_paths_are_the_graphs_and_remembered():
    """A profile's paths ask for an environment's predecessors (and, half the time, the
    conditions that take its input) at every step: both are remembered per search, and
    remembered lists are exactly what the graph gives (compile cost, issue 45)."""
    from racesl.compile.generator import Generator
    from racesl.operators.outputs import Outputs
    from racesl.types import types as T

    lib = narrow()
    search = Generator(lib, CompileConfig(n=1, seed=0)).search
    outputs = Outputs(search)
    for q in sorted(search.names):
        want = [p for p, _ in search.graph.predecessors(q) if p in search.names and not search.envs[p].terminal]
        assert outputs._before(q) == want
        assert outputs._before(q) is outputs._before(q)  # (one list, not a fresh one a call)
        shape = T.erase(search.envs[q].input)
        assert outputs._conditions(shape) == [c for c in search.conditions if T.erase(search.envs[c].input) == shape]
