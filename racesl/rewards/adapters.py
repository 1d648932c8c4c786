"""Reward adapters for RL frameworks. Each wraps `racesl.rewards.score`.

TRL (GRPOTrainer `reward_funcs=[races_reward]`): dataset rows carry the record's columns,
which TRL passes as keyword lists. verl (`custom_reward_function.path` → `compute_score`):
`ground_truth` is the answer and `extra_info["record"]` the whole record as JSON.
OpenRLHF (`--reward.remote_url path/to/this/file.py` → `reward_func`): labels are the
records as JSON text.
"""

from __future__ import annotations

import json
from typing import Any

from racesl.rewards.score import score

RECORD_FIELDS = ("id", "operator", "size", "chain", "settings", "input", "trace", "answer", "library", "extra")


def completion_text(c: Any) -> str:
    """TRL passes plain strings, or chat messages [{"role", "content"}] for conversational data."""
    if isinstance(c, str):
        return c
    if isinstance(c, list) and c and isinstance(c[-1], dict):
        return str(c[-1].get("content", ""))
    return ""


def record_from(value: Any) -> dict | None:
    """A record given as a dict or as JSON text (None for anything else)."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            r = json.loads(value)
        except ValueError:
            return None
        return r if isinstance(r, dict) else None
    return None


def races_reward(prompts=None, completions=None, **kwargs) -> list[float]:
    """A TRL reward function. Dataset columns arrive as lists in kwargs: either a `record`
    column (dict or JSON text) or the record's own columns (operator, answer, trace, ...)."""
    completions = completions or []
    out: list[float] = []
    for k, c in enumerate(completions):
        rec = None
        if "record" in kwargs:
            rec = record_from(kwargs["record"][k])
        else:
            try:
                rec = {f: kwargs[f][k] for f in RECORD_FIELDS if f in kwargs}
                for f in ("settings", "extra"):
                    if isinstance(rec.get(f), str):
                        rec[f] = json.loads(rec[f])
            except (KeyError, IndexError, TypeError, ValueError):
                rec = None
        out.append(score(rec, completion_text(c)) if rec else 0.0)
    return out


def compute_score(data_source=None, solution_str=None, ground_truth=None, extra_info=None, **_) -> float:
    """verl's custom reward entry point."""
    rec = None
    if isinstance(extra_info, dict):
        rec = record_from(extra_info.get("record"))
    if rec is None:
        # without the record we can still check exact answers of value-answer operators
        rec = {"operator": "loop", "answer": ground_truth or "", "trace": [ground_truth or ""]}
    return score(rec, solution_str)


def reward_func(queries, prompts, labels, **_) -> dict:
    """OpenRLHF's remote reward function: `labels` hold the records (JSON text)."""
    import torch  # OpenRLHF always has torch; racesl's core does not import it

    rewards = []
    for k, (q, label) in enumerate(zip(queries, labels)):
        rec = record_from(label)
        p = prompts[k] if prompts is not None and k < len(prompts) else ""
        # queries are prompt + response; the prompt's own <answer> example must not count
        response = q[len(p):] if isinstance(q, str) and p and q.startswith(p) else q
        rewards.append(score(rec, response) if rec else 0.0)
    t = torch.tensor(rewards, dtype=torch.float32)
    return {"rewards": t, "scores": t, "extra_logs": {"races_reward": t}}
