"""`@fuel`'s two caps (racesl.check.fuel, racesl.runtime.limits): a `@generate` helper or a
`@verify` checker may have up to GENERATOR_FUEL_CAP steps, so a generator that needs more
than FUEL_CAP steps for one draw runs under its declared budget and is cut off under the
ordinary cap; the wall limit stays MAX_WALL at any budget. The diagnostics themselves are
goldens (tests/check/golden/fuel.races)."""

from __future__ import annotations

import random

import pytest

from racesl.check import check_paths
from racesl.library import Library
from racesl.runtime.limits import FUEL_CAP, GENERATOR_FUEL_CAP, MAX_WALL, call_limits, wall_for
from racesl.sample.default import NoSample

STEPS = 1_200_000  # one draw's loop: more than FUEL_CAP

SOURCE = '''@fuel({budget})
def draw(rng, level) -> Tuple[Int, Int]:
    n = rng.randint(1, 9)
    total = 0
    for i in range({steps}):
        total += i % n
    return (n, total)

@generate(draw)
env g(n: Int where 1 <= it <= 9) -> Int:
    """Return the sum of i mod n for i below {steps}."""
'''


def _library(tmp_path, budget: int) -> Library:
    p = tmp_path / "gen.races"
    p.write_text(SOURCE.format(budget=budget, steps=STEPS), encoding="utf-8")
    checked = check_paths([p])
    assert checked.ok, [str(d) for d in checked.diagnostics]
    return Library(checked)


def test_a_generator_past_the_ordinary_cap_runs_with_its_budget(tmp_path):
    lib = _library(tmp_path, 2 * FUEL_CAP)
    env = lib.envs["gen.g"]
    assert lib.limits(env.generate)[0] == 2 * FUEL_CAP
    n, total = lib.draw(env, random.Random(3), 0)
    assert total == sum(i % n for i in range(STEPS))


def test_the_same_generator_is_cut_off_at_the_ordinary_cap(tmp_path):
    lib = _library(tmp_path, FUEL_CAP)
    with pytest.raises(NoSample) as e:
        lib.draw(lib.envs["gen.g"], random.Random(3), 0)
    assert e.value.cause == "fuel"


def test_the_wall_limit_stays_capped_at_any_budget():
    for aux_wall in (1.0, 2.0):
        assert wall_for(GENERATOR_FUEL_CAP, aux_wall) == MAX_WALL
        assert call_limits({"f": GENERATOR_FUEL_CAP}, "f", 400, aux_wall) == (GENERATOR_FUEL_CAP, MAX_WALL)


def test_a_cut_refinement_check_is_located_at_the_refinement(tmp_path):
    from racesl.probe import probe_generator

    p = tmp_path / "cut.races"
    p.write_text('''@fuel(5000)
def draw(rng, level) -> Tuple[Str, Int]:
    s = "".join(rng.choice(["a", "b"]) for _ in range(419))
    return (s, s.count("a"))

@generate(draw)
env count_a(s: Str where len(it) == 419 and all(c in "ab" for c in it)) -> Int:
    """Count the letters a in s."""
''', encoding="utf-8")
    lib = Library(check_paths([p]))
    [d] = [d for d in probe_generator(lib, lib.envs["cut.count_a"], 4, 0, max_level=0)[1] if d.code == "E610"]
    assert (d.span.line, d.span.col) == (7, 26), d  # the refinement, not the environment's name
    assert "ran out of steps (fuel) on 4 of them" in d.message and "outside" not in d.message
    assert d.hint.startswith("the check had 400 steps: raise @fuel(...)")
    from racesl.library import RefinementCut

    for _ in range(2):  # (the second time a cached verdict answers: the cause is found again)
        with pytest.raises(RefinementCut) as e:
            lib.draw(lib.envs["cut.count_a"], random.Random(5), 0)
        assert (e.value.cause, e.value.status, e.value.pred.shown) == (
            "check", "fuel", 'len(it) == 419 and all(c in "ab" for c in it)')
