"""A difficulty curriculum over composite tasks, independent of any trainer.

Per operator, the difficulty is a position on a *ladder* of rungs, each a composition size
and (optionally) an environment level. Rewards observed at the current rung decide whether
the operator moves up or down:

- ``mode = "band"`` (EvoEnv): keep the success rate inside ``target ± tolerance``; above the
  band the operator moves one rung up, below it one rung down. EvoEnv aims at 0.3.
- ``mode = "monotone"`` (RLVE): move one rung up once the success rate reaches ``threshold``
  (RLVE: 0.9); never move down.

A completion counts as a success when its reward is at least ``success`` (1.0 by default:
fully right). Only observations made at the operator's current rung count, and only once
``window`` of them have come in; after a move the count restarts. With ``spread = k`` tasks
are drawn uniformly from the current rung and the k below it (RLVE's sliding window), which
keeps easier tasks in the mix; those easier draws never decide a move.

The ladder climbs size first, level first, or alternately (``order``); every rung is at
least as hard as the one before on both axes. With ``levels = false`` (the default) the
level is not controlled: tasks sample it as ``racesc compile`` does.

Every decision is a pure function of the observations in the order given, so trainers on
several processes stay in step as long as each feeds the same gathered observations.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import ClassVar, Iterable

import attrs

from racesl.search.config import ConfigError, flag, number, one_of, unknown_keys, whole

MODES = ("band", "monotone")
ORDERS = ("size", "level", "interleave")


CurriculumError = ConfigError  # one error type for every config (the CLI prints it in one line)


@attrs.frozen
class CurriculumConfig:
    """Off unless asked for: `from_dict` of a [curriculum] section turns it on (a config
    with no curriculum must sample sizes uniformly, as `racesc compile` does)."""

    SECTION: ClassVar[str] = "curriculum"

    enabled: bool = attrs.field(default=False, validator=flag)
    mode: str = attrs.field(default="band", validator=one_of(*MODES))
    target: float = attrs.field(default=0.3, validator=number(0, 1))  # band mode: the success rate aimed at (EvoEnv)
    # band mode: the band is [target - tolerance, target + tolerance]
    tolerance: float = attrs.field(default=0.1, validator=number(0, 1))
    # monotone mode: success rate that raises the difficulty (RLVE)
    threshold: float = attrs.field(default=0.9, validator=number(0, 1))
    window: int = attrs.field(default=128, validator=whole(1))  # observations at the current rung before a decision
    success: float = attrs.field(default=1.0, validator=number(0, 1))  # a reward at least this counts as solved
    levels: bool = attrs.field(default=False, validator=flag)  # also move the environment level (0..max_level)
    # how the ladder climbs: "size", "level" or "interleave"
    order: str = attrs.field(default="interleave", validator=one_of(*ORDERS))
    spread: int = attrs.field(default=0, validator=whole(0))  # also draw from this many rungs below the current one
    start: int = attrs.field(default=0, validator=whole(0))  # the rung every operator starts on (clamped to the ladder)

    @property
    def band(self) -> tuple[float, float]:
        """(lower, upper): below lower move down, above upper move up."""
        if self.mode == "monotone":
            return (float("-inf"), self.threshold)
        return (self.target - self.tolerance, self.target + self.tolerance)

    @classmethod
    def from_dict(cls, data: dict) -> "CurriculumConfig":
        """From a [curriculum] table: a section given turns the curriculum on unless it
        says `enabled = false`."""
        unknown_keys("curriculum", data, [f.name for f in attrs.fields(cls)])
        return cls(**{"enabled": True, **data})


@attrs.frozen
class Rung:
    index: int
    size: int
    level: int | None  # None: the level is sampled as in compile (not controlled)


@attrs.frozen
class Move:
    """One decision: the operator's rung before and after (the same rung when it stays)."""

    operator: str
    old: Rung
    new: Rung
    rate: float
    n: int

    @property
    def direction(self) -> str:
        return "up" if self.new.index > self.old.index else "down" if self.new.index < self.old.index else "stay"

    def as_dict(self) -> dict:
        return {"operator": self.operator, "move": self.direction, "from_size": self.old.size,
                "to_size": self.new.size, "from_level": self.old.level, "to_level": self.new.level,
                "from_rung": self.old.index, "to_rung": self.new.index, "rate": round(self.rate, 4), "n": self.n}

    def __str__(self) -> str:
        lvl = "" if self.new.level is None else f", level {self.old.level}->{self.new.level}"
        if self.direction == "stay":
            return f"{self.operator}: stays at size {self.new.size}{lvl} (success {self.rate:.2f} over {self.n})"
        return (f"{self.operator}: {self.direction} to size {self.new.size}{lvl} "
                f"(size was {self.old.size}; success {self.rate:.2f} over {self.n})")


def ladder(lo: int, hi: int, max_level: int, levels: bool, order: str) -> list[Rung]:
    """The rungs of one operator, easiest first; each step raises one axis by one."""
    if lo > hi:
        raise CurriculumError(f"bad size range {lo}-{hi}")
    if not levels:
        return [Rung(k, s, None) for k, s in enumerate(range(lo, hi + 1))]
    size, level = lo, 0
    out = [(size, level)]
    turn_size = order != "level"
    while size < hi or level < max_level:
        can_size, can_level = size < hi, level < max_level
        if order == "size":
            step_size = can_size
        elif order == "level":
            step_size = not can_level
        else:
            step_size = (turn_size and can_size) or not can_level
            turn_size = not turn_size
        if step_size:
            size += 1
        else:
            level += 1
        out.append((size, level))
    return [Rung(k, s, lv) for k, (s, lv) in enumerate(out)]


@attrs.define
class _OpState:
    rungs: list[Rung]
    index: int
    n: int = 0
    solved: int = 0
    moves: int = 0


class Curriculum:
    """Per-operator difficulty. `draw` picks a rung for a new task; `observe` records the
    reward of a completion at the rung it was drawn from; `update` applies decisions."""

    def __init__(self, operators: Iterable[tuple[str, int, int]], max_level: int = 0,
                 config: CurriculumConfig | None = None):
        self.config = config or CurriculumConfig()
        self.max_level = max_level
        self.ops: dict[str, _OpState] = {}
        for name, lo, hi in operators:
            rungs = ladder(lo, hi, max_level, self.config.levels, self.config.order)
            self.ops[name] = _OpState(rungs, min(self.config.start, len(rungs) - 1))
        if not self.ops:
            raise CurriculumError("a curriculum needs at least one operator")
        self.history: list[Move] = []  # the moves so far
        self.decisions: list[Move] = []  # the last update's decisions, stays included

    def fit(self, operators: Iterable[tuple[str, int, int]]) -> None:
        """Rebuild the ladders for the sizes a task source can make (`operators`: its
        (name, lo, hi), e.g. a held-out split's train part, which stops below `size>=K`,
        racesl.search.holdout.Split.sizes): a ladder never reaches a size no task is made
        at, and an operator the source cannot make is dropped. An operator whose ladder is
        unchanged keeps its state; a changed one starts afresh. Call it before training."""
        fitted: dict[str, _OpState] = {}
        for name, lo, hi in operators:
            rungs = ladder(lo, hi, self.max_level, self.config.levels, self.config.order)
            old = self.ops.get(name)
            fitted[name] = old if old is not None and old.rungs == rungs else \
                _OpState(rungs, min(self.config.start, len(rungs) - 1))
        if not fitted:
            raise CurriculumError("a curriculum needs at least one operator")
        self.ops = fitted

    # ------------------------------------------------------------ reading

    def rung(self, op: str) -> Rung:
        st = self.ops[op]
        return st.rungs[st.index]

    def rung_at(self, op: str, index: int) -> Rung:
        rungs = self.ops[op].rungs
        return rungs[max(0, min(index, len(rungs) - 1))]

    def draw(self, op: str, rng: random.Random) -> Rung:
        """The rung a new task of this operator is built at."""
        st = self.ops[op]
        if self.config.spread:
            lo = max(0, st.index - self.config.spread)
            return st.rungs[rng.randint(lo, st.index)]
        return st.rungs[st.index]

    def rate(self, op: str) -> float | None:
        st = self.ops[op]
        return st.solved / st.n if st.n else None

    # ------------------------------------------------------------ learning

    def observe(self, op: str, rung: int, reward: float) -> bool:
        """Record one completion's reward. Returns whether it counts toward a decision
        (only rewards at the operator's current rung do)."""
        st = self.ops.get(op)
        if st is None or rung != st.index:
            return False
        st.n += 1
        if reward is not None and not math.isnan(reward) and reward >= self.config.success - 1e-9:
            st.solved += 1
        return True

    def observe_many(self, items: Iterable[tuple[str, int, float]]) -> int:
        return sum(self.observe(op, rung, r) for op, rung, r in items)

    def update(self) -> list[Move]:
        """Move each operator whose window is full and whose success rate left the band.
        Returns the moves; `decisions` also holds the windows that left the rung as it was."""
        lower, upper = self.config.band
        moves: list[Move] = []
        self.decisions = []
        for op in sorted(self.ops):
            st = self.ops[op]
            if st.n < self.config.window:
                continue
            rate = st.solved / st.n
            step = 0
            if self.config.mode == "monotone":
                if rate >= upper:
                    step = 1
            elif rate > upper:
                step = 1
            elif rate < lower:
                step = -1
            new = max(0, min(st.index + step, len(st.rungs) - 1))
            decision = Move(op, st.rungs[st.index], st.rungs[new], rate, st.n)
            self.decisions.append(decision)
            if new != st.index:
                moves.append(decision)
                st.index = new
                st.moves += 1
            # a full window is spent either way: the next decision uses fresh evidence
            st.n = st.solved = 0
        self.history.extend(moves)
        return moves

    # ------------------------------------------------------------ state

    def state_dict(self) -> dict:
        return {op: {"rung": st.index, "size": st.rungs[st.index].size, "level": st.rungs[st.index].level,
                     "n": st.n, "solved": st.solved, "moves": st.moves}
                for op, st in sorted(self.ops.items())}

    def load_state_dict(self, state: dict) -> None:
        for op, s in state.items():
            st = self.ops.get(op)
            if st is None:
                continue
            st.index = max(0, min(int(s["rung"]), len(st.rungs) - 1))
            st.n, st.solved, st.moves = int(s.get("n", 0)), int(s.get("solved", 0)), int(s.get("moves", 0))


def append_decisions(path: str | Path, step: int, decisions: Iterable[Move]) -> None:
    """Add one JSON line per decision to `path` (curriculum.jsonl), flushed line by line,
    so a run cut off at any point leaves whole lines."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("a", encoding="utf-8") as f:
        for d in decisions:
            f.write(json.dumps({"step": step, **d.as_dict()}) + "\n")
            f.flush()
