"""Integrations find a user library in the sidecar beside their data (issue 44), refuse a
bad one in one line, and are not held up by a bad neighbour (a FIFO, a malformed sidecar)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from racesl.userfiles import UserFileError
from tests.rewards.test_sidecars import _gold, _in_thread, _one_line, fresh, toy, write_hostile  # noqa: F401
from tests.support.tasks import wrap


def test_hf_load_saved_registers_its_library_or_says_why_not(toy, tmp_path, fresh):  # noqa: F811
    pytest.importorskip("datasets")
    from datasets import Dataset

    from racesl.integrations import hf

    d, records, side = toy
    folder = tmp_path / "tasks.hf"
    Dataset.from_list([hf.to_row(r) for r in records], features=hf.features()).save_to_disk(str(folder))
    write_hostile(folder / "library.json", "module-null", side)
    with pytest.raises(UserFileError) as e:
        hf.load_saved(folder)
    _one_line(e.value, folder / "library.json")
    shutil.copy(d / "tasks.jsonl.library.json", folder / "library.json")
    ds = hf.load_saved(folder)
    assert _gold([hf.to_record(row) for row in ds]) == [1.0] * len(records)


def test_nemo_gym_verify_scans_its_data_folder_past_bad_neighbours(toy, tmp_path, fresh):  # noqa: F811
    from racesl.integrations import nemo_gym

    d, records, side = toy
    data = tmp_path / "data"
    data.mkdir()
    os.mkfifo(data / "a.library.json")
    write_hostile(data / "b.library.json", "library-int", side)
    shutil.copy(d / "tasks.jsonl.library.json", data / "train.jsonl.library.json")

    def verify_all():
        return [nemo_gym.verify_payload({"record": r, "response": {"output": [{"type": "message", "content": [
            {"type": "output_text", "text": wrap(r["answer"])}]}]}}, libraries=[str(data)]) for r in records]

    got = _in_thread(verify_all)["value"]
    assert [g["reward"] for g in got] == [1.0] * len(records) and {g["status"] for g in got} == {"ok"}


def test_a_verl_row_scores_through_compute_score_given_its_data(toy, tmp_path, fresh):  # noqa: F811
    import pyarrow.parquet as pq

    from racesl.records import write_verl
    from racesl.rewards.adapters import compute_score_for

    d, records, _ = toy
    write_verl(records, tmp_path / "races.parquet")
    shutil.copy(d / "tasks.jsonl.library.json", tmp_path / "races.parquet.library.json")
    rows = pq.read_table(tmp_path / "races.parquet").to_pylist()
    fn = compute_score_for(tmp_path / "races.parquet")
    got = [fn(r["data_source"], wrap(json.loads(r["extra_info"]["record"])["answer"]), r["reward_model"]["ground_truth"],
              r["extra_info"])["score"] for r in rows]
    assert got == [1.0] * len(records)
