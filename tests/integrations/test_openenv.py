"""openenv-core 0.3: a reset/step round rewards the reference answer 1.0 and a wrong one 0,
the same seed draws the same task, the reward is `racesc score`'s for the same text (tagless
replies included), and the FastAPI app answers /reset and /step over HTTP on 127.0.0.1: a
stateless /step given the reset's seed scores that task; one without a seed, or whose
task_id is not the seed's task, is refused with 400 and the reason, never scored against
another task. The Space template, prepared as its README says (racesl's wheel in wheels/,
`uv lock`), passes `openenv validate`."""

from __future__ import annotations

from tests.integrations.conftest import hub_run


def test_reset_step_in_process_and_over_http():
    out = hub_run("openenv", "run_openenv.py")
    p = out["in_process"]
    assert p["reset_done"] is False and p["reset_reward"] is None and p["prompt_has_answer_tag"]
    assert p["right"] == [True, 1.0, "ok"] and p["wrong"][0] is True and p["wrong"][1] < 1.0
    assert p["same_seed_same_task"] and p["other"] == ["loop", 2]
    assert len(p["parity"]) == 50 and all(p["parity"]) and p["bare"] == "no_answer"
    assert "cannot know its task" in p["no_reset"] and "seed" in p["no_reset"]
    h = out["http"]
    assert h["reset_task"] == h["task"] and h["reset_done"] is False
    assert h["right"] == [True, 1.0, "ok"] and h["wrong"][0] is True and h["wrong"][1] < 1.0
    assert h["bad_action"] == 422  # an action without `answer`: OpenEnv's validation refuses it
    assert h["unseeded"][0] == 400 and "cannot know its task" in h["unseeded"][1]
    assert h["named"] == 1.0 and h["mismatch"][0] == 400 and h["reset_task"] in h["mismatch"][1]
    assert h["option"][0] == 400 and "colour" in h["option"][1]
    # the Space template, its wheel built and locked as its README says, passes `openenv validate`
    assert out["validate"] == []
