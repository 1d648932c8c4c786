"""Trainer callbacks: the curriculum glue and the stream's bookkeeping (imports transformers).

The reward function leaves (operator, rung, reward) triples on each rank; at the end of
every optimizer step the callback gathers them from all ranks (in rank order, the same list
everywhere), feeds them to the curriculum and applies its decisions. Every rank therefore
holds the same curriculum, and since each rank streams the same tasks from the same seed
they stay in step. A move made at step t reaches prompts from the next generation batch
the dataloader fetches (one or two steps later: accelerate reads one batch ahead).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from transformers import TrainerCallback

from racesl.curriculum import Curriculum, append_decisions
from racesl.train.rewards import Observations


def _gather(items: list) -> list:
    """All ranks' items, in rank order (this rank's alone when not distributed)."""
    try:
        from accelerate import PartialState
        from accelerate.utils import gather_object
    except ImportError:  # pragma: no cover - accelerate comes with transformers' Trainer
        return items
    if PartialState().num_processes <= 1:
        return items
    return gather_object(items)


def _record(state, logs: dict | None, extra: dict) -> None:
    """Add values to this log entry and to the trainer state's history (trainer_state.json).

    Loggers registered before this callback (the console, report_to integrations) have
    already run by now: what must reach them is logged through TRL's `log_metric` by the
    reward function instead (reward by operator and size, the size drawn)."""
    if logs is not None:
        logs.update(extra)
    if state.log_history and state.log_history[-1].get("step") == state.global_step:
        state.log_history[-1].update(extra)


class CurriculumCallback(TrainerCallback):
    def __init__(self, curriculum: Curriculum, observations: Observations, log_path: str | Path | None = None,
                 echo=None):
        self.curriculum = curriculum
        self.observations = observations
        self.log_path = Path(log_path) if log_path else None
        self.echo = echo  # echo(str) on the main process for each move
        self.observed = 0

    def on_step_end(self, args, state, control, **kwargs):
        gathered = _gather(self.observations.drain())
        self.observed += self.curriculum.observe_many(gathered)
        moves = self.curriculum.update()
        if state.is_world_process_zero:
            for m in moves:
                if self.echo:
                    self.echo(f"curriculum, step {state.global_step}: {m}")
            if self.log_path is not None and self.curriculum.decisions:
                append_decisions(self.log_path, state.global_step, self.curriculum.decisions)
        return control

    def on_log(self, args, state, control, logs=None, **kwargs):
        extra = {}
        for op, st in self.curriculum.state_dict().items():
            extra[f"curriculum/{op}/size"] = st["size"]
            if st["level"] is not None:
                extra[f"curriculum/{op}/level"] = st["level"]
        _record(state, logs, extra)
        return control

    def on_save(self, args, state, control, **kwargs):
        if state.is_world_process_zero:
            ckpt = Path(args.output_dir) / f"checkpoint-{state.global_step}"
            if ckpt.is_dir():
                (ckpt / "curriculum.json").write_text(json.dumps(self.curriculum.state_dict(), indent=1), "utf-8")
        return control


class StreamStatsCallback(TrainerCallback):
    """Logs how many tasks the stream built, dropped and how long that took, and the time
    spent scoring (the share of a step that is racesl's, not the model's)."""

    def __init__(self, source, reward):
        self.source = source
        self.reward = reward

    def on_log(self, args, state, control, logs=None, **kwargs):
        extra = {"races/reward_seconds": round(self.reward.seconds, 3)}
        if self.source is not None:
            s = self.source.stats
            extra.update({"races/stream/tasks": s.built, "races/stream/too_long": s.too_long,
                          "races/stream/seconds": round(s.seconds, 3)})
        _record(state, logs, extra)
        return control


# what rewards.jsonl keeps of a step's log entry (TRL 1.16's names → ours)
REWARD_LOG_KEYS = {"reward": "reward", "reward_std": "reward_std", "frac_reward_zero_std": "frac_reward_zero_std",
                   "completions/mean_length": "completion_length", "completions/clipped_ratio": "clipped_ratio",
                   "loss": "loss", "learning_rate": "learning_rate", "entropy": "entropy"}


class RewardLogCallback(TrainerCallback):
    """Writes `rewards.jsonl` in the output folder: one JSON line per logged step (step, wall
    seconds since training began, mean reward and its standard deviation within groups, the
    share of groups with no reward variance, mean completion length, loss, learning rate, and
    the mean reward by operator). A learning curve that survives a crash: each line is written
    and flushed when the step is logged, not at the end. A resumed run appends."""

    def __init__(self, path: str | Path, resume: bool = False):
        self.path = Path(path)
        self.resume = resume
        self.t0: float | None = None

    def on_train_begin(self, args, state, control, **kwargs):
        self.t0 = time.perf_counter()
        if state.is_world_process_zero:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a" if self.resume else "w", encoding="utf-8"):
                pass
        return control

    def on_log(self, args, state, control, logs=None, **kwargs):
        if not state.is_world_process_zero or not logs or "reward" not in logs:
            return control  # (the end-of-training summary has no reward: not a step)
        line = reward_line(state.global_step, time.perf_counter() - (self.t0 or time.perf_counter()), logs)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")
        return control


def reward_line(step: int, seconds: float, logs: dict) -> dict:
    """One line of rewards.jsonl from a trainer log entry."""
    line: dict = {"step": int(step), "seconds": round(float(seconds), 3)}
    for key, name in REWARD_LOG_KEYS.items():
        v = logs.get(key)
        if isinstance(v, (int, float)):
            line[name] = float(v)
    ops = {k.split("/")[1]: float(v) for k, v in logs.items()
           if k.startswith("races/") and k.count("/") == 2 and k.endswith("/reward") and isinstance(v, (int, float))}
    if ops:
        line["by_operator"] = dict(sorted(ops.items()))
    return line
