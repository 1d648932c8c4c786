"""Run in the openenv hub venv (tests/integrations/hub_venvs.sh) by test_openenv.py: a
reset/step round in process, then the FastAPI app served by uvicorn on 127.0.0.1 and
driven over HTTP; one JSON object of what the test asserts."""

import json
import socket
import subprocess
import sys
import time

import requests

from racesl.integrations.openenv import RacesAction, RacesEnvironment, TaskUnknown
from racesl.integrations.tasks import gold
from racesl.rewards import score

OPS = "sequential=2-3,sort=2-3,loop=2-3"


def in_process() -> dict:
    env = RacesEnvironment(operators=OPS)
    first = env.reset(seed=11)
    record = env.record
    right = env.step(RacesAction(answer=gold(record)))
    env.reset(seed=11)
    same = env.record == record
    wrong = env.step(RacesAction(answer="<answer>not it</answer>"))
    other = env.reset(seed=12, operators="loop=2-2")
    parity = []
    for seed in range(20, 30):  # the reward is racesc score's for the same text, tags or none
        env.reset(seed=seed)
        r = env.record
        for reply in (gold(r), r["answer"], "<answer>no</answer>", "", f"I think <answer>{r['answer']}"):
            parity.append(env.step(RacesAction(answer=reply)).reward == score(r, reply))
    try:
        RacesEnvironment(operators=OPS).step(RacesAction(answer=gold(record)))
        unknown = None
    except TaskUnknown as e:
        unknown = str(e)
    return {"reset_done": first.done, "reset_reward": first.reward, "prompt_has_answer_tag": "<answer>" in first.prompt,
            "right": [right.done, right.reward, right.status], "wrong": [wrong.done, wrong.reward, wrong.status],
            "same_seed_same_task": same, "other": [other.operator, other.size], "steps": env.state.step_count,
            "parity": parity, "bare": env.step(RacesAction(answer=env.record["answer"])).status,
            "no_reset": unknown}


def over_http() -> dict:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = ("import uvicorn; from racesl.integrations.openenv import make_app; "
            f"uvicorn.run(make_app(operators={OPS!r}), host='127.0.0.1', port={port}, log_level='warning')")
    server = subprocess.Popen([sys.executable, "-c", code])
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if requests.get(url + "/health", timeout=1).ok:
                    break
            except requests.ConnectionError:
                time.sleep(0.2)
        reset = requests.post(url + "/reset", json={"seed": 5}, timeout=60).json()
        env = RacesEnvironment(operators=OPS)
        env.reset(seed=5)
        answer = gold(env.record)
        right = requests.post(url + "/step", json={"action": {"answer": answer}, "seed": 5}, timeout=60).json()
        wrong = requests.post(url + "/step", json={"action": {"answer": "<answer>[]</answer>"}, "seed": 5},
                              timeout=60).json()
        bad = requests.post(url + "/step", json={"action": {"text": "x"}}, timeout=60)
        unseeded = requests.post(url + "/step", json={"action": {"answer": answer}}, timeout=60)
        named = requests.post(url + "/step", json={"action": {"answer": answer}, "seed": 5,
                                                   "task_id": reset["observation"]["task_id"]}, timeout=60).json()
        mismatch = requests.post(url + "/step", json={"action": {"answer": answer}, "seed": 6,
                                                      "task_id": reset["observation"]["task_id"]}, timeout=60)
        option = requests.post(url + "/step", json={"action": {"answer": answer}, "seed": 5, "colour": "red"},
                               timeout=60)
        return {"reset_task": reset["observation"]["task_id"], "task": env.record["id"],
                "reset_done": reset["done"], "right": [right["done"], right["reward"], right["observation"]["status"]],
                "wrong": [wrong["done"], wrong["reward"]], "bad_action": bad.status_code,
                "unseeded": [unseeded.status_code, unseeded.json()["detail"]], "named": named["reward"],
                "mismatch": [mismatch.status_code, mismatch.json()["detail"]],
                "option": [option.status_code, option.json()["detail"]]}
    finally:
        server.terminate()
        server.wait(30)


def template() -> list[str]:
    """What `openenv validate` says of a copy of the Space template prepared as its README
    says (racesl's wheel built into wheels/, `uv lock`): its issue lines."""
    import os
    import shutil
    import tempfile
    from pathlib import Path

    import racesl.integrations

    src = Path(racesl.integrations.__file__).parent / "templates" / "openenv"
    root = Path(racesl.integrations.__file__).parents[2]
    uv = os.environ.get("UV") or str(root / ".venv" / "bin" / "uv")
    with tempfile.TemporaryDirectory() as d:
        space = Path(d) / "racesl"
        shutil.copytree(src, space)
        for cmd, where in (([uv, "build", "-q", "--wheel", "--out-dir", str(space / "wheels")], root),
                           ([uv, "lock", "-q"], space)):
            p = subprocess.run(cmd, cwd=where, capture_output=True, text=True, timeout=300)
            assert p.returncode == 0, f"{cmd} exited {p.returncode}: {p.stderr[-2000:]}"
        p = subprocess.run([str(Path(sys.executable).with_name("openenv")), "validate", "."], cwd=space,
                           capture_output=True, text=True, timeout=300)
        locked = "racesl-" in (space / "uv.lock").read_text() and 'registry = "wheels"' in (space / "uv.lock").read_text()
    return [line.strip()[2:] for line in p.stdout.splitlines() if line.strip().startswith("- ")] + \
        ([] if locked else ["uv.lock does not take racesl from wheels/"])


print(json.dumps({"in_process": in_process(), "http": over_http(), "validate": template()}))
