"""The curriculum in the library: ladders, band mode (EvoEnv), monotone mode (RLVE)."""

import random

import pytest

from racesl.curriculum import Curriculum, CurriculumConfig, CurriculumError, ladder


def feed(cur, op, rate, n=None):
    """n observations at op's current rung, a share `rate` of them solved."""
    n = n or cur.config.window
    solved = round(rate * n)
    for k in range(n):
        cur.observe(op, cur.rung(op).index, 1.0 if k < solved else 0.0)


def test_ladder_sizes_only():
    rungs = ladder(2, 5, 2, levels=False, order="interleave")
    assert [(r.size, r.level) for r in rungs] == [(2, None), (3, None), (4, None), (5, None)]
    assert [r.index for r in rungs] == [0, 1, 2, 3]


@pytest.mark.parametrize("order,expected", [
    ("size", [(2, 0), (3, 0), (4, 0), (4, 1), (4, 2)]),
    ("level", [(2, 0), (2, 1), (2, 2), (3, 2), (4, 2)]),
    ("interleave", [(2, 0), (3, 0), (3, 1), (4, 1), (4, 2)]),
])
def test_ladder_orders_are_monotone(order, expected):
    rungs = ladder(2, 4, 2, levels=True, order=order)
    assert [(r.size, r.level) for r in rungs] == expected
    for a, b in zip(rungs, rungs[1:]):  # one axis up by one at each step, never down
        assert (b.size - a.size) + (b.level - a.level) == 1


def test_band_moves_up_and_down_evoenv():
    cfg = CurriculumConfig(mode="band", target=0.3, tolerance=0.1, window=20)
    cur = Curriculum([("sequential", 2, 12), ("sort", 2, 6)], config=cfg)
    assert cur.rung("sequential").size == 2
    feed(cur, "sequential", 0.8)            # too easy: up
    moves = cur.update()
    assert [(m.operator, m.old.size, m.new.size) for m in moves] == [("sequential", 2, 3)]
    assert cur.rung("sort").size == 2       # sort saw nothing: it stays
    feed(cur, "sequential", 0.3)            # inside the band: stay
    assert cur.update() == [] and cur.rung("sequential").size == 3
    feed(cur, "sequential", 0.05)           # too hard: down
    (m,) = cur.update()
    assert (m.old.size, m.new.size) == (3, 2) and m.rate == pytest.approx(0.05)
    feed(cur, "sequential", 0.0)            # already at the bottom: stays
    assert cur.update() == [] and cur.rung("sequential").size == 2


def test_band_edges_and_window():
    cfg = CurriculumConfig(mode="band", target=0.3, tolerance=0.1, window=10)
    cur = Curriculum([("sort", 2, 6)], config=cfg, max_level=0)
    feed(cur, "sort", 0.9, n=9)             # window not full yet: no decision
    assert cur.update() == []
    cur.observe("sort", 0, 1.0)
    assert [m.new.size for m in cur.update()] == [3]
    feed(cur, "sort", 0.4)                  # on the upper edge: inside the band
    assert cur.update() == []
    feed(cur, "sort", 0.2)                  # on the lower edge: inside the band
    assert cur.update() == []


def test_top_rung_is_a_ceiling():
    cur = Curriculum([("sort", 2, 3)], config=CurriculumConfig(window=4))
    for _ in range(5):
        feed(cur, "sort", 1.0)
        cur.update()
    assert cur.rung("sort").size == 3 and len(cur.history) == 1


def test_monotone_rlve_raises_at_threshold_and_never_lowers():
    cfg = CurriculumConfig(mode="monotone", threshold=0.9, window=10)
    cur = Curriculum([("select", 2, 6)], config=cfg)
    feed(cur, "select", 0.8)
    assert cur.update() == []               # below 0.9: stay
    feed(cur, "select", 0.9)
    assert [m.new.size for m in cur.update()] == [3]
    sizes = []
    for rate in (0.0, 0.1, 0.0, 1.0, 0.0):
        feed(cur, "select", rate)
        cur.update()
        sizes.append(cur.rung("select").size)
    assert sizes == [3, 3, 3, 4, 4]         # failures never lower the difficulty
    assert all(m.new.index > m.old.index for m in cur.history)


def test_only_the_current_rung_counts():
    cur = Curriculum([("sort", 2, 6)], config=CurriculumConfig(window=4, start=2))
    assert cur.rung("sort").size == 4
    assert not cur.observe("sort", 0, 1.0)  # an easier replayed task: no evidence
    assert not cur.observe("loop", 2, 1.0)  # an operator it does not track
    assert cur.observe("sort", 2, 0.0)
    assert cur.rate("sort") == 0.0


def test_success_threshold_on_partial_rewards():
    cur = Curriculum([("sequential", 2, 6)], config=CurriculumConfig(window=4, success=0.5))
    for r in (0.5, 0.75, 0.25, 0.0):        # sequential rewards are prefix fractions
        cur.observe("sequential", 0, r)
    assert cur.rate("sequential") == 0.5
    cur2 = Curriculum([("sequential", 2, 6)], config=CurriculumConfig(window=4))
    for r in (0.5, 0.75, 1.0, float("nan")):
        cur2.observe("sequential", 0, r)
    assert cur2.rate("sequential") == 0.25


def test_levels_move_with_sizes():
    cfg = CurriculumConfig(window=2, levels=True, order="interleave")
    cur = Curriculum([("sequential", 2, 3)], max_level=1, config=cfg)
    seen = []
    for _ in range(4):
        r = cur.rung("sequential")
        seen.append((r.size, r.level))
        feed(cur, "sequential", 1.0)
        cur.update()
    assert seen == [(2, 0), (3, 0), (3, 1), (3, 1)]


def test_spread_draws_from_the_rungs_below():
    cur = Curriculum([("sort", 2, 12)], config=CurriculumConfig(spread=2, start=5))
    rng = random.Random(0)
    drawn = {cur.draw("sort", rng).size for _ in range(200)}
    assert drawn == {5, 6, 7}
    cur0 = Curriculum([("sort", 2, 12)], config=CurriculumConfig(spread=3))
    assert {cur0.draw("sort", rng).size for _ in range(50)} == {2}


def test_deterministic_and_state_round_trip():
    def run():
        cur = Curriculum([("sort", 2, 6), ("select", 2, 6)], config=CurriculumConfig(window=8))
        rng = random.Random(1)
        for _ in range(30):
            for op in ("sort", "select"):
                cur.observe(op, cur.rung(op).index, 1.0 if rng.random() < 0.7 else 0.0)
            cur.update()
        return cur

    a, b = run(), run()
    assert a.state_dict() == b.state_dict()
    c = Curriculum([("sort", 2, 6), ("select", 2, 6)], config=CurriculumConfig(window=8))
    c.load_state_dict(a.state_dict())
    assert c.state_dict() == a.state_dict()


@pytest.mark.parametrize("bad", [
    {"mode": "evo"}, {"order": "random"}, {"target": 1.5}, {"window": 0}, {"spread": -1}, {"tolerance": -0.1},
])
def test_config_validation(bad):
    with pytest.raises(CurriculumError):
        CurriculumConfig(**bad)


def test_config_from_dict():
    cfg = CurriculumConfig.from_dict({"mode": "monotone", "threshold": 0.9, "window": 32})
    assert cfg.mode == "monotone" and cfg.window == 32 and cfg.band[1] == 0.9
    with pytest.raises(CurriculumError, match=r"unknown setting in \[curriculum\]: windw \(did you mean window\?\)"):
        CurriculumConfig.from_dict({"windw": 3})
    with pytest.raises(CurriculumError):
        CurriculumConfig.from_dict({"enabled": "yes"})
    with pytest.raises(CurriculumError, match=r'window must be a whole number of at least 1, not "32"'):
        CurriculumConfig.from_dict({"window": "32"})  # a quoted number is text: say so, do not guess


def test_fit_rebuilds_only_the_ladders_a_source_changes():
    """`fit`: the ladders of the sizes a task source makes (a held-out train part stops below
    size>=K): an unchanged operator keeps its state, a changed one starts afresh on its new
    ladder, one the source cannot make is dropped, and none at all is refused."""
    cur = Curriculum([("sequential", 2, 6), ("sort", 2, 4), ("parallel", 2, 3)], config=CurriculumConfig(start=1))
    cur.ops["sort"].index, cur.ops["sort"].n = 2, 5
    cur.fit([("sequential", 2, 2), ("sort", 2, 4)])
    assert sorted(cur.ops) == ["sequential", "sort"]
    assert [r.size for r in cur.ops["sequential"].rungs] == [2] and cur.rung("sequential").size == 2
    assert (cur.ops["sort"].index, cur.ops["sort"].n) == (2, 5)
    with pytest.raises(CurriculumError, match="at least one operator"):
        cur.fit([])
