"""Issue 47: each candidate has a time budget across the gates that run its code
([admit] time_budget); a candidate whose environment runs for seconds a call is refused
when it is spent, at the gate it was in, with a reason that says so."""

from __future__ import annotations

import attrs

from racesl.admit.context import AdmitConfig
from racesl.admit.run import admit_text

SLOW = '''module slow_fuel

@fuel(1000000)
env slow_mix(n: Int where 1 <= it <= 50) -> Int where 0 <= it <= 996:
    """Add up i * n modulo 997 for every i below one million, reducing modulo 997 as you go."""
    total = 0
    for i in range(1000000):
        total = (total + i * n) % 997
    return total
'''

BUDGET = 6.0
SLACK = 12.0  # the child's kill, its join and the verdict: seconds, not the minutes of the gates


def test_the_default_budget_is_documented_and_bounded():
    cfg = AdmitConfig()
    assert 60 <= cfg.time_budget <= 600


def test_a_slow_fuel_candidate_is_refused_within_its_budget(stdlib_ctx):
    old = stdlib_ctx.config
    stdlib_ctx.config = attrs.evolve(old, time_budget=BUDGET)
    try:
        v, _ = admit_text(SLOW, "slow_fuel.races", stdlib_ctx)
    finally:
        stdlib_ctx.config = old
    assert not v.admitted
    assert v.seconds < BUDGET + SLACK, v.seconds
    assert "time budget of 6 s ([admit] time_budget)" in v.reason and v.gate in ("check", "sample"), v.reason
    assert v.scores[v.gate]["time_budget"] == BUDGET
