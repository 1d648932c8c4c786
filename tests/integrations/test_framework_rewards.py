"""Each trainer framework's own reward-calling code, in its own venv (hub_venvs.sh), scores the
parity corpus (tests.support.parity: gold, wrong, partly right, no answer, junk, verified
answers; every operator; the stdlib and a user library) exactly as `racesc score` does, in a
fresh process whose library caches are cold and with the framework's default concurrency:

- verl 0.9.1: `RewardLoopWorker` → `NaiveRewardManager.run_single` → racesl's
  `compute_score`, loaded from adapters.py by verl's own loader, in the event loop's
  default executor (several threads);
- OpenRLHF 0.11.2: `SingleTurnAgentExecutor` loads `reward_func` from the adapters.py path
  and calls it through `asyncio.to_thread`, one completion a call;
- SkyRL (skyrl-train 0.3.1): `SkyRLGymGenerator.generate` (batched=False, SkyRL's default
  `max_env_workers: 32`) steps `racesl` envs in its thread pool.

No model: run_framework.py gives each a byte-level tokenizer and an engine stub that answers
each prompt with its completion."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.support import parity
from tests.support.tasks import REPO


def run_framework(name: str, tmp_path) -> dict:
    python = REPO / ".venv-hubs" / name / "bin" / "python"
    if not python.exists():
        pytest.fail(f"no {name} venv at {python.parent.parent}: run bash tests/integrations/hub_venvs.sh "
                    "(README's test command does)")
    folder = parity.corpus()
    env = dict(os.environ, OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false", RAY_DISABLE_IMPORT_WARNING="1",
               RACESL_LIBRARY_PATH=str(folder / "user" / "tasks.jsonl.library.json"))
    p = subprocess.run([str(python), str(REPO / "tests" / "integrations" / "run_framework.py"), name, str(folder),
                        str(tmp_path)], capture_output=True, text=True, timeout=900, cwd=tmp_path, env=env)
    assert p.returncode == 0, f"run_framework.py {name} exited {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-4000:]}"
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", ["verl", "openrlhf", "skyrl"])
def test_the_frameworks_own_reward_path_scores_like_racesc_score(name, tmp_path):
    got = run_framework(name, tmp_path)
    assert got["executor_threads"] > 1  # the framework's own concurrency, as a training run has it
    diffs = parity.differences(name, got["results"])
    assert not diffs, got["ran"] + "\n" + "\n".join(diffs[:25])
