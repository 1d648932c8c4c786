"""Reward adapters (TRL, verl, OpenRLHF): each gives exactly what `score` gives, and
counts or logs the verdict statuses."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from racesl.records import write_parquet, write_verl
from racesl.rewards import STATUSES, adapters, score, verdict
from racesl.rewards.adapters import compute_score, races_reward, reward_func, status_counts
from tests.support.tasks import OPERATORS, one_per_operator, stdlib, stdlib_records, wrap


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
    # only an answer column is no record (no operator): 0, status error (it used to count
    # an exact answer: a silent exact-match fallback); a row past the column's end is 0
    status_counts(reset=True)
    assert races_reward(completions=[wrap("1"), wrap("2")], answer=["1"]) == [0.0, 0.0]
    assert status_counts()["error"] == 2
    assert races_reward(completions=[None, 5, [], [{}]], record=[recs[0]] * 4) == [0.0] * 4
    assert races_reward(completions=[]) == []
    assert races_reward() == []


def test_verl_compute_score(recs, tmp_path):
    pairs = _completions(recs)
    write_verl([r for r, _ in pairs], tmp_path / "v.parquet")
    rows = pq.read_table(tmp_path / "v.parquet").to_pylist()
    keys = None
    for row, (r, c) in zip(rows, pairs):
        got = compute_score(row["data_source"], c, row["reward_model"]["ground_truth"], row["extra_info"])
        v = verdict(r, c)
        assert got["score"] == score(r, c) == v.score
        assert (got["status"], got["detail"]) == (v.status, v.detail)
        assert {s: got[f"status_{s}"] for s in STATUSES} == {s: float(s == v.status) for s in STATUSES}
        assert keys is None or set(got) == keys  # verl collects each key over all samples
        keys = set(got)
    assert {"ok", "no_answer"} <= {compute_score(row["data_source"], c, None, row["extra_info"])["status"]
                                   for row, (_, c) in zip(rows, pairs)}


def test_verl_without_the_record_is_an_error():
    """No record, no judging: score 0, status error (this used to compare with ground_truth,
    a silent exact-match fallback that could not tell a missing record from a wrong answer)."""
    right = compute_score("racesl", wrap("[1]"), "[1]", {"record": json.dumps({"operator": "loop", "answer": "[1]"})})
    for info in (None, {}, {"record": "{bad"}, {"record": None}, {"record": "[1, 2]"}, "text"):
        for c in (wrap("[5, 'ab']"), None):
            got = compute_score("racesl", c, "[5, 'ab']", info)
            assert (got["score"], got["status"], got["detail"]) == (0.0, "error", "no record in extra_info")
            assert got["status_error"] == 1.0 and set(got) == set(right)


def test_openrlhf_reward_func(recs):
    torch = pytest.importorskip("torch")
    pairs = _completions(recs)
    out = reward_func_call(pairs)
    want = torch.tensor([score(r, c) for r, c in pairs], dtype=torch.float32)
    assert torch.equal(out["rewards"], want) and torch.equal(out["scores"], want)
    logs = out["extra_logs"]
    assert torch.equal(logs["races_reward"], want)
    statuses = [verdict(r, c).status for r, c in pairs]
    for s in STATUSES:  # one value per sample (OpenRLHF splits extra_logs by sample): the mean is the share
        t = logs[f"races/status/{s}"]
        assert t.dtype == torch.float32 and t.shape == (len(pairs),)
        assert t.tolist() == [float(x == s) for x in statuses]
    assert sum(logs[f"races/status/{s}"].sum().item() for s in STATUSES) == len(pairs)
    assert logs["races/status/no_answer"].sum().item() == statuses.count("no_answer") > 0
    # a label that is no record: score 0, status error
    bad = reward_func([wrap("1")], ["p"], ["{not json"])
    assert bad["rewards"].tolist() == [0.0] and bad["extra_logs"]["races/status/error"].tolist() == [1.0]


def reward_func_call(pairs):
    return reward_func([c for _, c in pairs], ["p"] * len(pairs), [json.dumps(r) for r, _ in pairs])


def test_trl_status_counts_and_metrics(recs):
    """races_reward returns floats (TRL needs them) and counts statuses where a callback can
    read them; with TRL's log_metric and log_extra it logs each status's share of the batch
    and a status column."""
    pairs = _completions(recs)
    want = [verdict(r, c) for r, c in pairs]
    status_counts(reset=True)
    logged, extra = [], {}
    out = races_reward(completions=[c for _, c in pairs], record=[r for r, _ in pairs],
                       log_metric=lambda name, v: logged.append((name, v)),
                       log_extra=lambda col, vals: extra.setdefault(col, vals), trainer_state=None)
    assert out == [v.score for v in want] and all(type(x) is float for x in out)
    counts = {s: sum(v.status == s for v in want) for s in STATUSES}
    assert status_counts() == counts and counts["ok"] and counts["no_answer"]
    assert dict(logged) == {f"races/status/{s}": n / len(pairs) for s, n in counts.items()}
    assert extra == {"races_status": [v.status for v in want]}
    races_reward(completions=[wrap("1")], record=[None])
    assert status_counts(reset=True)["error"] == counts["error"] + 1  # counts accumulate until reset
    assert status_counts() == dict.fromkeys(STATUSES, 0)
    assert adapters.STATUS_COUNTS == {}


def test_racesc_train_reward_counts_and_logs_statuses(recs):
    """`racesc train`'s reward (racesl.train.rewards.RacesReward) scores with verdict: the same
    floats as score, the share of each status logged through TRL's log_metric per batch, a
    status column through log_extra, and running counts in `.counts` for callbacks."""
    from racesl.train.rewards import RacesReward

    pairs = _completions(recs)
    want = [verdict(r, c) for r, c in pairs]
    reward = RacesReward()
    logged, extra = [], {}
    out = reward(completions=[[{"role": "assistant", "content": c}] for _, c in pairs],
                 record=[json.dumps(r) for r, _ in pairs], operator=[r["operator"] for r, _ in pairs],
                 log_metric=lambda name, v: logged.append((name, v)),
                 log_extra=lambda col, vals: extra.setdefault(col, vals))
    assert out == [v.score for v in want] == [score(r, c) for r, c in pairs]
    counts = {s: sum(v.status == s for v in want) for s in STATUSES}
    assert dict(reward.counts) == counts
    status_logs = {n: v for n, v in logged if n.startswith("races/status/")}
    assert status_logs == {f"races/status/{s}": n / len(pairs) for s, n in counts.items()}
    assert extra == {"races_status": [v.status for v in want]}
    assert any(n.endswith("/reward") for n, _ in logged)  # the per-operator metrics are still there
    reward(completions=["<answer>1</answer>"], record=["{not json"])
    assert reward.counts["error"] == counts["error"] + 1
