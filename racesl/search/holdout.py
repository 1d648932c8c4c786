"""Held-out splits (`--holdout SPEC --part train|test`): does a policy trained on some
compositions solve compositions it never saw?

SPEC holds any of, comma-separated:

- `envs=F`: a seeded share F of the environments appears only in test tasks;
- `pairs=F`: a seeded share F of the composable pairs A → B (graph edges) appears only in
  test compositions (compositional generalisation: every environment is trained, some
  of their combinations are not);
- `size>=K`: compositions of size K or more appear only in test tasks.

What is held out is a function of the library, SPEC and the seed only, so a train and a test
compile with the same SPEC and seed agree on it and their parts are complementary: a train
task contains nothing held out, a test task contains something held out. Both sidecars
record the split (`Split.to_json`), and `racesc split check TRAIN TEST` re-verifies a pair
of files from their records alone.

What a task "contains" is everything its prompt shows: its chain, sort/select candidates
(distractors included) and both arms of a branch; its pairs are the compositions it asks
for (consecutive steps of a chain, of each branch arm, a loop's step with itself).
"""

from __future__ import annotations

from typing import Iterable

import attrs

from racesl.sample.seeding import derive_seed
from racesl.search.config import ConfigError, HoldoutSpec

PARTS = ("train", "test")
NO_PAIRS = ("parallel", "individual")  # operators whose tasks compose nothing


def _share(items: list, share: float, seed: int, kind: str) -> list:
    """round(share × len) of `items` (at least one), those with the smallest seeded hash:
    the choice of an item does not depend on which other items exist."""
    if not items:
        return []
    k = max(1, round(share * len(items)))
    ranked = sorted(items, key=lambda it: (derive_seed(seed, "holdout", kind, *_key(it)), _key(it)))
    return sorted(ranked[:k])


def _key(item) -> tuple:
    return tuple(item) if isinstance(item, tuple) else (item,)


@attrs.frozen
class Split:
    """What one SPEC and seed hold out, and which part this compile makes."""

    spec: HoldoutSpec
    part: str
    seed: int
    envs: frozenset = frozenset()  # held-out environments (qualnames)
    pairs: frozenset = frozenset()  # held-out (A, B) compositions

    @classmethod
    def choose(cls, spec: HoldoutSpec, part: str, seed: int, names: Iterable[str],
               edges: Iterable[tuple[str, str]]) -> Split:
        """The split over the environments `names` a compile may use and the composable
        pairs `edges` among them. Held-out pairs are drawn among pairs of environments that
        stay in training, so a pair is held out for itself, not for an environment in it."""
        if part not in PARTS:
            raise ConfigError(f"[compile] part must be \"train\" or \"test\", not {part!r}", "compile", "part")
        names = sorted(set(names))
        envs = _share(names, spec.envs, seed, "envs") if spec.envs is not None else []
        pairs = []
        if spec.pairs is not None:
            held = set(envs)
            pairs = _share(sorted({(a, b) for a, b in edges if a not in held and b not in held}),
                           spec.pairs, seed, "pairs")
        return cls(spec, part, seed, frozenset(envs), frozenset(pairs))

    # ------------------------------------------------------------ what a task contains

    def held(self, record) -> list[str]:
        """What of the held-out part the task (a record dict or a Task) contains, in words:
        empty for a task a train part may hold."""
        out = [f"held-out environment {q}" for q in sorted(shown_envs(record) & self.envs)]
        out += [f"held-out pair {a} → {b}" for a, b in sorted(composed_pairs(record) & self.pairs)]
        size = _get(record, "size")
        if self.spec.min_size is not None and size >= self.spec.min_size:
            out.append(f"size {size} (size>={self.spec.min_size} is held out)")
        return out

    def admits(self, record) -> bool:
        """Whether this part may hold the task: train nothing held out, test something."""
        return bool(self.held(record)) == (self.part == "test")

    def sizes(self, name: str, lo: int, hi: int) -> tuple[int, int] | None:
        """An operator's size range in this part, or None when it can make no task of it. A
        train part stops below K. In a test part, an operator whose tasks can show no held-out
        environment or pair (parallel and individual tasks compose nothing) is held out by
        size alone, so it starts at K, or makes nothing when no size is held out."""
        k = self.spec.min_size
        if self.part == "train":
            hi = hi if k is None else min(hi, k - 1)
        elif not (self.spec.envs is not None or self.spec.pairs is not None and name not in NO_PAIRS):
            if k is None:
                return None
            lo = max(lo, k)
        return (lo, hi) if lo <= hi else None

    # ------------------------------------------------------------ records

    def to_json(self) -> dict:
        return {"spec": str(self.spec), "part": self.part, "seed": self.seed,
                "envs": sorted(self.envs), "pairs": [list(p) for p in sorted(self.pairs)],
                **({"min_size": self.spec.min_size} if self.spec.min_size is not None else {})}

    @classmethod
    def from_json(cls, data: dict) -> Split:
        try:
            return cls(HoldoutSpec.parse(data["spec"]), data["part"], int(data["seed"]),
                       frozenset(data.get("envs", ())), frozenset(tuple(p) for p in data.get("pairs", ())))
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"the recorded split is not readable ({type(e).__name__}: {e})") from None


def _get(record, name: str):
    return record[name] if isinstance(record, dict) else getattr(record, name)


def _arms(extra: dict) -> tuple[list, list]:
    return list(extra.get("then") or ()), list(extra.get("else") or ())


def shown_envs(record) -> set[str]:
    """Every environment the task's prompt shows."""
    extra = _get(record, "extra") or {}
    out = set(_get(record, "chain"))
    for c in extra.get("candidates") or ():
        out.add(c["env"] if isinstance(c, dict) else c)
    cond = extra.get("condition")
    if isinstance(cond, dict) and "env" in cond:
        out.add(cond["env"])
    for arm in _arms(extra):
        out.update(arm)
    return out


def composed_pairs(record) -> set[tuple[str, str]]:
    """The compositions A → B the task asks for."""
    op, chain = _get(record, "operator"), list(_get(record, "chain"))
    extra = _get(record, "extra") or {}
    if op in NO_PAIRS:
        return set()
    if op == "loop":
        return {(chain[0], chain[0])} if chain and extra.get("times", _get(record, "size")) >= 2 else set()
    if op == "branch":
        return {p for arm in _arms(extra) for p in zip(arm, arm[1:])}
    return set(zip(chain, chain[1:]))


def task_key(record) -> tuple:
    """What makes two records the same task (racesl.records.Task.key, on a record)."""
    return (_get(record, "operator"), tuple(_get(record, "chain")), _get(record, "input"), _get(record, "prompt"))


def verify(train: Split, test: Split, train_rows: list, test_rows: list, names=("TRAIN", "TEST")) -> list[str]:
    """The problems of a train/test pair, each a line naming the file and row: splits that
    disagree, a train task with something held out, a test task with nothing held out, a
    task in both. Empty when the pair is a split."""
    a, b = names
    problems = []
    if (train.part, test.part) != ("train", "test"):
        problems.append(f"{a} is the {train.part} part and {b} the {test.part} part: give the train part first")
    for what in ("spec", "seed", "envs", "pairs"):
        x, y = getattr(train, what), getattr(test, what)
        if x != y:
            shown = (lambda v: str(v)) if what in ("spec", "seed") else (lambda v: f"{len(v)} held out")
            problems.append(f"{a} and {b} hold out different {what} ({shown(x)} against {shown(y)}): "
                            "compile both with the same --holdout and --seed")
    if problems:
        return problems
    for n, r in enumerate(train_rows, 1):
        held = train.held(r)
        if held:
            problems.append(f"{a}:{n}: task {r.get('id', '?')} shows {held[0]}")
    for n, r in enumerate(test_rows, 1):
        if not test.held(r):
            problems.append(f"{b}:{n}: task {r.get('id', '?')} holds nothing held out")
    seen = {task_key(r): n for n, r in enumerate(train_rows, 1)}
    for n, r in enumerate(test_rows, 1):
        if task_key(r) in seen:
            problems.append(f"{b}:{n}: the same task as {a}:{seen[task_key(r)]}")
    return problems
