"""Run in the verifiers hub venv (tests/integrations/hub_venvs.sh) by test_verifiers.py:
load the `racesl-tasks` taskset through verifiers' own loader and report, as one JSON
object, what the test asserts. argv[1]: a compiled task file for the finite mode."""

import asyncio
import json
import sys

from verifiers.v1 import Taskset
from verifiers.v1.trace import Trace
from verifiers.v1.utils.loaders import import_taskset, load_taskset, taskset_class, taskset_config_type

from racesl.integrations.tasks import gold


async def reward(task, reply: str) -> float:
    trace = Trace.model_construct(root_reply=reply, rewards={}, metrics={}, nodes=[], calls=[])
    await task.score(trace)  # verifiers' scoring: the task's @reward hooks, weighted
    return trace.rewards["races"].score


async def main() -> dict:
    module = import_taskset("racesl-tasks")
    config_type = taskset_config_type("racesl-tasks")
    exported = [n for n in module.__all__ if isinstance(getattr(module, n), type)
                and issubclass(getattr(module, n), Taskset)]
    stream = load_taskset(config_type(id="racesl-tasks", seed=3, operators="sequential=2-3,sort=2-3,loop=2-3"))
    tasks = list(stream.take(50))
    again = [t.key for t in load_taskset(config_type(id="racesl-tasks", seed=3,
                                                     operators="sequential=2-3,sort=2-3,loop=2-3")).take(50)]
    finite = load_taskset(config_type(id="racesl-tasks", file=sys.argv[1]))
    from_file = list(finite)
    return {
        "module": module.__name__, "taskset": taskset_class("racesl-tasks").__name__, "exported": exported,
        "config": config_type.__name__, "infinite": not stream.bounded, "n": len(tasks),
        "ask_for_answer": sum("<answer>" in t.data.prompt_text for t in tasks),
        "gold_valid": sum([await t.validate(None) for t in tasks]),
        "gold_rewards": [await reward(t, "Thinking... " + gold(t.data.record)) for t in tasks],
        "junk_rewards": [await reward(t, "I do not know.") for t in tasks],
        "keys": [t.key for t in tasks], "ids": [t.data.record["id"] for t in tasks], "again": again,
        "operators": sorted({t.data.record["operator"] for t in tasks}),
        "file_bounded": finite.bounded, "file_keys": [t.key for t in from_file],
        "file_gold": sum([await reward(t, gold(t.data.record)) for t in from_file]),
    }


print(json.dumps(asyncio.run(main())))
