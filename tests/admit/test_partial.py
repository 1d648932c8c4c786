"""Issue 47: one refused environment no longer sinks its sound siblings. A module whose
refusing gate refused only some environments is judged again without them
(racesl.admit.partial), and the verdict names each one left out with its gate and reason."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from racesl.admit.partial import without_envs
from racesl.admit.run import admit_text
from racesl.syntax.parser import parse_module

CANDIDATES = Path(__file__).parent / "candidates"

MODULE = '''module m

def h(rng, level) -> Int:
    return rng.randint(0, 9)

@sample(n=h)
@tags("x")
env a(n: Int where 0 <= it <= 9) -> Int:
    """Double n."""
    return 2 * n

env b(n: Int where 0 <= it <= 9) -> Int:
    """Triple n."""
    return 3 * n
'''


def test_without_envs_cuts_the_definition_and_its_decorators():
    out = without_envs(MODULE, ["a"])
    assert out is not None and "env a" not in out and "@sample" not in out and "Double" not in out
    assert "env b" in out and "def h" in out  # the helper stays (harmless when unused)
    _tree, diags = parse_module(out)
    assert not [d for d in diags if d.is_error]


def test_without_envs_refuses_what_cannot_be_cut():
    assert without_envs(MODULE, ["a", "b"]) is None  # nothing would be left
    assert without_envs(MODULE, ["zzz"]) is None  # not there
    assert without_envs(MODULE, []) is None
    named = MODULE.replace('"""Triple n."""', '"""Triple n, like a does twice."""')
    assert without_envs(named, ["a"]) is None  # the rest still names it: judged whole
    assert without_envs("env (", ["a"]) is None  # does not parse


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300), st.lists(st.text(max_size=8), max_size=3))
def test_without_envs_never_raises_on_hostile_text(text, names):
    out = without_envs(text, names)
    assert out is None or isinstance(out, str)


def test_a_module_with_one_constant_environment_admits_the_other(stdlib_ctx):
    path = CANDIDATES / "partial_one_constant.races"
    v, out = admit_text(path.read_text(encoding="utf-8"), str(path), stdlib_ctx)
    assert v.admitted, v.reason
    assert out.envs == ("partial_pair.spread_sum",)
    assert "env always_seven" not in out.text and "env spread_sum" in out.text  # what the pool would get
    left = v.scores["partial"]["left_out"]
    assert set(left) == {"always_seven"} and left["always_seven"]["gate"] == "nontrivial"
    assert left["always_seven"]["reason"].startswith("always_seven: 1 distinct output(s)")
    assert v.scores["partial"]["kept"] == ["spread_sum"]
    assert "admitted without 1 environment(s) that the gates refused: always_seven (refused at nontrivial" in v.reason
