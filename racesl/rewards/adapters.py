"""Reward adapters for RL frameworks. Each wraps `racesl.rewards.verdict`: the reward is its
score (exactly `racesl.rewards.score`), and the statuses are counted so a run shows why
completions score 0 (no answer block, an unparsable answer, a missing library, ...).

TRL (GRPOTrainer `reward_funcs=[races_reward]`): dataset rows carry the record's columns,
which TRL passes as keyword lists; it gets a list of floats, and the statuses are counted
in `STATUS_COUNTS` (read with `status_counts()`) and logged through TRL's `log_metric`
when TRL passes it (as `races/status/<status>`, the share of the batch), with a
`races_status` column in TRL's completions table. verl
(`custom_reward_function.path` → `compute_score`): `ground_truth` is the answer and
`extra_info["record"]` the whole record as JSON; it gets `{"score", "status", "detail",
"status_<status>"...}`. OpenRLHF (`--reward.remote_url path/to/this/file.py` →
`reward_func`): labels are the records as JSON text; `extra_logs` holds per-sample 0/1
tensors `races/status/<status>`, whose mean OpenRLHF logs (the share of each status).

Given the data file they score (JSONL, Parquet, verl's Parquet, a `--format hf` folder), the
adapters read the library sidecar beside it (racesl.rewards.libraries.load_beside), so a user
library needs no RACESL_LIBRARY_PATH: `races_reward_for(DATA)` for TRL, `compute_score_for(DATA)`
or `compute_score(..., data=DATA)` (verl's `custom_reward_function.reward_kwargs`) for verl,
`reward_func_for(DATA)` for OpenRLHF's reward file. A record whose library cannot be found
scores 0 with status `library_missing`, and is said once per library on the `racesl.rewards`
logger with how to register it.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from typing import Any

from racesl.rewards.libraries import bind_data
from racesl.rewards.score import STATUSES, Verdict, verdict

RECORD_FIELDS = ("id", "operator", "size", "chain", "settings", "input", "trace", "answer", "library", "extra")
NO_RECORD = Verdict(0.0, "error", "no record for this completion")

STATUS_COUNTS: Counter = Counter()  # statuses of every completion `races_reward` scored in this process
_COUNTS_LOCK = threading.Lock()


def status_counts(reset: bool = False) -> dict[str, int]:
    """How many completions `races_reward` judged with each status (every status present,
    zeros included) since the start or the last reset; `reset=True` starts over, so a
    callback can log the counts of each logging step."""
    with _COUNTS_LOCK:
        out = {s: STATUS_COUNTS.get(s, 0) for s in STATUSES}
        if reset:
            STATUS_COUNTS.clear()
    return out


def count_statuses(verdicts) -> dict[str, int]:
    """{status: count} over verdicts, every status present."""
    c = Counter(v.status for v in verdicts)
    return {s: c.get(s, 0) for s in STATUSES}


def completion_text(c: Any) -> str:
    """TRL passes plain strings, or chat messages [{"role", "content"}] for conversational data."""
    if isinstance(c, str):
        return c
    if isinstance(c, list) and c and isinstance(c[-1], dict):
        content = c[-1].get("content", "")
        return content if isinstance(content, str) else ""  # (str() of a huge int raises)
    return ""


def record_from(value: Any) -> dict | None:
    """A record given as a dict or as JSON text (None for anything else)."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            r = json.loads(value)
        except (ValueError, RecursionError):  # (RecursionError: nested past the recursion limit)
            return None
        return r if isinstance(r, dict) else None
    return None


def races_reward(prompts=None, completions=None, log_metric=None, **kwargs) -> list[float]:
    """A TRL reward function. Dataset columns arrive as lists in kwargs: either a `record`
    column (dict or JSON text) or the record's own columns (operator, answer, trace, ...).
    Returns the scores; counts the statuses (see `status_counts`)."""
    completions = completions or []
    verdicts: list[Verdict] = []
    for k, c in enumerate(completions):
        rec = None
        try:
            if "record" in kwargs:
                rec = record_from(kwargs["record"][k])
            else:
                rec = {f: kwargs[f][k] for f in RECORD_FIELDS if f in kwargs}
                for f in ("settings", "extra"):
                    if isinstance(rec.get(f), str):
                        rec[f] = json.loads(rec[f])
        except (KeyError, IndexError, TypeError, ValueError, RecursionError):
            rec = None  # a column shorter than the completions, or a cell that is no record
        verdicts.append(verdict(rec, completion_text(c)) if rec else NO_RECORD)
    counts = log_statuses(verdicts, log_metric, kwargs.get("log_extra"))
    with _COUNTS_LOCK:
        STATUS_COUNTS.update({s: n for s, n in counts.items() if n})
    return [v.score for v in verdicts]


def races_reward_for(*data):
    """`races_reward`, once the libraries beside `data` (task files or dataset folders) are
    registered: pass it to TRL as `reward_funcs=[races_reward_for("tasks.jsonl")]`.
    UserFileError (one line) here, before training, for a sidecar that cannot be used."""
    bind_data(list(data))
    return races_reward


def compute_score_for(*data):
    """verl's `compute_score`, once the libraries beside `data` are registered (for a reward
    file: `compute_score = compute_score_for("data/races.parquet")`)."""
    bind_data(list(data))
    return compute_score


def reward_func_for(*data):
    """OpenRLHF's `reward_func`, once the libraries beside `data` are registered (for the
    file given as `--reward.remote_url`: `reward_func = reward_func_for("data/races.jsonl")`)."""
    bind_data(list(data))
    return reward_func


def log_statuses(verdicts: list[Verdict], log_metric=None, log_extra=None) -> dict[str, int]:
    """Count the statuses of one TRL batch and log them through TRL's hooks when it passes
    them: the share of each as `races/status/<status>`, and a `races_status` column of its
    completions table. Returns the counts."""
    counts = count_statuses(verdicts)
    if callable(log_metric) and verdicts:
        for s, n in counts.items():
            log_metric(f"races/status/{s}", n / len(verdicts))
    if callable(log_extra) and verdicts:
        log_extra("races_status", [v.status for v in verdicts])
    return counts


def _status_fields(v: Verdict) -> dict:
    return {"score": v.score, "status": v.status, "detail": v.detail,
            **{f"status_{s}": 1.0 if v.status == s else 0.0 for s in STATUSES}}


def compute_score(data_source=None, solution_str=None, ground_truth=None, extra_info=None, data=None, **_) -> dict:
    """verl's custom reward entry point: {"score": the reward, "status", "detail", and a 0/1
    "status_<status>" per status (numbers, so verl's validation metrics average them into
    the share of each status)}. Every call returns the same keys, as verl requires. Without
    a record in `extra_info` there is nothing to judge by: score 0, status `error`. `data`
    (a path or a list: verl's `custom_reward_function.reward_kwargs.data`): the data files
    whose sidecars hold the libraries (read on the first call; a bad one raises, loudly)."""
    bind_data(data)
    rec = None
    if isinstance(extra_info, dict):
        rec = record_from(extra_info.get("record"))
    if rec is None:
        return _status_fields(Verdict(0.0, "error", "no record in extra_info"))
    return _status_fields(verdict(rec, solution_str))


def reward_func(queries, prompts, labels, data=None, **_) -> dict:
    """OpenRLHF's remote reward function: `labels` hold the records (JSON text); `data`: as
    `compute_score`'s (or use `reward_func_for`)."""
    import torch  # OpenRLHF always has torch; racesl's core does not import it

    bind_data(data)
    verdicts = []
    for k, (q, label) in enumerate(zip(queries, labels)):
        rec = record_from(label)
        p = prompts[k] if prompts is not None and k < len(prompts) else ""
        # queries are prompt + response; the prompt's own <answer> example must not count
        response = q[len(p):] if isinstance(q, str) and isinstance(p, str) and p and q.startswith(p) else q
        verdicts.append(verdict(rec, response) if rec else NO_RECORD)
    t = torch.tensor([v.score for v in verdicts], dtype=torch.float32)
    logs = {"races_reward": t}
    for s in STATUSES:  # per sample, as OpenRLHF splits extra_logs by sample: the mean is the share
        logs[f"races/status/{s}"] = torch.tensor([1.0 if v.status == s else 0.0 for v in verdicts],
                                                 dtype=torch.float32)
    return {"rewards": t, "scores": t, "extra_logs": logs}
