"""Held-out splits (racesl.search.holdout): SPEC parsing, what a seed holds out, what a task
contains, and the verification `racesc split check` runs. The compiles themselves are in
tests/cli/test_split_cmd.py."""

from __future__ import annotations

import pytest

from racesl.search.config import ConfigError
from racesl.search.holdout import HoldoutSpec, Split, composed_pairs, shown_envs, verify

NAMES = [f"m{i % 4}.e{i}" for i in range(40)]
EDGES = [(a, b) for k, a in enumerate(NAMES) for b in NAMES[k + 1:k + 4]]


@pytest.mark.parametrize("text, spec", [
    ("pairs=0.2", HoldoutSpec(pairs=0.2)),
    ("envs=0.1, size>=5", HoldoutSpec(envs=0.1, min_size=5)),
    (" size >= 3 ,pairs=.5,envs=0.25", HoldoutSpec(envs=0.25, pairs=0.5, min_size=3)),
])
def test_specs_read_and_print_back(text, spec):
    got = HoldoutSpec.parse(text)
    assert got == spec
    assert HoldoutSpec.parse(str(got)) == got


@pytest.mark.parametrize("text, says", [
    ("pairs=1.5", "above 0 and below 1"),
    ("pairs=0", "above 0 and below 1"),
    ("size>=1", "at least 2"),
    ("pairs=0.2,pairs=0.3", "given twice"),
    ("edges=0.2", "cannot read 'edges=0.2'"),
    ("", "pairs=0.2"),
])
def test_bad_specs_are_one_line_with_the_form(text, says):
    with pytest.raises(ConfigError) as e:
        HoldoutSpec.parse(text)
    assert says in str(e.value) and "\n" not in str(e.value)
    assert e.value.key == "holdout"


def test_the_held_out_share_is_seeded_and_does_not_depend_on_the_part():
    spec = HoldoutSpec(envs=0.1, pairs=0.2)
    a = Split.choose(spec, "train", 0, NAMES, EDGES)
    b = Split.choose(spec, "test", 0, reversed(NAMES), list(reversed(EDGES)))
    assert (a.envs, a.pairs) == (b.envs, b.pairs)
    assert len(a.envs) == 4
    assert not any(x in a.envs or y in a.envs for x, y in a.pairs)  # pairs among trained environments
    live = [e for e in EDGES if e[0] not in a.envs and e[1] not in a.envs]
    assert len(a.pairs) == round(0.2 * len(live))
    c = Split.choose(spec, "train", 1, NAMES, EDGES)
    assert c.envs != a.envs


def test_an_environment_is_held_out_whatever_else_the_library_holds():
    """The choice ranks by a hash of each name: adding environments moves few of the rest."""
    spec = HoldoutSpec(envs=0.5)
    small = Split.choose(spec, "train", 3, NAMES[:20], [])
    big = Split.choose(spec, "train", 3, NAMES, [])
    assert len(small.envs & big.envs) >= 5


def _rec(op, chain, size=None, **extra):
    return {"id": "t", "operator": op, "chain": chain, "size": size or len(chain), "extra": extra,
            "input": "1", "prompt": f"{op} {chain}"}


def test_what_a_task_shows_and_composes():
    sel = _rec("select", ["a", "b"], candidates=[{"env": "a"}, {"env": "z"}, {"env": "b"}])
    assert shown_envs(sel) == {"a", "b", "z"}  # a distractor is shown
    assert composed_pairs(sel) == {("a", "b")}
    br = _rec("branch", ["c", "a", "b", "d"], size=2, condition={"env": "c"}, then=["a", "b"], **{"else": ["d"]})
    assert composed_pairs(br) == {("a", "b")}  # the condition reads x, and so do both arms
    assert shown_envs(br) == {"a", "b", "c", "d"}
    assert composed_pairs(_rec("loop", ["a"], size=3, times=3)) == {("a", "a")}
    assert composed_pairs(_rec("parallel", ["a", "b", "c"])) == set()
    assert composed_pairs(_rec("sequential", ["a", "b", "c"])) == {("a", "b"), ("b", "c")}


def test_parts_are_complementary():
    split = Split(HoldoutSpec(pairs=0.5, min_size=4), "train", 0, frozenset(), frozenset({("a", "b")}))
    test = Split(split.spec, "test", 0, split.envs, split.pairs)
    for rec, held in [(_rec("sequential", ["a", "b"]), True), (_rec("sequential", ["b", "a"]), False),
                      (_rec("sequential", ["b", "a", "c", "d"]), True), (_rec("parallel", ["a", "b"]), False)]:
        assert bool(split.held(rec)) == held
        assert split.admits(rec) != test.admits(rec)


def test_operator_sizes_per_part():
    spec = HoldoutSpec(pairs=0.2, min_size=5)
    train, test = (Split(spec, p, 0) for p in ("train", "test"))
    assert train.sizes("sequential", 2, 12) == (2, 4)
    assert train.sizes("sort", 5, 6) is None
    assert test.sizes("sequential", 2, 12) == (2, 12)  # a held-out pair or size 5+ holds it out
    assert test.sizes("parallel", 2, 12) == (5, 12)  # only its size can
    assert Split(HoldoutSpec(pairs=0.2), "test", 0).sizes("individual", 1, 1) is None
    assert Split(HoldoutSpec(envs=0.2), "test", 0).sizes("individual", 1, 1) == (1, 1)


def test_verify_names_each_problem_by_file_and_row():
    spec = HoldoutSpec(envs=0.5)
    train = Split(spec, "train", 0, frozenset({"x"}))
    test = Split(spec, "test", 0, frozenset({"x"}))
    good_train, good_test = [_rec("sequential", ["a", "b"])], [_rec("sequential", ["a", "x"])]
    assert verify(train, test, good_train, good_test) == []
    bad = verify(train, test, good_train + [_rec("sequential", ["x", "b"])], good_test + [_rec("sequential", ["b", "a"])])
    assert bad == ["TRAIN:2: task t shows held-out environment x", "TEST:2: task t holds nothing held out"]
    same = verify(train, test, good_train + good_test, good_test)
    assert "TEST:1: the same task as TRAIN:2" in same
    other = verify(train, Split(spec, "test", 1, frozenset({"y"})), good_train, good_test)
    assert any("different seed" in p for p in other) and any("different envs" in p for p in other)
    assert verify(test, train, good_test, good_train)[0].startswith("TRAIN is the test part")
