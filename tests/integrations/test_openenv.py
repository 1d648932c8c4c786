"""openenv-core 0.3: a reset/step round rewards the reference answer 1.0 and a wrong one 0,
the same seed draws the same task, and the FastAPI app answers /reset and /step over HTTP
on 127.0.0.1 (a stateless /step given the reset's seed scores that task); `openenv validate`
finds nothing wrong with the Space template but its missing uv.lock."""

from __future__ import annotations

from tests.integrations.conftest import hub_run


def test_reset_step_in_process_and_over_http():
    out = hub_run("openenv", "run_openenv.py")
    p = out["in_process"]
    assert p["reset_done"] is False and p["reset_reward"] is None and p["prompt_has_answer_tag"]
    assert p["right"] == [True, 1.0, "ok"] and p["wrong"][0] is True and p["wrong"][1] < 1.0
    assert p["same_seed_same_task"] and p["other"] == ["loop", 2]
    h = out["http"]
    assert h["reset_task"] == h["task"] and h["reset_done"] is False
    assert h["right"] == [True, 1.0, "ok"] and h["wrong"][0] is True and h["wrong"][1] < 1.0
    assert h["bad_action"] == 422  # an action without `answer`: OpenEnv's validation refuses it
    # the Space template passes `openenv validate` but for the lock file, which needs racesl on an index
    assert out["validate"] == ["Missing uv.lock - run 'uv lock' to generate it"]
