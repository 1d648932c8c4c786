"""rewards.jsonl: the per-step learning curve `racesc train` writes (RewardLogCallback)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

pytest.importorskip("transformers")

from hypothesis import given
from hypothesis import strategies as st

from racesl.train.callbacks import RewardLogCallback, reward_line


def _state(step: int, main: bool = True):
    return SimpleNamespace(global_step=step, is_world_process_zero=main)


def test_reward_line_maps_trl_names_and_groups_operators():
    logs = {"reward": 0.25, "reward_std": 0.1, "frac_reward_zero_std": 0.5, "completions/mean_length": 17.0,
            "completions/clipped_ratio": 0.125, "loss": 0.01, "learning_rate": 2e-5,
            "races/individual/reward": 0.5, "races/sequential/reward": 0.0,
            "races/sequential/size_2/reward": 0.0, "races/individual/solved": 1.0, "races/status/ok": 1.0}
    line = reward_line(7, 12.3456, logs)
    assert line == {"step": 7, "seconds": 12.346, "reward": 0.25, "reward_std": 0.1, "frac_reward_zero_std": 0.5,
                    "completion_length": 17.0, "clipped_ratio": 0.125, "loss": 0.01, "learning_rate": 2e-5,
                    "by_operator": {"individual": 0.5, "sequential": 0.0}}


def test_reward_line_skips_missing_and_non_numbers():
    line = reward_line(1, 0.0, {"reward": 1, "reward_std": None, "loss": "nan?"})
    assert line == {"step": 1, "seconds": 0.0, "reward": 1.0}


def test_callback_writes_a_line_per_step_and_a_resumed_run_appends(tmp_path):
    path = tmp_path / "out" / "rewards.jsonl"
    cb = RewardLogCallback(path)
    cb.on_train_begin(None, _state(0), None)
    assert path.read_text() == ""  # created at the start, empty until a step is logged
    cb.on_log(None, _state(1), None, logs={"reward": 0.0})
    cb.on_log(None, _state(2), None, logs={"reward": 0.5})
    cb.on_log(None, _state(2), None, logs={"train_runtime": 3.0})  # the closing summary: no step
    cb.on_log(None, _state(3, main=False), None, logs={"reward": 1.0})  # another rank writes nothing
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [(x["step"], x["reward"]) for x in lines] == [(1, 0.0), (2, 0.5)]
    assert all(x["seconds"] >= 0 for x in lines)

    again = RewardLogCallback(path, resume=True)
    again.on_train_begin(None, _state(2), None)
    again.on_log(None, _state(3), None, logs={"reward": 0.75})
    assert [json.loads(x)["step"] for x in path.read_text().splitlines()] == [1, 2, 3]

    fresh = RewardLogCallback(path)
    fresh.on_train_begin(None, _state(0), None)
    assert path.read_text() == ""  # a new run starts its own curve


@given(st.dictionaries(st.text(max_size=30), st.one_of(st.none(), st.integers(), st.floats(allow_nan=True),
                                                        st.text(max_size=5), st.lists(st.integers(), max_size=2)),
                       max_size=12))
def test_reward_line_never_raises_and_is_json(logs):
    """Hostile log entries (any keys, any values, `races/` look-alikes): a JSON line, never an error."""
    line = reward_line(3, 1.0, logs)
    text = json.dumps(line, allow_nan=True)
    assert json.loads(text)["step"] == 3
    assert all(isinstance(v, float) for k, v in line.items() if k not in ("step", "seconds", "by_operator"))
