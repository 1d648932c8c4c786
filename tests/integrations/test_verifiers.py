"""verifiers 0.4 (v1 API): `racesl-tasks` loads through verifiers' own loader, as one Taskset
subclass in `__all__`; 50 streamed tasks ask for `<answer>`, pass the gold validation, score
1.0 for the gold reply and 0 for junk through verifiers' Task.score; keys are the record
ids and repeat for the same seed; a compiled file gives a finite taskset of its records."""

from __future__ import annotations

from racesl.records import read_records
from tests.integrations.conftest import hub_run
from tests.support.tasks import run_racesc


def test_racesl_tasks_through_verifiers_loader(tmp_path):
    run_racesc("compile", "stdlib", "-n", 30, "--seed", 2, "-o", tmp_path / "t.jsonl", "-q", "--no-audit")
    out = hub_run("verifiers", "run_verifiers.py", tmp_path / "t.jsonl")
    assert (out["module"], out["taskset"], out["exported"], out["config"]) == \
        ("racesl_tasks", "RacesTaskset", ["RacesTaskset"], "RacesConfig")
    assert out["infinite"] and out["n"] == 50 and out["ask_for_answer"] == 50 and out["gold_valid"] == 50
    assert out["gold_rewards"] == [1.0] * 50 and out["junk_rewards"] == [0.0] * 50
    assert out["keys"] == out["ids"] == out["again"] and len(set(out["keys"])) == 50
    assert out["operators"] == ["loop", "sequential", "sort"]
    records = read_records(tmp_path / "t.jsonl")
    assert out["file_bounded"] and out["file_keys"] == [r["id"] for r in records] and out["file_gold"] == 30
