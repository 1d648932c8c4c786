"""The task stream, the file stream and the reward glue (no torch needed)."""

import itertools
import json

import pytest

from racesl.curriculum import Curriculum, CurriculumConfig
from racesl.search.config import CompileConfig
from racesl.train.rewards import Observations, RacesReward
from racesl.train.stream import FileStream, TaskStream, make_row

OPS = (("sequential", 2, 4), ("parallel", 2, 3), ("sort", 2, 3), ("select", 2, 3))


@pytest.fixture(scope="module")
def lib():
    from racesl import resources
    from racesl.library import load

    return load([resources.stdlib_dir()])


def take(stream, n):
    return list(itertools.islice(stream.rows(), n))


def test_same_seed_same_stream(lib):
    cfg = CompileConfig(seed=3, operators=OPS, max_level=1, batch=16)
    a = take(TaskStream(lib, cfg), 6)
    b = take(TaskStream(lib, cfg), 6)
    assert [r["record"] for r in a] == [r["record"] for r in b]
    assert all(r["rung"] == -1 for r in a)
    rec = json.loads(a[0]["record"])
    assert a[0]["prompt"] == [{"role": "user", "content": rec["prompt"]}]
    assert rec["library"] == lib.hash and a[0]["operator"] == rec["operator"] and a[0]["size"] == rec["size"]
    c = take(TaskStream(lib, CompileConfig(seed=4, operators=OPS, max_level=1, batch=16)), 6)
    assert [r["record"] for r in c] != [r["record"] for r in a]


def test_curriculum_sets_size_and_level(lib):
    cfg = CompileConfig(seed=0, operators=OPS, max_level=2, batch=16)
    cur = Curriculum(OPS, max_level=2, config=CurriculumConfig(levels=True, order="size", start=3))
    stream = TaskStream(lib, cfg, cur)
    rows = take(stream, 12)
    for row in rows:
        rung = cur.rung(row["operator"])
        assert row["rung"] == rung.index and row["size"] == rung.size, row["operator"]
        rec = json.loads(row["record"])
        if row["operator"] in ("sequential", "sort", "select"):
            assert rec["level"] == rung.level
    # sequential 2-4 over levels 0-2, size first: rung 3 is size 4, level 1
    assert (cur.rung("sequential").size, cur.rung("sequential").level) == (4, 1)
    # a move reaches the next tasks built
    cur.ops["sort"].index = 0
    later = [r for r in take(stream, 12) if r["operator"] == "sort"]
    assert later and all(r["size"] == 2 for r in later)


def test_prompt_filter_and_system_prompt(lib):
    cfg = CompileConfig(seed=0, operators=OPS, batch=16)
    stream = TaskStream(lib, cfg, keep=lambda row: row["operator"] != "parallel", system_prompt="Be brief.")
    rows = take(stream, 10)
    assert all(r["operator"] != "parallel" for r in rows)
    assert stream.stats.too_long > 0 and stream.stats.built == 10
    assert rows[0]["prompt"][0] == {"role": "system", "content": "Be brief."}
    plain = make_row(json.loads(rows[0]["record"]), chat=False)
    assert isinstance(plain["prompt"], str)


def test_reward_scores_logs_and_observes(lib):
    cfg = CompileConfig(seed=1, operators=OPS, batch=16)
    rows = take(TaskStream(lib, cfg, Curriculum(OPS)), 4)
    obs = Observations()
    reward = RacesReward(obs)
    logged = []
    completions, kw = [], {"record": [], "operator": [], "size": [], "rung": []}
    for row in rows:
        rec = json.loads(row["record"])
        for text in (f"<answer>{rec['answer']}</answer>", "no answer"):
            completions.append([{"role": "assistant", "content": text}])
            for key in kw:
                kw[key].append(row[key])
    out = reward(prompts=[None] * len(completions), completions=completions,
                 log_metric=lambda name, v: logged.append((name, v)), trainer_state=None, **kw)
    assert out == [1.0, 0.0] * 4
    names = {n for n, _ in logged}
    op, size = rows[0]["operator"], rows[0]["size"]
    assert {f"races/{op}/reward", f"races/{op}/solved", f"races/{op}/size_{size}/reward", f"races/{op}/size"} <= names
    got = obs.drain()
    assert [(o, r) for o, _, r in got] == [(row["operator"], v) for row in rows for v in (1.0, 0.0)]
    assert obs.drain() == []
    # plain-text completions and rows without a curriculum
    assert RacesReward()(completions=["<answer>x</answer>"], record=[rows[0]["record"]], rung=[-1]) == [0.0]


def test_file_stream_follows_the_curriculum(lib):
    cfg = CompileConfig(seed=0, operators=OPS, batch=16)
    records = [json.loads(r["record"]) for r in take(TaskStream(lib, cfg), 40)]
    cur = Curriculum(OPS, config=CurriculumConfig(start=0))
    fs = FileStream(records, cur, seed=0)
    rows = list(itertools.islice(fs.rows(), 30))
    for row in rows:
        sizes = {r["size"] for r in records if r["operator"] == row["operator"]}
        assert row["size"] == min(sizes, key=lambda s: (abs(s - cur.rung(row["operator"]).size), s))


def test_iterable_dataset(lib):
    pytest.importorskip("datasets")
    from racesl.train.stream import iterable_dataset

    cfg = CompileConfig(seed=0, operators=OPS, batch=16)
    ds = iterable_dataset(TaskStream(lib, cfg))
    rows = list(itertools.islice(iter(ds), 3))
    assert [r["record"] for r in rows] == [r["record"] for r in take(TaskStream(lib, cfg), 3)]
