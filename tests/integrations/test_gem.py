"""GEM (gem-llm 0.1, in its own venv): racesl's env through GEM's own `make` and
`make_vec`. make_vec passes `seed=` to the constructor and resets without a seed on
autoreset: every unseeded reset draws a new task, 3 environments × 4 episodes give 12
distinct prompts, gold replies score 1.0; reseeding replays the stream; each step's reward
is `racesl.rewards.score` of the same text (tagless replies included); the snippet of
docs/integrations.md runs as written."""

from __future__ import annotations

from tests.integrations.conftest import hub_run


def test_racesl_env_under_make_and_make_vec():
    out = hub_run("gem", "run_gem.py")
    s = out["single"]
    assert s["distinct_prompts"] == 5 and s["reseeded_first"] and s["parity"]
    assert (s["terminated"], s["truncated"], s["status"]) == (True, False, "no_answer")
    v = out["vector"]
    assert v["seeds"] == [10, 11, 12] and v["rewards"] == [[1.0] * 3] * 3 and v["done"] == [True] * 3
    assert v["n"] == 12 and v["distinct"] == 12
    d = out["doc"]  # the docs' snippet, as written: 8 environments, a step, the next 8 tasks
    assert len(d["rewards"]) == 8 and d["terminated"] == [True] * 8 and d["prompts"] == 8
