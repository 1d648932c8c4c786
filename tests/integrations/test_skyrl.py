"""SkyRL: `racesc compile --format skyrl` rows (verl's columns plus env_class and
reward_spec) drive skyrl_gym.make("racesl", extras=row): gold 1.0 and done, junk 0 with
its status, a row without a record refused at construction."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
import skyrl_gym

import racesl.integrations.skyrl  # noqa: F401 - registers env_class "racesl"
from racesl.rewards.libraries import read_tasks
from tests.support.tasks import TOY, run_racesc, wrap


def test_rows_make_racesl_envs_that_score(tmp_path):
    (tmp_path / "shop.races").write_text(TOY, encoding="utf-8")
    run_racesc("compile", "shop.races", "-n", 30, "-q", "-o", "t.parquet", "--format", "skyrl", "--no-audit",
               "--operators", "sequential=2-3,sort=2-3,loop=2-3", cwd=tmp_path)
    rows = pq.read_table(tmp_path / "t.parquet").to_pylist()
    records = read_tasks(tmp_path / "t.parquet")  # (registers the sidecar: sort answers are re-executed;
    # in a SkyRL run, RACESL_LIBRARY_PATH=the data folder does it)
    assert len(rows) == len(records) == 30
    for row, rec in zip(rows, records):
        assert row["env_class"] == "racesl" and row["reward_spec"] == {"method": "rule", "ground_truth": rec["answer"]}
        assert row["prompt"] == [{"role": "user", "content": rec["prompt"]}]
        extras = {k: v for k, v in row.items() if k != "prompt"}
        env = skyrl_gym.make(row["env_class"], env_config={}, extras=extras)
        prompt, _ = env.init(row["prompt"])
        assert prompt == row["prompt"]
        out = env.step("Let me see. " + wrap(rec["answer"]))
        assert out["done"] and out["reward"] == 1.0 and out["metadata"]["status"] == "ok"
        junk = skyrl_gym.make("racesl", env_config={}, extras=extras).step("no idea")
        assert junk["reward"] == 0.0 and junk["metadata"]["status"] == "no_answer"
    with pytest.raises(ValueError, match="extra_info.record"):
        skyrl_gym.make("racesl", env_config={}, extras={"reward_spec": {"ground_truth": "1"}})
