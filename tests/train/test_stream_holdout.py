"""One held-out split for every producer (issue 46): compile's train and test parts, the
training stream and its curriculum ask one predicate (racesl.search.holdout), chosen from
the whole library, so `exclude`, `envs`, `[weights]`, pruning and the worker count never move
what is held out; the stream refuses a recorded split that differs, in one line."""

from __future__ import annotations

import functools
import itertools
import json

import attrs
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from racesl.compile import compile_tasks
from racesl.curriculum import Curriculum, CurriculumConfig
from racesl.records import to_record
from racesl.search.config import CompileConfig, ConfigError, parse_operators
from racesl.search.holdout import HoldoutSpec, Split, composed_pairs, shown_envs
from racesl.train.stream import TaskStream

HEAD = ("module {module}\n\ntype Nat = Int where 0 <= it <= 300\n\n"
        "def pick_n(rng, level) -> Int:\n    return rng.randint(2, 90)\n\n")
BODIES = {  # Nat -> Nat environments: every pair composes
    "add_k": ("n: Nat, k: Int where 2 <= it <= 9", "Add {k} to n, capped at 300.", "min(n + k, 300)"),
    "sub_k": ("n: Nat, k: Int where 2 <= it <= 9", "Subtract {k} from n, stopping at 0.", "max(n - k, 0)"),
    "triple": ("n: Nat", "Multiply n by 3, capped at 300.", "min(3 * n, 300)"),
    "halve": ("n: Nat", "Halve n, rounding down.", "n // 2"),
    "shift": ("n: Nat", "Add 7 to n, capped at 300.", "min(n + 7, 300)"),
    "square_mod": ("n: Nat", "Square n and keep the remainder after dividing by 301.", "n * n % 301"),
    "digit_sum": ("n: Nat", "Sum the decimal digits of n.", "sum(int(c) for c in str(n))"),
    "flip": ("n: Nat", "Subtract n from 300.", "300 - n"),
}


def module_text(module: str, names) -> str:
    envs = [f'@sample(n=pick_n)\nenv {q}({BODIES[q][0]}) -> Nat:\n    """{BODIES[q][1]}"""\n    return {BODIES[q][2]}\n'
            for q in names]
    return HEAD.format(module=module) + "\n".join(envs)


def lib_path(names: tuple[str, ...], folder: str):
    from pathlib import Path

    path = Path(folder) / "_".join(names) / "mini.races"
    if not path.exists():
        path.parent.mkdir(exist_ok=True)
        path.write_text(module_text("mini", names), encoding="utf-8")
    return path


@functools.lru_cache(maxsize=16)
def library(names: tuple[str, ...], folder: str):
    """The library of a module `mini` holding `names` (cached: a load runs check's sampling)."""
    from racesl.library import load
    from racesl.rewards import register

    lib = load([lib_path(names, folder)])
    register(lib)
    return lib


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return str(tmp_path_factory.mktemp("holdout_libs"))


SEQ = parse_operators("sequential=2-4")


def stream_records(stream: TaskStream, n: int) -> list[dict]:
    return [r for r, _ in itertools.islice(stream.records(), n)]


# ------------------------------------------------------------ the reported cases


def test_a_stream_with_exclude_holds_out_what_the_test_part_holds_out(folder, tmp_path):
    """The issue's case: a train TOML with `holdout = "envs=0.3,pairs=0.3"`, `part = "train"`,
    `exclude = ["mini.shift"]`, and the test part from `racesc compile mini.races --holdout
    envs=0.3,pairs=0.3 --part test --seed 0`. The split used to be chosen after exclude (5
    pairs against 7), so 75 of 400 stream tasks composed pairs the test file held out."""
    from racesl.records import read_task_records
    from racesl.train.config import load
    from tests.support.tasks import run_racesc

    lib = library(tuple(BODIES)[:7], folder)
    source = lib_path(tuple(BODIES)[:7], folder)
    run_racesc("compile", source, "-n", "40", "--seed", "0", "--holdout", "envs=0.3,pairs=0.3", "--part", "test",
               "--operators", "sequential=2-4", "--no-audit", "-q", "-o", tmp_path / "test.jsonl", timeout=300)
    toml = tmp_path / "train.toml"
    toml.write_text(f'[data]\npaths = ["{source}"]\nseed = 0\nholdout = "envs=0.3,pairs=0.3"\npart = "train"\n'
                    'exclude = ["mini.shift"]\nsplit = "test.jsonl"\n\n[operators]\nsequential = "2-4"\n')
    cfg = load(toml)
    stream = TaskStream(lib, cfg.compile, recorded=cfg.data.split)  # (it would refuse a split that differs)
    test = Split.from_json(json.loads((tmp_path / "test.jsonl.library.json").read_text())["split"])
    assert stream.split.differences(test) == []
    assert (len(test.envs), len(test.pairs)) == (2, 8)  # of 7 environments and the 25 pairs among the 5 others
    records = stream_records(stream, 400)
    assert len(records) == 400
    assert [r["id"] for r in records if test.held(r)] == []
    assert all(test.held(r) for r in read_task_records(tmp_path / "test.jsonl"))
    assert "mini.shift" not in set().union(*(shown_envs(r) for r in records))


def test_a_size_holdout_curriculum_climbs_only_the_sizes_the_train_part_makes(folder):
    """`holdout = "size>=3"`, part train, a [curriculum]: the ladder was [2, 3, 4, 5, 6]; at
    "up to size 3" the stream dropped every task and stopped training. The ladder is now the
    train part's sizes, and a test part's ladder starts at K where only size holds out."""
    lib = library(tuple(BODIES)[:5], folder)
    ops = parse_operators("sequential=2-6,parallel=2-6")
    cur = Curriculum(ops, config=CurriculumConfig(mode="monotone", threshold=0.0, window=1))
    stream = TaskStream(lib, CompileConfig(seed=1, holdout="size>=3", part="train", operators=ops), cur)
    assert {op: [r.size for r in st_.rungs] for op, st_ in cur.ops.items()} == {"sequential": [2], "parallel": [2]}
    rows = stream.records()
    for _ in range(30):  # every window full and solved: the curriculum asks to move up each time
        record, rung = next(rows)
        assert record["size"] == 2 and rung == 0
        cur.observe(record["operator"], rung, 1.0)
        cur.update()
    assert cur.history == []  # nowhere to move: the ladder ends at the largest trained size

    test_cur = Curriculum(ops)
    TaskStream(lib, CompileConfig(seed=1, holdout="size>=3", part="test", operators=ops), test_cur)
    assert [r.size for r in test_cur.ops["parallel"].rungs] == [3, 4, 5, 6]


def test_the_stream_refuses_a_recorded_split_that_differs(folder, tmp_path):
    lib = library(tuple(BODIES)[:6], folder)
    cfg = CompileConfig(seed=0, holdout="pairs=0.3", part="train", operators=SEQ)
    own = TaskStream(lib, cfg).split
    same = Split(own.spec, "test", own.seed, own.envs, own.pairs)
    TaskStream(lib, cfg, recorded=same)  # the other part of the same split: accepted
    for other in (attrs.evolve(own, seed=1), Split.of_library(HoldoutSpec(pairs=0.3), "test", 0, []),
                  Split.of_library(HoldoutSpec(pairs=0.2), "test", 0, lib.envs.values())):
        with pytest.raises(ConfigError) as e:
            TaskStream(lib, cfg, recorded=other)
        msg = str(e.value)
        assert "\n" not in msg and msg.startswith("[data] split: this stream and the recorded split hold out different")
        assert e.value.key == "split"
    with pytest.raises(ConfigError, match="this stream holds nothing out"):
        TaskStream(lib, CompileConfig(seed=0, operators=SEQ), recorded=same)
    # from a task file's sidecar, as [data] split names it
    side = tmp_path / "test.jsonl.library.json"
    side.write_text(json.dumps({"split": {**same.to_json(), "seed": 3}}))
    with pytest.raises(ConfigError, match=r"test\.jsonl hold out different seed \(0 against 3\)"):
        TaskStream(lib, cfg, recorded=str(tmp_path / "test.jsonl"))
    side.write_text(json.dumps({"split": {**same.to_json(), "seed": "0"}}))
    with pytest.raises(ConfigError, match=r'"split.seed" must be an integer, not a string'):
        TaskStream(lib, cfg, recorded=str(tmp_path / "test.jsonl"))
    side.write_text(json.dumps({"split": same.to_json()}))
    assert TaskStream(lib, cfg, recorded=str(tmp_path / "test.jsonl")).stats.as_dict()["split"] == own.to_json()


def test_the_train_toml_takes_a_recorded_split_and_checks_its_keys(folder, tmp_path):
    """What `racesc train` does before training: the stream built from the TOML refuses the
    other part's recorded split when it differs, one line at [data] split's file:line."""
    from racesl.train.config import load, located

    lib = library(tuple(BODIES)[:6], folder)
    p = tmp_path / "t.toml"
    p.write_text('[data]\nseed = 0\nholdout = "pairs=0.3"\nsplit = "eval/test.jsonl"\n\n'
                 '[operators]\nsequential = "2-4"\n')
    cfg = load(p)
    assert cfg.data.split == str((tmp_path / "eval/test.jsonl").resolve())
    (tmp_path / "eval").mkdir()
    split = Split.of_library(HoldoutSpec(pairs=0.3), "test", 1, lib.envs.values())
    (tmp_path / "eval/test.jsonl.library.json").write_text(json.dumps({"library": "x", "split": split.to_json()}))
    with pytest.raises(ConfigError) as e:
        TaskStream(lib, cfg.compile, recorded=cfg.data.split)
    assert str(located(e.value, cfg.path)) == (
        f"{p}:4: [data] split: this stream and {cfg.data.split} hold out different seed (0 against 1); different "
        "pairs (11 against 11 held out, 14 in one only): compile both from one library with the same holdout and seed")
    p.write_text('[data]\nseed = 0\nsplit = "eval/test.jsonl"\n')
    with pytest.raises(ConfigError) as e:
        load(p)
    assert "t.toml:3" in str(e.value) and "needs source = \"stream\" and holdout" in str(e.value)


# ------------------------------------------------------------ every producer, any configuration

SPECS = st.builds(lambda e, p, k: ",".join(x for x in (e, p, k) if x),
                  st.sampled_from(["", "envs=0.2", "envs=0.4"]), st.sampled_from(["", "pairs=0.2", "pairs=0.5"]),
                  st.sampled_from(["", "size>=3", "size>=4"])).filter(bool)


@st.composite
def setups(draw):
    names = tuple(sorted(draw(st.sets(st.sampled_from(sorted(BODIES)), min_size=4, max_size=6))))
    quals = [f"mini.{q}" for q in names]
    exclude = tuple(draw(st.lists(st.sampled_from(quals), max_size=2, unique=True)))
    weights = draw(st.dictionaries(st.sampled_from(quals), st.sampled_from([0.0, 0.5, 3.0]), max_size=2))
    return {"names": names, "spec": draw(SPECS), "seed": draw(st.integers(0, 3)), "exclude": exclude,
            "weights": weights, "envs": draw(st.sampled_from([None, 3])), "workers": draw(st.sampled_from([1, 2]))}


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(setup=setups())
def test_compile_stream_and_curriculum_never_disagree(folder, setup):
    lib = library(setup["names"], folder)
    ops = parse_operators("sequential=2-4,parallel=2-3,select=2-3")
    base = dict(seed=setup["seed"], holdout=setup["spec"], operators=ops, batch=8)
    narrowed = dict(exclude=setup["exclude"], weights=setup["weights"], envs=setup["envs"])
    try:
        train, s_train = compile_tasks(lib, CompileConfig(n=12, part="train", **base, **narrowed),
                                       workers=setup["workers"])
    except ConfigError as e:  # too few environments left to draw from: refused in one line, nothing to compare
        left = {f"mini.{q}" for q in setup["names"]} - set(setup["exclude"])
        left -= {q for q, w in setup["weights"].items() if w == 0}
        assert "\n" not in str(e) and (not left or len(left) < (setup["envs"] or 0)), str(e)
        event("refused: nothing left to draw")
        return
    test, s_test = compile_tasks(lib, CompileConfig(n=12, part="test", **base), workers=setup["workers"])
    split = Split.from_json(s_train.split)
    assert split.differences(Split.from_json(s_test.split)) == []
    assert split.differences(Split.of_library(HoldoutSpec.parse(setup["spec"]), "test", setup["seed"],
                                              lib.envs.values())) == []
    cur = Curriculum(ops)
    stream = TaskStream(lib, CompileConfig(part="train", **base, **narrowed), cur, recorded=Split.from_json(s_test.split))
    assert stream.split.differences(split) == []
    k = split.spec.min_size
    for t in train + stream_records(stream, min(6, len(train))):
        assert not split.held(t)
        assert not (shown_envs(t) & split.envs) and not (composed_pairs(t) & split.pairs)
    assert all(split.held(t) for t in test)
    for st_ in cur.ops.values():  # the curriculum never climbs into held-out sizes
        assert k is None or max(r.size for r in st_.rungs) < k
    event(f"compared {len(train)} train, {len(test)} test tasks")


def test_a_file_of_a_size_holdout_train_part_fits_the_ladder(folder):
    """`source = "file"` with a curriculum: the ladder is the file's sizes, so a train part
    compiled with size>=3 keeps the curriculum at size 2 instead of climbing past the file."""
    from racesl.train.stream import FileStream

    lib = library(tuple(BODIES)[:5], folder)
    ops = parse_operators("sequential=2-6")
    tasks, _ = compile_tasks(lib, CompileConfig(n=10, seed=0, holdout="size>=3", part="train", operators=ops))
    records = [to_record(t, k, 0, lib.hash) for k, t in enumerate(tasks)]
    cur = Curriculum(ops)
    FileStream(records, cur)
    assert [r.size for r in cur.ops["sequential"].rungs] == [2]
