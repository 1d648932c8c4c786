"""SkyRL (skyrl-gym 0.4): a single-turn text environment that scores the reply with
racesl's reward. `racesc compile --format skyrl` writes the rows: verl's Parquet plus
`env_class: "racesl"` and `reward_spec` (the answer as ground truth); SkyRL hands a row's
fields to the environment as `extras`, and `extra_info.record` is what it scores against.

    import racesl.integrations.skyrl   # registers env_class "racesl" with skyrl_gym
"""

from __future__ import annotations

from typing import Any

from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput
from skyrl_gym.envs.registration import register, registry

from racesl.records import SKYRL_ENV
from racesl.rewards import verdict
from racesl.rewards.adapters import record_from
from racesl.rewards.libraries import bind_data

__all__ = ["RacesEnv", "SKYRL_ENV"]


class RacesEnv(BaseTextEnv):
    """One task, one reply: done after the first step, reward in [0, 1], the verdict's status
    and detail in the step's metadata."""

    def __init__(self, env_config: Any = None, extras: dict | None = None):
        """`env_config.data` (optional: a path or a list): the data files whose sidecars hold
        the libraries, registered on the first environment (no RACESL_LIBRARY_PATH needed)."""
        super().__init__()
        data = env_config.get("data") if hasattr(env_config, "get") else None
        bind_data(data)
        extras = extras or {}
        info = extras.get("extra_info")
        record = record_from(info.get("record")) if isinstance(info, dict) else record_from(extras.get("record"))
        if record is None:
            raise ValueError("a racesl row carries its record in extra_info.record (racesc compile --format skyrl)")
        self.record = record

    def step(self, action: str) -> BaseTextEnvStepOutput:
        self.turns += 1
        v = verdict(self.record, action)
        return BaseTextEnvStepOutput(observations=[], reward=v.score, done=True,
                                     metadata={"status": v.status, "detail": v.detail, "id": self.record["id"]})


if SKYRL_ENV not in registry:
    register(id=SKYRL_ENV, entry_point="racesl.integrations.skyrl:RacesEnv")
