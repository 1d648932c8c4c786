"""Graded verifiers and the drawn latent value, scored (issue 48): `score`/`verdict`, the
TRL, verl and OpenRLHF adapters and `racesc score` give a graded checker's value / N, read the
latent value back from the record, and refuse a record without it with status `error`."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racesl.rewards import score, verdict
from racesl.rewards.adapters import compute_score, races_reward, reward_func
from racesl.rewards.libraries import read_tasks
from racesl.rewards.score import STATUSES
from tests.support.graded import compile_graded, half_answer, other_full_answer
from tests.support.tasks import run_racesc, wrap


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    return compile_graded(tmp_path_factory.mktemp("graded"))


@pytest.fixture(scope="module")
def records(tasks):
    recs = read_tasks(tasks)  # (registers the library: the checkers need it)
    ops = {(r["operator"], r["chain"][0]) for r in recs}
    assert ("individual", "graded.factor_pair") in ops and ("individual", "latent.unsort") in ops
    assert any(r["operator"] == "parallel" and "latent.unsort" in r["chain"] for r in recs)
    return recs


def _individual(records, env):
    return [r for r in records if r["operator"] == "individual" and r["chain"][0] == env]


def test_latent_values_are_recorded_only_for_their_steps(records):
    for r in records:
        lat = r["extra"].get("latents")
        if "latent.unsort" not in r["chain"]:
            assert lat is None  # (records of other environments are as they were)
            continue
        assert len(lat) == len(r["chain"])
        assert [x is not None for x in lat] == [q == "latent.unsort" for q in r["chain"]]
        assert all(r["answer"].count(t) == 0 for t in lat if t)  # (a list: never an answer text)


def test_individual_scores_the_grade(records):
    halves = 0
    for env in ("graded.factor_pair", "latent.unsort"):
        for r in _individual(records, env):
            assert score(r, wrap(r["answer"])) == 1.0
            half = half_answer(r)
            if half is not None:
                v = verdict(r, wrap(half))
                assert v == verdict(r, wrap(half)) and v.score == score(r, wrap(half)) == 0.5, (r["id"], v)
                assert v.status == "ok" and "graded 0.5" in v.detail
                halves += 1
            assert score(r, wrap("(0, 0)" if env == "graded.factor_pair" else "'zzzzzzzzzzzz'")) == 0.0
    assert halves >= 4


def test_the_checker_reads_the_latent_value(records):
    """The reverse of the hidden word gets the full grade: only the drawn latent knows it."""
    seen = 0
    for r in _individual(records, "latent.unsort"):
        other = other_full_answer(r)
        if other is not None:
            assert other != r["answer"] and score(r, wrap(other)) == 1.0
            seen += 1
    assert seen


def test_parallel_is_the_mean_of_item_grades(records):
    mine = [r for r in records if r["operator"] == "parallel" and "latent.unsort" in r["chain"]]
    for r in mine:
        halves = [half_answer({"chain": [q], "input": x, "extra": {"latents": [lat]}})
                  for q, x, lat in zip(r["chain"], r["extra"]["inputs"], r["extra"]["latents"])]
        if any(h is None for h in halves):
            continue
        text = wrap("[" + ", ".join(halves) + "]")
        assert score(r, text) == verdict(r, text).score == pytest.approx(0.5)
        first_right = wrap("[" + ", ".join([r["trace"][0]] + halves[1:]) + "]")
        n = len(r["trace"])
        assert score(r, first_right) == pytest.approx((1 + 0.5 * (n - 1)) / n)
        assert "partial credit from a graded checker" in verdict(r, first_right).detail


@pytest.mark.parametrize("edit", ["missing", "not a list", "not text", "outside its type", "too short"])
def test_a_record_without_its_latent_is_an_error_not_a_traceback(records, edit):
    r = _individual(records, "latent.unsort")[0]
    extra = {"missing": {"verify": True}, "not a list": {"verify": True, "latents": "x"},
             "not text": {"verify": True, "latents": [5]}, "outside its type": {"verify": True, "latents": ["5"]},
             "too short": {"verify": True, "latents": []}}[edit]
    bad = dict(r, extra=extra)
    half = wrap(half_answer(r) or "'abc'")
    v = verdict(bad, half)
    assert v.score == score(bad, half) == 0.0 and v.status == "error" and "latent" in v.detail, v
    assert verdict(bad, wrap(r["answer"])).score == 1.0  # the recorded answer needs no checker


def test_adapters_carry_the_grade(records):
    """TRL, verl and OpenRLHF all score through `verdict`: the grade, never a bool."""
    pairs = []
    for r in records:
        if r["operator"] == "individual" and half_answer(r) is not None:
            pairs += [(r, wrap(half_answer(r))), (r, wrap(r["answer"]))]
    want = [verdict(r, c).score for r, c in pairs]
    assert 0.5 in want and 1.0 in want
    assert races_reward(completions=[c for _, c in pairs], record=[json.dumps(r) for r, _ in pairs]) == want
    got = [compute_score("races", c, r["answer"], {"record": json.dumps(r)}) for r, c in pairs]
    assert [g["score"] for g in got] == want and {g["status"] for g in got} == {"ok"}
    out = reward_func([c for _, c in pairs], [""] * len(pairs), [json.dumps(r) for r, _ in pairs])
    assert out["rewards"].tolist() == pytest.approx(want)
    from racesl.integrations.nemo_gym import verify_payload  # (NeMo Gym's verify, and hf rows, alike)

    gym = [verify_payload({"record": json.dumps(r), "response": {"output": [
        {"type": "message", "content": [{"type": "output_text", "text": c}]}]}}) for r, c in pairs]
    assert [g["reward"] for g in gym] == want


def test_racesc_score_gives_the_grade(tasks, records, tmp_path):
    rows, want = [], []
    for r in records:
        if r["operator"] == "individual" and half_answer(r) is not None:
            rows.append({"id": r["id"], "completion": wrap(half_answer(r))})
            want.append((0.5, "ok"))
    done = tmp_path / "completions.jsonl"
    done.write_text("".join(json.dumps(x) + "\n" for x in rows))
    out = tmp_path / "scores.jsonl"
    run_racesc("score", tasks, done, "-o", out)
    got = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(g["score"], g["status"]) for g in got] == want


@settings(max_examples=150, deadline=None)
@given(k=st.integers(0, 10**6), text=st.text(max_size=60), wrapped=st.booleans())
def test_a_graded_score_is_in_range_and_junk_never_raises(records, k, text, wrapped):
    r = records[k % len(records)]
    c = wrap(text) if wrapped else text
    s, v = score(r, c), verdict(r, c)
    assert 0.0 <= s <= 1.0 and v.score == s and v.status in STATUSES
    if "</answer>" not in c:
        assert s == 0.0 and v.status == "no_answer"


def test_verl_parquet_rows_carry_the_latent_and_the_grade(tmp_path):
    """verl's own path: a `--format verl` row's `extra_info` into `compute_score` (the
    latent value travels inside the record's JSON)."""
    import pyarrow.parquet as pq

    from tests.support.graded import SOURCES

    out = tmp_path / "train.parquet"
    run_racesc("compile", *SOURCES, "-n", 30, "-o", out, "-q", "--format", "verl", "--allow-shortcuts",
               "--operators", "individual=1,parallel=2-3", cwd=tmp_path)
    rows = pq.read_table(out).to_pylist()
    seen = set()
    for row in rows:
        rec = json.loads(row["extra_info"]["record"])
        half = half_answer(rec) if rec["operator"] == "individual" else None
        if half is None:
            continue
        got = compute_score(row["data_source"], wrap(half), row["reward_model"]["ground_truth"],
                            row["extra_info"], data=str(out))
        assert (got["score"], got["status"]) == (0.5, "ok"), got
        seen.add(rec["chain"][0])
    assert seen == {"graded.factor_pair", "latent.unsort"}


def test_a_str_answer_without_quotes_is_judged_by_the_checker_as_that_str(records):
    """Where a Str is due an answer may be written without quotes (docs/language.md §6): the
    checker judges the Str itself (it scored 0 before, though `matches` read it so)."""
    from racesl.rewards.parse import expected_value

    rows = _individual(records, "latent.unsort")
    assert rows
    for r in rows:
        word = expected_value(r["answer"])
        assert score(r, wrap(word)) == score(r, wrap(f"  {word} ")) == 1.0
        assert score(r, wrap(word[::-1])) == 1.0  # (the reverse: the checker's other full answer)
        v = verdict(r, wrap("12345"))  # no Str literal, read as the Str "12345": wrong, not unreadable
        assert (v.score, v.status) == (0.0, "ok"), v
