"""The reward for GRPO: `racesl.rewards.verdict`'s score as a TRL reward function, logging
the mean reward by operator and by operator × size and the share of each verdict status
(`races/status/<status>`: why completions score 0), and handing each (operator, rung,
reward) to the curriculum glue. Needs no torch."""

from __future__ import annotations

import threading
import time
from collections import Counter

from racesl.rewards.adapters import completion_text as _completion_text
from racesl.rewards.adapters import NO_RECORD, log_statuses, record_from
from racesl.rewards.score import STATUSES, verdict


class Observations:
    """(operator, rung, reward) triples waiting for the curriculum callback (this rank's)."""

    def __init__(self):
        self._items: list[tuple[str, int, float]] = []
        self._lock = threading.Lock()

    def add(self, items) -> None:
        with self._lock:
            self._items.extend(items)

    def drain(self) -> list[tuple[str, int, float]]:
        with self._lock:
            out, self._items = self._items, []
        return out


class RacesReward:
    """A TRL reward function (GRPOTrainer calls it with the dataset columns as lists)."""

    __name__ = "races"

    def __init__(self, observations: Observations | None = None, by_size: bool = True):
        self.observations = observations
        self.by_size = by_size
        self.seconds = 0.0  # time spent scoring (for the step-time breakdown)
        self.calls = 0
        self.counts: Counter = Counter({s: 0 for s in STATUSES})  # verdict statuses of every completion so far

    def __call__(self, prompts=None, completions=None, record=None, operator=None, size=None, rung=None,
                 log_metric=None, log_extra=None, **_) -> list[float]:
        t0 = time.perf_counter()
        completions = completions or []
        verdicts = []
        recs = []
        cache: dict[int, dict | None] = {}
        for k, c in enumerate(completions):
            raw = record[k] if record is not None else None
            key = id(raw)
            if key not in cache:  # the same record repeats num_generations times
                cache[key] = record_from(raw)
            rec = cache[key]
            recs.append(rec)
            verdicts.append(verdict(rec, _completion_text(c)) if rec else NO_RECORD)
        out = [v.score for v in verdicts]
        self.counts.update(log_statuses(verdicts, log_metric, log_extra))
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        ops = operator
        if not ops and record is not None:
            ops = [str(rec.get("operator", "?")) if rec else "?" for rec in recs]
        if log_metric is not None and ops:
            for k, r in enumerate(out):
                op = ops[k]
                log_metric(f"races/{op}/reward", r)
                log_metric(f"races/{op}/solved", 1.0 if r >= 1.0 else 0.0)
                if size is not None:
                    log_metric(f"races/{op}/size", float(size[k]))
                if self.by_size and size is not None:
                    log_metric(f"races/{op}/size_{size[k]}/reward", r)
        if self.observations is not None and ops and rung is not None:
            self.observations.add((ops[k], int(rung[k]), out[k]) for k in range(len(out)) if int(rung[k]) >= 0)
        return out
