"""Held-out splits end to end: `racesc compile --holdout SPEC --part train|test` on the stdlib
writes two complementary files (train shows nothing held out, every test task holds something,
no task in both), the same for any worker count; `racesc split check` accepts the pair and
refuses what is not one; bad flags and config keys are one located line."""

from __future__ import annotations

import json

import pytest

from racesl.compile import compile_tasks
from racesl.search.config import CompileConfig, ConfigError, parse_operators
from racesl.search.holdout import Split, composed_pairs, shown_envs, task_key, verify
from tests.support.tasks import run_racesc, stdlib

OPS = parse_operators("sequential=2-5,sort=2-4,select=2-4,branch,loop,parallel=2-3")


def _parts(spec: str, n: int = 120, seed: int = 5):
    lib = stdlib()
    out = {}
    for part in ("train", "test"):
        tasks, summary = compile_tasks(lib, CompileConfig(n=n, seed=seed, operators=OPS, holdout=spec, part=part))
        out[part] = (tasks, Split.from_json(summary.split))
    return out


@pytest.mark.parametrize("spec", ["envs=0.15", "pairs=0.2", "size>=4", "envs=0.1,pairs=0.1,size>=5"])
def test_the_two_parts_are_complementary(spec):
    parts = _parts(spec)
    (train, s_train), (test, s_test) = parts["train"], parts["test"]
    assert train and test
    assert (s_train.envs, s_train.pairs) == (s_test.envs, s_test.pairs)  # one split, chosen the same way twice
    assert verify(s_train, s_test, train, test) == []
    for t in train:  # nothing held out is shown, composed or reached in training
        assert not shown_envs(t) & s_train.envs
        assert not composed_pairs(t) & s_train.pairs
        assert s_train.spec.min_size is None or t.size < s_train.spec.min_size
    assert all(s_test.held(t) for t in test)
    assert not {task_key(t) for t in train} & {task_key(t) for t in test}


def test_a_pairs_split_trains_every_environment_of_its_held_out_pairs():
    """pairs= holds out compositions, not environments: each side of a held-out pair a test
    task composes also appears in training, in other compositions."""
    parts = _parts("pairs=0.3", n=300)
    (train, split), (test, _) = parts["train"], parts["test"]
    trained = set().union(*(shown_envs(t) for t in train))
    tested = {p for t in test for p in composed_pairs(t) & split.pairs}
    assert tested
    sides = {q for p in tested for q in p}
    assert len(sides & trained) >= 0.8 * len(sides)  # (a 300-task train part does not show all 396)


def test_a_size_only_test_part_has_parallel_tasks_of_that_size_and_train_stops_below():
    parts = _parts("size>=3", n=80)
    assert {t.size for t in parts["train"][0]} <= {2}
    test = parts["test"][0]
    assert {t.size for t in test} and min(t.size for t in test) >= 3
    assert "parallel" in {t.operator for t in test}


def test_the_split_depends_on_the_seed_and_spec_only():
    lib = stdlib()
    a = compile_tasks(lib, CompileConfig(n=5, seed=1, holdout="pairs=0.2", operators=OPS))[1].split
    b = compile_tasks(lib, CompileConfig(n=40, seed=1, holdout="pairs=0.2", operators=OPS, part="test"))[1].split
    c = compile_tasks(lib, CompileConfig(n=5, seed=2, holdout="pairs=0.2", operators=OPS))[1].split
    assert (a["pairs"], a["envs"]) == (b["pairs"], b["envs"])
    assert a["pairs"] != c["pairs"]


def test_config_keys_are_checked():
    with pytest.raises(ConfigError, match="cannot read 'pairs0.2'"):
        CompileConfig(holdout="pairs0.2")
    with pytest.raises(ConfigError, match="above 0 and below 1"):
        CompileConfig(holdout="envs=1.5")
    with pytest.raises(ConfigError, match='part = "test" needs a holdout'):
        CompileConfig(part="test")
    with pytest.raises(ConfigError, match='"train" or "test"'):
        CompileConfig(holdout="size>=3", part="eval")


def test_a_size_holdout_no_operator_reaches_is_refused():
    with pytest.raises(ConfigError, match="no operator can make a test task"):
        compile_tasks(stdlib(), CompileConfig(n=5, holdout="size>=9", part="test",
                                              operators=parse_operators("sequential=2-5")))


# ------------------------------------------------------------ the command line


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("split")
    for part in ("train", "test"):
        run_racesc("compile", "stdlib", "-n", "60", "--seed", "4", "--holdout", "envs=0.1,pairs=0.2",
                   "--part", part, "--operators", "sequential=2-4,select=2-3", "--no-audit", "-q",
                   "-o", d / f"{part}.jsonl", timeout=300)
    return d


def test_split_check_accepts_the_pair_and_the_sidecars_record_it(pair):
    p = run_racesc("split", "check", pair / "train.jsonl", pair / "test.jsonl")
    assert p.stdout.startswith("ok: 60 train and 60 test tasks are the two parts of holdout envs=0.1,pairs=0.2")
    sides = [json.loads((pair / f"{part}.jsonl.library.json").read_text())["split"] for part in ("train", "test")]
    assert [s["part"] for s in sides] == ["train", "test"] and sides[0]["pairs"] == sides[1]["pairs"]


def test_any_worker_count_writes_the_same_test_part(pair, tmp_path):
    run_racesc("compile", "stdlib", "-n", "60", "--seed", "4", "--holdout", "envs=0.1,pairs=0.2", "--part",
               "test", "--operators", "sequential=2-4,select=2-3", "--no-audit", "-q", "--workers", "2",
               "-o", tmp_path / "w2.jsonl", timeout=300)
    assert (tmp_path / "w2.jsonl").read_bytes() == (pair / "test.jsonl").read_bytes()


def test_split_check_refuses_what_is_not_a_split(pair, tmp_path):
    # the parts swapped
    p = run_racesc("split", "check", pair / "test.jsonl", pair / "train.jsonl", check=False)
    assert p.returncode == 1 and "give the train part first" in p.stdout
    # a train row that shows a held-out environment
    split = json.loads((pair / "train.jsonl.library.json").read_text())["split"]
    rows = [json.loads(line) for line in (pair / "train.jsonl").read_text().splitlines()]
    test = [json.loads(line) for line in (pair / "test.jsonl").read_text().splitlines()]
    leaked = next(r for r in test if set(r["chain"]) & set(split["envs"]))
    (tmp_path / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [*rows, leaked]))
    (tmp_path / "train.jsonl.library.json").write_text((pair / "train.jsonl.library.json").read_text())
    p = run_racesc("split", "check", tmp_path / "train.jsonl", pair / "test.jsonl", check=False)
    assert p.returncode == 1
    assert f"train.jsonl:61: task {leaked['id']} shows held-out environment" in p.stdout
    assert "the same task as" in p.stdout
    # a file compiled without --holdout
    run_racesc("compile", "stdlib", "-n", "5", "--no-audit", "-q", "-o", tmp_path / "plain.jsonl", timeout=300)
    p = run_racesc("split", "check", tmp_path / "plain.jsonl", pair / "test.jsonl", check=False)
    assert p.returncode == 2 and "no split recorded" in p.stderr


def test_bad_flags_are_one_line(tmp_path):
    p = run_racesc("compile", "stdlib", "--holdout", "pairs=2", "-o", tmp_path / "x.jsonl", check=False)
    assert p.returncode == 2 and "--holdout: pairs=2 must be a share above 0 and below 1" in p.stderr
    assert "Traceback" not in p.stderr
    p = run_racesc("compile", "stdlib", "--part", "test", "-o", tmp_path / "x.jsonl", check=False)
    assert p.returncode == 2 and "--part: " in p.stderr and "needs a holdout" in p.stderr
    assert not (tmp_path / "x.jsonl").exists()


def test_races_toml_takes_the_split(tmp_path):
    (tmp_path / "races.toml").write_text('[compile]\nholdout = "pairs=0.2"\npart = "tset"\n')
    p = run_racesc("compile", "stdlib", "-n", "5", "--config", tmp_path / "races.toml", "-o", tmp_path / "x.jsonl",
                   check=False)
    assert p.returncode == 2 and "races.toml:3" in p.stderr and '"train" or "test"' in p.stderr


def test_the_training_stream_keeps_to_its_part(tmp_path):
    """The train TOML's [data] holdout and part reach the stream, which draws tasks through the
    same gate as compile (a curriculum's sizes included): a train stream shows nothing held
    out, a test stream holds something held out in every task."""
    import itertools

    from racesl.train.config import load
    from racesl.train.stream import TaskStream

    for part in ("train", "test"):
        p = tmp_path / f"{part}.toml"
        p.write_text('[model]\npath = ""\n\n[data]\nsource = "stream"\nseed = 2\n'
                     f'holdout = "envs=0.2,size>=4"\npart = "{part}"\n\n[operators]\nsequential = "2-6"\n')
        cfg = load(p).compile
        assert (cfg.holdout, cfg.part) == ("envs=0.2,size>=4", part)
        stream = TaskStream(stdlib(), cfg)
        split = stream.gen.split
        rows = [r for r, _ in itertools.islice(stream.records(), 25)]
        assert len(rows) == 25 and all(bool(split.held(r)) == (part == "test") for r in rows)
        if part == "train":
            assert max(r["size"] for r in rows) <= 3
