"""Run in the gem hub venv (tests/integrations/hub_venvs.sh) by test_gem.py: racesl's env
through GEM's own `make` and `make_vec` (which pass `seed=` to the constructor and reset
without a seed on autoreset); one JSON object of what the test asserts."""

import json

import gem

import racesl.integrations.gem as races
from racesl.integrations.tasks import gold
from racesl.rewards import score

OPS = "sequential=2-3,sort=2-3,loop=2-3"


def single() -> dict:
    env = gem.make(races.ENV_ID, seed=4, operators=OPS)
    prompts, rewards, parity = [], [], []
    for _ in range(5):
        prompt, info = env.reset()  # unseeded: the next task each time
        prompts.append(prompt)
        record = env.record
        for reply in (gold(record), record["answer"], "<answer>nope</answer>", "no tags at all"):
            _, reward, terminated, truncated, info = env.step(reply)
            parity.append(reward == score(record, reply))
        rewards.append(reward)
    env.reset(seed=4)
    again = env.record["prompt"]
    return {"distinct_prompts": len(set(prompts)), "parity": all(parity), "reseeded_first": again == prompts[0],
            "terminated": terminated, "truncated": truncated, "status": info["status"]}


def vector() -> dict:
    envs = gem.make_vec([races.ENV_ID] * 3, seed=10, operators=OPS)
    obs, _ = envs.reset()
    seen = [list(obs)]
    rewards = []
    for _ in range(3):
        replies = [gold(e.record) for e in envs.envs]
        obs, reward, terminated, _, _ = envs.step(replies)  # autoreset: a new task, no seed
        rewards.append([float(r) for r in reward])
        seen.append(list(obs))
    seeds = [e.seed for e in envs.envs]
    return {"seeds": seeds, "rewards": rewards, "prompts": [p for step in seen for p in step],
            "done": [bool(t) for t in terminated]}


def doc_snippet() -> dict:
    """The python block of docs/integrations.md's GEM section, run as written."""
    import re
    from pathlib import Path

    doc = (Path(races.__file__).parents[2] / "docs" / "integrations.md").read_text(encoding="utf-8")
    code = re.search(r"## GEM.*?```python\n(.*?)```", doc, flags=re.DOTALL).group(1)
    scope: dict = {}
    exec(compile(code, "docs/integrations.md (GEM)", "exec"), scope)
    return {"rewards": [float(r) for r in scope["rewards"]], "terminated": [bool(t) for t in scope["terminated"]],
            "prompts": len(set(scope["prompts"]))}


v = vector()
prompts = v.pop("prompts")
print(json.dumps({"single": single(), "vector": {**v, "distinct": len(set(prompts)), "n": len(prompts)},
                  "doc": doc_snippet()}))
