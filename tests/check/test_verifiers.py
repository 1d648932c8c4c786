"""The reading of a @verify checker's result (racesl.runtime.grades, re-exported by
racesl.check.verifiers) and the graded form's scale read from its refinement (issue 48)."""

from __future__ import annotations

from fractions import Fraction

import attrs
from hypothesis import given
from hypothesis import strategies as st

from racesl.check import check_paths
from racesl.check import verifiers as V


@attrs.frozen
class Env:
    scale: int | None
    latent: object = None


@given(n=st.integers(1, 10**6), value=st.one_of(st.integers(-10**7, 10**7), st.booleans(), st.text(max_size=3),
                                                 st.none(), st.lists(st.integers(), max_size=2)))
def test_a_grade_is_in_range_or_none(n, value):
    g = V.grade(Env(n), "ok", value)
    if type(value) is int and 0 <= value <= n:
        assert g == Fraction(value, n) and 0 <= g <= 1
    else:
        assert g is None  # (a Bool from a graded checker, an Int out of range, anything else)
    assert V.grade(Env(n), "fuel", value) is None
    assert V.full(Env(n), "ok", value) == (value == n and type(value) is int)


def test_a_bool_checker_reads_true_and_false_only():
    env = Env(None)
    assert (V.grade(env, "ok", True), V.grade(env, "ok", False)) == (1, 0)
    assert V.grade(env, "ok", 1) is None and not V.full(env, "ok", 1)


def test_the_latent_goes_third_only_where_one_is_drawn():
    assert V.args(Env(None), 1, 2, 3) == (1, 2)
    assert V.args(Env(None, latent="L"), 1, 2, 3) == (1, 2, 3)


@given(lo=st.integers(-3, 3), hi=st.integers(-3, 50))
def test_the_scale_is_the_refinements_upper_bound(tmp_path_factory, lo, hi):
    src = tmp_path_factory.mktemp("v") / "m.races"
    src.write_text(f'''def g(x: Int, y: Int) -> Int where {lo} <= it <= {hi}:
    return {max(lo, 0)}

@verify(g)
env m(x: Int where 0 <= it <= 9) -> Int:
    """Give x."""
    return x
''')
    checked = check_paths([src])
    codes = [d.code for d in checked.diagnostics if d.code.startswith("E")]
    if 0 <= lo <= hi and hi >= 1:
        assert not codes and checked.modules["m"].envs["m"].scale == hi
    else:
        assert "E406" in codes
