"""GEM (gem-llm 0.1): racesl tasks as a single-turn GEM environment.

    import gem
    import racesl.integrations.gem          # registers "racesl" with gem (ENV_ID)
    envs = gem.make_vec(["racesl"] * 8, seed=0, operators="sequential=2-4,sort=2-3")

`gem.make_vec` builds each environment with `seed=seed + index` and resets it without a
seed after every episode, so an environment is a stream of tasks: `RacesGemEnv(seed=s)`
walks the compiler's stream with seed `s`, one task a `reset()`; `reset(seed=t)` starts
the stream of seed `t` over (the same seed, the same tasks). `step(reply)` scores the
reply with `racesl.rewards.verdict` (the reward `racesc score` gives the same text) and
ends the episode; `info` carries the verdict's status and detail.
"""

from __future__ import annotations

from typing import Any

import gem
from gem.utils.constants import TERMINAL_STATE

from racesl.integrations.tasks import stream
from racesl.rewards import verdict

__all__ = ["ENV_ID", "RacesGemEnv"]

ENV_ID = "racesl"


class RacesGemEnv(gem.Env):
    """One task an episode, one step. `paths` (default: the stdlib), `include`,
    `operators` and `level` choose the tasks, as `racesc compile` takes them."""

    def __init__(self, paths=None, *, seed: int = 0, operators: str | None = None, level: int | None = None,
                 include=(), **_):
        super().__init__()
        self.source = {"paths": paths, "operators": operators, "level": level, "include": tuple(include)}
        self.seed = seed
        self._tasks = stream(seed=seed, **self.source)
        self.record: dict | None = None

    def reset(self, seed: int | None = None) -> tuple[str, dict[str, Any]]:
        """The next task of this environment's stream; with a seed, the first of that seed's."""
        if seed is not None:
            self.seed = seed
            self._tasks = stream(seed=seed, **self.source)
        self.record = next(self._tasks)
        r = self.record
        return r["prompt"], {"id": r["id"], "operator": r["operator"], "size": r["size"]}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self.record is None:
            raise RuntimeError("step() before reset(): reset() draws the task a reply is scored against")
        v = verdict(self.record, action)
        info = {"status": v.status, "detail": v.detail, "id": self.record["id"]}
        return TERMINAL_STATE, v.score, True, False, info

    def sample_random_action(self) -> str:
        return "<answer>0</answer>"


if ENV_ID not in gem.envs.registration.ENV_REGISTRY:
    gem.register(ENV_ID, entry_point=RacesGemEnv)
