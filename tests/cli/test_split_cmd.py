"""Held-out splits end to end: `racesc compile --holdout SPEC --part train|test` on the stdlib
writes two complementary files (train shows nothing held out, every test task holds something,
no task in both), the same for any worker count; `racesc split check` accepts the pair and
refuses what is not one; bad flags and config keys are one located line."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


# ------------------------------------------------------------ hf folders, hostile sidecars and records (issues 44, 46)

MINI = '''module mini

type Nat = Int where 0 <= it <= 300

def pick_n(rng, level) -> Int:
    return rng.randint(2, 90)

@sample(n=pick_n)
env add_k(n: Nat, k: Int where 2 <= it <= 9) -> Nat:
    """Add {k} to n, capped at 300."""
    return min(n + k, 300)

@sample(n=pick_n)
env triple(n: Nat) -> Nat:
    """Multiply n by 3, capped at 300."""
    return min(3 * n, 300)

@sample(n=pick_n)
env halve(n: Nat) -> Nat:
    """Halve n, rounding down."""
    return n // 2

@sample(n=pick_n)
env shift(n: Nat) -> Nat:
    """Add 7 to n, capped at 300."""
    return min(n + 7, 300)
'''


@pytest.fixture(scope="module")
def hf_pair(tmp_path_factory):
    pytest.importorskip("datasets")
    d = tmp_path_factory.mktemp("hf_split")
    (d / "mini.races").write_text(MINI)
    for part in ("train", "test"):
        run_racesc("compile", d / "mini.races", "-n", "20", "--seed", "0", "--holdout", "pairs=0.3", "--part", part,
                   "--operators", "sequential=2-3", "--no-audit", "-q", "--format", "hf", "-o", d / f"hf_{part}",
                   timeout=300)
    return d


def test_split_check_reads_hf_folders(hf_pair, tmp_path):
    """compile --format hf records the split in DIR/library.json; split check reads it (it
    used to refuse: "hf_train is a folder, not a task file")."""
    p = run_racesc("split", "check", hf_pair / "hf_train", hf_pair / "hf_test")
    assert p.stdout.startswith("ok: 20 train and 20 test tasks are the two parts of holdout pairs=0.3 (seed 0:")
    p = run_racesc("split", "check", hf_pair / "hf_test", hf_pair / "hf_train", check=False)
    assert p.returncode == 1 and "give the train part first" in p.stdout
    # a folder that is no dataset, and a FIFO inside one: one line each, never a wait
    import os
    import shutil

    (tmp_path / "empty").mkdir()
    p = run_racesc("split", "check", tmp_path / "empty", hf_pair / "hf_test", check=False)
    assert p.returncode == 2 and "empty: not a task dataset folder" in p.stderr and len(p.stderr.splitlines()) == 1
    broken = tmp_path / "broken"
    shutil.copytree(hf_pair / "hf_train", broken)
    (broken / "state.json").unlink()
    os.mkfifo(broken / "state.json")
    p = run_racesc("split", "check", broken, hf_pair / "hf_test", check=False, timeout=60)
    assert p.returncode == 2 and p.stderr == f"racesc: error: {broken / 'state.json'} is a FIFO, not a file of an hf dataset folder\n"


RECORD = {"id": "t1", "operator": "sequential", "size": 2, "chain": ["m.a", "m.b"], "settings": [{}, {}], "input": "1",
          "trace": ["2", "3"], "prompt": "p", "answer": "3", "steps": 1, "seed": 0, "library": "sha256:x", "extra": {}}
SPLIT = {"spec": "pairs=0.5", "part": "train", "seed": 0, "envs": [], "pairs": [["m.x", "m.y"]]}


def _files(folder, rows=(RECORD,), sidecar=None, text=None):
    """TRAIN (`rows`, its sidecar `{"split": sidecar}` or the raw `text`) and a good TEST."""
    train, test = folder / "train.jsonl", folder / "test.jsonl"
    train.write_text("".join(json.dumps(r) + "\n" for r in rows))
    side = folder / "train.jsonl.library.json"
    if side.exists() or side.is_symlink():
        side.unlink()
    side.write_text(text if text is not None else json.dumps({"split": SPLIT if sidecar is None else sidecar}))
    test.write_text(json.dumps({**RECORD, "id": "t2", "chain": ["m.x", "m.y"]}) + "\n")
    (folder / "test.jsonl.library.json").write_text(json.dumps({"split": {**SPLIT, "part": "test"}}))
    return str(train), str(test)


def _check(train, test, capsys, timeout=30):
    """`racesc split check` in this process, in a thread that must end within `timeout`."""
    import threading

    from racesl.cli.main import main

    got = {}
    t = threading.Thread(target=lambda: got.setdefault("rc", main(["split", "check", train, test])), daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), "racesc split check hangs"
    out = capsys.readouterr()
    return got["rc"], out.out, out.err


def test_a_good_pair_of_small_files_passes(tmp_path, capsys):
    rc, out, err = _check(*_files(tmp_path), capsys)
    assert (rc, err) == (0, "") and out.startswith("ok: 1 train and 1 test tasks")


@pytest.mark.parametrize("sidecar, text, says", [
    (None, '{"split": {"spec": "pairs=0.5", "part": "train", "seed": 1e400}}', "out of range"),
    (None, '{"split": ' * 100_000 + "1" + "}" * 100_000, "nested"),
    (None, '{"split": {"spec": "pairs=0.5", "spec": "envs=0.2"}}', "appears twice"),
    (None, '{"split": {"spec": "pairs=0.5", "part": "train", "seed": NaN}}', "NaN"),
    (None, "[1, 2]", "a sidecar is a JSON object, not a list"),
    (None, "{}", "no split recorded"),
    ({**SPLIT, "seed": 1.5}, None, '"split.seed" must be an integer, not a number'),
    ({**SPLIT, "seed": True}, None, '"split.seed" must be an integer, not true or false'),
    ({k: v for k, v in SPLIT.items() if k != "seed"}, None, 'the recorded split has no "seed"'),
    ({**SPLIT, "envs": "m.a"}, None, '"split.envs" must be a list, not a string'),
    ({**SPLIT, "envs": [7]}, None, '"split.envs[]" must be a list of environment names, not an integer'),
    ({**SPLIT, "pairs": [["a"]]}, None, '"split.pairs" must be a list of [A, B] name pairs'),
    ({**SPLIT, "pairs": {"a": "b"}}, None, '"split.pairs" must be a list, not an object'),
    ({**SPLIT, "spec": "edges=0.2"}, None, "split.spec: holdout: cannot read 'edges=0.2'"),
    ({**SPLIT, "spec": 7}, None, '"split.spec" must be a string, not an integer'),
    ({**SPLIT, "part": "eval"}, None, '"split.part" must be "train" or "test"'),
    ({**SPLIT, "min_size": 3}, None, '"split.min_size" disagrees with the spec pairs=0.5'),
    ([SPLIT], None, '"split" must be an object, not a list'),
])
def test_hostile_split_sidecars_are_one_line(tmp_path, capsys, sidecar, text, says):
    train, test = _files(tmp_path, sidecar=sidecar, text=text)
    rc, out, err = _check(train, test, capsys)
    assert rc == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"racesc: error: {train}") and says in err, err


@pytest.mark.parametrize("row, says", [
    ({k: v for k, v in RECORD.items() if k != "chain"}, 'train.jsonl:1: the record has no "chain"'),
    ({**RECORD, "chain": 7}, 'train.jsonl:1: the record\'s "chain" must be a list of environment names, not an integer'),
    ({**RECORD, "chain": ["m.a", 3]}, 'the record\'s "chain" must hold environment names only'),
    ({**RECORD, "operator": "branch", "extra": {"then": 7}}, '"extra.then" must be a list of environment names'),
    ({**RECORD, "operator": "loop", "extra": {"times": "2"}}, '"extra.times" must be a whole number, not a string'),
    ({**RECORD, "extra": {"candidates": [{"env": ["x"]}]}}, '"extra.candidates" must be environment names'),
    ({**RECORD, "extra": {"candidates": 5}}, '"extra.candidates" must be a list, not an integer'),
    ({**RECORD, "extra": {"condition": {"env": {}}}}, '"extra.condition.env" must hold environment names only'),
    ({**RECORD, "size": "2"}, 'train.jsonl:1: the record\'s "size" is a string'),
])
def test_hostile_records_are_one_line(tmp_path, capsys, row, says):
    train, test = _files(tmp_path, rows=[RECORD, row] if "train.jsonl:1" not in says else [row])
    rc, out, err = _check(train, test, capsys)
    assert rc == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert says in err, err


@pytest.mark.parametrize("kind", ["fifo", "folder", "dangling", "device"])
def test_a_sidecar_that_is_no_file_is_refused_without_waiting(tmp_path, capsys, kind):
    import os

    train, test = _files(tmp_path)
    side = tmp_path / "train.jsonl.library.json"
    side.unlink()
    {"fifo": lambda: os.mkfifo(side), "folder": side.mkdir, "dangling": lambda: side.symlink_to(tmp_path / "gone"),
     "device": lambda: side.symlink_to("/dev/zero")}[kind]()
    rc, out, err = _check(train, test, capsys, timeout=20)
    assert rc == 2 and err.count("\n") == 1 and err.startswith(f"racesc: error: {side}"), err
    assert {"fifo": "is a FIFO", "folder": "is a folder", "dangling": "no such library sidecar",
            "device": "is a character device"}[kind] in err


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                    | st.text(max_size=8), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(["spec", "part", "seed", "envs", "pairs", "min_size", None]), value=JSON,
       where=st.sampled_from(["split", "record", "extra"]))
def test_any_json_in_a_sidecar_or_record_is_an_answer_or_one_line(tmp_path, capsys, field, value, where):
    sidecar, rows = dict(SPLIT), [RECORD]
    if where == "split":
        sidecar = value if field is None else {**SPLIT, field: value}
    elif where == "record":
        rows = [RECORD, value if field is None else {**RECORD, {"spec": "chain", "part": "operator", "seed": "size",
                                                                 "envs": "extra", "pairs": "id",
                                                                 "min_size": "chain"}[field]: value}]
    else:
        rows = [RECORD, {**RECORD, "operator": field or "branch", "extra": {"then": value, "candidates": value,
                                                                             "times": value, "condition": value}}]
    rc, out, err = _check(*_files(tmp_path, rows=rows, sidecar=sidecar), capsys)
    assert rc in (0, 1, 2) and "Traceback" not in err
    if rc == 2:
        assert err.count("\n") == 1 and err.startswith("racesc: error: ") and out == "", err


def test_an_hf_folder_without_datasets_is_one_line(tmp_path, capsys, monkeypatch):
    import racesl.cli.common as common

    def need(what, extra, modules=None):
        return f"{what} needs the {extra} extra (datasets is not installed): pip install"

    monkeypatch.setattr(common, "need", need)
    folder = tmp_path / "hf_train"
    folder.mkdir()
    (folder / "state.json").write_text("{}")
    (folder / "library.json").write_text(json.dumps({"split": SPLIT}))
    _, test = _files(tmp_path)
    rc, out, err = _check(str(folder), test, capsys)
    assert rc == 2 and err == (f"racesc: error: racesc split check {folder} (a --format hf folder) needs the hf extra "
                               "(datasets is not installed): pip install\n")
