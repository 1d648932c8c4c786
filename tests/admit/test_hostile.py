"""The pieces behind the hostile-candidate gates, without a pool: how outputs relate under a
simple map, the simplest answers a @verify checker is tried on, the declared-domain levels and
mode share, and a text that is not valid UTF-8 stopping at parse."""

from __future__ import annotations

import pytest

from racesl.admit import domain
from racesl.admit.front import parse
from racesl.admit.gates import Candidate
from racesl.admit.novelty import relation
from racesl.admit.soundness import corners


def _t(xs):
    return tuple(str(x) for x in xs)


BASE = list(range(3, 27))


@pytest.mark.parametrize("mine, how", [
    ([x for x in BASE], "same"),
    ([x + 7 for x in BASE], "offset +7"),
    ([3 * x for x in BASE], "factor 3"),
    ([-x for x in BASE], "factor -1"),
])
def test_relation_sees_offsets_and_factors(mine, how):
    agree, shared, found = relation(_t(mine), _t(BASE))
    assert (agree, shared, found) == (1.0, 24, how)


def test_relation_sees_a_fixed_relabelling_of_a_many_to_one_output():
    theirs = _t(x % 3 for x in BASE)
    mine = tuple({"0": "zero", "1": "one", "2": "two"}[t] for t in theirs)
    assert relation(mine, theirs) == (1.0, 24, "relabelled")


def test_relation_does_not_relabel_one_to_one_outputs_or_merge_labels():
    # two injective functions always "relabel" each other: not evidence of a copy
    agree, _, how = relation(_t(x * x + 1 for x in BASE), _t(BASE))
    assert agree < 0.9 and how != "relabelled"
    # a map that sends two labels to one is not a relabelling
    theirs = _t(x % 4 for x in BASE)
    mine = _t(min(int(t), 2) for t in theirs)
    assert relation(mine, theirs)[0] < 0.9


def test_relation_ignores_failed_probes_and_needs_enough_shared():
    a = ("!error",) * 20 + _t([1, 2, 3, 4])
    assert relation(a, a)[1] == 4 and relation(a, a)[0] == 0.0


def test_corners_hold_bounds_and_simple_values(tmp_path):
    from racesl.check import check_paths
    from racesl.sample.default import sampler_for

    src = tmp_path / "c.races"
    src.write_text("module c\n\nenv e(n: Int where 0 <= it <= 3) -> Tuple[Int where 2 <= it <= 22, "
                   "List[Int where -3 <= it <= 3]]:\n    \"\"\"Pair 2 with a list holding n.\"\"\"\n"
                   "    return (2, [n])\n")
    checked = check_paths([src])
    assert checked.ok, [d.headline() for d in checked.diagnostics]
    [env] = checked.envs()
    got = corners(sampler_for(env.output))
    assert (2, []) in got and (22, []) in got and (2, [0]) in got and (2, [-3]) in got


def test_declared_levels_reach_the_top_and_mode_share():
    levels = [domain.level(i, domain.DECLARED) for i in range(domain.DECLARED)]
    assert min(levels) == 1 and max(levels) == domain.TOP_LEVEL
    assert domain.mode_share(["7"] * 17 + ["1", "2", "3"]) == (0.85, "7")
    assert domain.mode_share([]) == (0.0, None)


@pytest.mark.parametrize("text, where", [
    ("module x\n\ud800\n", ":2:1:"),
    ("module x\nenv f(n: Int) -> Int:\n    return n  # \udcff\n", ":3:17:"),
])
def test_a_lone_surrogate_stops_at_parse(text, where):
    cand = Candidate("<completion 0>", text)
    reason = parse(cand, None)
    assert reason is not None and "not valid UTF-8" in reason and where in reason
    assert cand.scores["parse"]["errors"] == 1
