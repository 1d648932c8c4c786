"""Reward adapters (TRL, verl, OpenRLHF): each gives exactly what `score` gives."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from racesl.records import write_parquet, write_verl
from racesl.rewards import score
from racesl.rewards.adapters import compute_score, races_reward
from tests.search.taskutil import OPERATORS, one_per_operator, stdlib, stdlib_records, wrap


@pytest.fixture(scope="module")
def recs():
    stdlib()
    out = list(one_per_operator(stdlib_records(600, 0)).values())
    assert {r["operator"] for r in out} == set(OPERATORS)
    return out


def _completions(recs):
    """Per record: the reference, a partial/wrong answer and junk."""
    out = []
    for r in recs:
        labels = r["answer"].split(", ")
        out += [(r, wrap(r["answer"])), (r, wrap("[" + ", ".join(r["trace"][:1]) + "]")),
                (r, wrap(" ".join(reversed(labels)))), (r, "no answer"), (r, wrap("junk"))]
    return out


def test_trl_record_column(recs):
    pairs = _completions(recs)
    want = [score(r, c) for r, c in pairs]
    assert 1.0 in want and 0.0 in want
    as_dicts = races_reward(prompts=["p"] * len(pairs), completions=[c for _, c in pairs], record=[r for r, _ in pairs])
    as_json = races_reward(completions=[c for _, c in pairs], record=[json.dumps(r) for r, _ in pairs])
    chat = races_reward(completions=[[{"role": "assistant", "content": c}] for _, c in pairs],
                        record=[r for r, _ in pairs])
    assert as_dicts == as_json == chat == want


def test_trl_parquet_columns(recs, tmp_path):
    """A dataset loaded from racesc's Parquet: settings and extra are JSON text there."""
    pairs = _completions(recs)
    write_parquet([r for r, _ in pairs], tmp_path / "t.parquet")
    cols = pq.read_table(tmp_path / "t.parquet").to_pydict()
    assert isinstance(cols["extra"][0], str)
    got = races_reward(prompts=cols["prompt"], completions=[c for _, c in pairs], **cols)
    assert got == [score(r, c) for r, c in pairs]


def test_trl_bad_rows_score_zero(recs):
    assert races_reward(completions=[wrap("1")], record=["{not json"]) == [0.0]
    assert races_reward(completions=[wrap("1")], record=[None]) == [0.0]
    # only an answer column: the exact answer still counts; a row past the column's end is 0
    assert races_reward(completions=[wrap("1"), wrap("2")], answer=["1"]) == [1.0, 0.0]
    assert races_reward(completions=[None, 5, [], [{}]], record=[recs[0]] * 4) == [0.0] * 4
    assert races_reward(completions=[]) == []
    assert races_reward() == []


def test_verl_compute_score(recs, tmp_path):
    pairs = _completions(recs)
    write_verl([r for r, _ in pairs], tmp_path / "v.parquet")
    rows = pq.read_table(tmp_path / "v.parquet").to_pylist()
    for row, (r, c) in zip(rows, pairs):
        got = compute_score(row["data_source"], c, row["reward_model"]["ground_truth"], row["extra_info"])
        assert got == score(r, c)


def test_verl_without_the_record_checks_the_answer():
    assert compute_score("racesl", wrap("[5, 'ab']"), "[5, 'ab']", None) == 1.0
    assert compute_score("racesl", wrap("[5,'ab']"), "[5, 'ab']", {}) == 1.0
    assert compute_score("racesl", wrap("[5, 'ac']"), "[5, 'ab']", {"record": "{bad"}) == 0.0
    assert compute_score("racesl", None, None, None) == 0.0


def test_openrlhf_reward_func(recs):
    torch = pytest.importorskip("torch")
    pairs = _completions(recs)
    out = reward_func_call(pairs)
    want = torch.tensor([score(r, c) for r, c in pairs], dtype=torch.float32)
    assert torch.equal(out["rewards"], want) and torch.equal(out["scores"], want)


def reward_func_call(pairs):
    from racesl.rewards.adapters import reward_func

    return reward_func([c for _, c in pairs], ["p"] * len(pairs), [json.dumps(r) for r, _ in pairs])
