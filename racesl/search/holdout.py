"""Held-out splits (`--holdout SPEC --part train|test`): does a policy trained on some
compositions solve compositions it never saw?

SPEC holds any of, comma-separated:

- `envs=F`: a seeded share F of the environments appears only in test tasks;
- `pairs=F`: a seeded share F of the composable pairs A → B (graph edges) appears only in
  test compositions (compositional generalisation: every environment is trained, some
  of their combinations are not);
- `size>=K`: compositions of size K or more appear only in test tasks.

What is held out is a function of the library, SPEC and the seed only (`Split.of_library`):
it is drawn from every environment of the library and every pair its signatures allow,
before `envs`, `exclude`, `[weights]`, the solver or pruning narrow what one compile uses, so
a train and a test compile, the training stream and its curriculum agree on it whatever
else each is configured with, and their parts are complementary: a train task contains
nothing held out, a test task contains something held out. Both sidecars record the split
(`Split.to_json`); `racesc split check TRAIN TEST` re-verifies a pair of files from their
records alone, and the training stream refuses a recorded split that differs from its own
(`Split.differences`). `recorded` reads one back from a task file's sidecar, schema-checked.

What a task "contains" is everything its prompt shows: its chain, sort/select candidates
(distractors included) and both arms of a branch; its pairs are the compositions it asks
for (consecutive steps of a chain, of each branch arm, a loop's step with itself).
"""

from __future__ import annotations

import os
from typing import Iterable

import attrs

from racesl.output import sidecar_places
from racesl.sample.seeding import derive_seed
from racesl.search.config import ConfigError, HoldoutSpec
from racesl.userfiles import UserFileError, describe, expect, load_json

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

    @classmethod
    def of_library(cls, spec: HoldoutSpec, part: str, seed: int, envs: Iterable) -> Split:
        """The split of a library (`envs`: all its environment signatures): drawn over every
        environment and every composable pair of the signature graph without a solver, which
        depends on the signatures alone. What one compile uses (`envs`, `exclude`,
        `[weights]`, pruning, the solver's verdicts) never moves it, so every producer of one
        library, SPEC and seed holds out the same environments and pairs."""
        from racesl.graph.signature import SignatureGraph

        graph = SignatureGraph(envs)
        names = sorted(graph.envs)
        edges = [(a, b) for a in names for b, _ in graph.successors(a)]
        return cls.choose(spec, part, seed, names, edges)

    def differences(self, other: Split) -> list[str]:
        """What `other` holds out differently (its part aside), one phrase each; empty when
        the two hold out the same."""
        out = [f"different {what} ({getattr(self, what)} against {getattr(other, what)})"
               for what in ("spec", "seed") if getattr(self, what) != getattr(other, what)]
        for what in ("envs", "pairs"):
            x, y = getattr(self, what), getattr(other, what)
            if x != y:
                out.append(f"different {what} ({len(x)} against {len(y)} held out, {len(x ^ y)} in one only)")
        return out

    # ------------------------------------------------------------ what a task contains

    def held(self, record) -> list[str]:
        """What of the held-out part the task (a record dict or a Task) contains, in words:
        empty for a task a train part may hold."""
        out = [f"held-out environment {q}" for q in sorted(shown_envs(record) & self.envs)]
        out += [f"held-out pair {a} → {b}" for a, b in sorted(composed_pairs(record) & self.pairs)]
        size = _size(record)
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
    def from_json(cls, data, where: str = "the recorded split") -> Split:
        """The split `to_json` wrote, every field checked: UserFileError for anything else,
        one line naming `where` and the field (`WHERE: "split.seed" must be an integer, not
        a number`)."""
        expect(data, dict, where=where, field="split")

        def field(name, kinds, want=None):
            if name not in data:
                raise UserFileError(f'{where}: the recorded split has no "{name}"')
            return expect(data[name], kinds, where=where, field=f"split.{name}", want=want)

        try:
            spec = HoldoutSpec.parse(field("spec", str))
        except ConfigError as e:
            raise UserFileError(f"{where}: split.spec: {e.message.removeprefix('[compile] ')}") from None
        part = field("part", str)
        if part not in PARTS:
            raise UserFileError(f'{where}: "split.part" must be "train" or "test", not {part[:40]!r}')
        seed = field("seed", int)
        envs = expect(data.get("envs", []), list, where=where, field="split.envs")
        pairs = expect(data.get("pairs", []), list, where=where, field="split.pairs")
        for q in envs:
            expect(q, str, where=where, field="split.envs[]", want="a list of environment names")
        for p in pairs:
            if not (isinstance(p, list) and len(p) == 2 and all(isinstance(q, str) for q in p)):
                raise UserFileError(f'{where}: "split.pairs" must be a list of [A, B] name pairs, '
                                    f"not one holding {describe(p)}")
        if data.get("min_size", spec.min_size) != spec.min_size:
            raise UserFileError(f'{where}: "split.min_size" disagrees with the spec {spec}')
        return cls(spec, part, seed, frozenset(envs), frozenset(tuple(p) for p in pairs))


class RecordShapeError(ValueError):
    """A record whose fields a split reads have the wrong shape (a user's file): the message
    says which field and what it must be."""


def _get(record, name: str):
    if isinstance(record, dict):
        if name not in record:
            raise RecordShapeError(f'the record has no "{name}"')
        return record[name]
    return getattr(record, name)


def _names(value, field: str) -> list[str]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(q, str) for q in value):
        raise RecordShapeError(f'the record\'s "{field}" must be a list of environment names, not {describe(value)}'
                               if not isinstance(value, (list, tuple)) else
                               f'the record\'s "{field}" must hold environment names only')
    return list(value)


def _extra(record) -> dict:
    extra = (record.get("extra") if isinstance(record, dict) else record.extra) or {}
    if not isinstance(extra, dict):
        raise RecordShapeError(f'the record\'s "extra" must be an object, not {describe(extra)}')
    return extra


def _arms(extra: dict) -> tuple[list, list]:
    return _names(extra.get("then") or [], "extra.then"), _names(extra.get("else") or [], "extra.else")


def _size(record) -> int:
    size = _get(record, "size")
    if not isinstance(size, int) or isinstance(size, bool):
        raise RecordShapeError(f'the record\'s "size" must be a whole number, not {describe(size)}')
    return size


def shown_envs(record) -> set[str]:
    """Every environment the task's prompt shows (RecordShapeError for a record whose fields
    cannot say)."""
    extra = _extra(record)
    out = set(_names(_get(record, "chain"), "chain"))
    cands = extra.get("candidates") or []
    if not isinstance(cands, list):
        raise RecordShapeError(f'the record\'s "extra.candidates" must be a list, not {describe(cands)}')
    for c in cands:
        name = c.get("env") if isinstance(c, dict) else c
        if not isinstance(name, str):
            raise RecordShapeError('the record\'s "extra.candidates" must be environment names or {"env": NAME}')
        out.add(name)
    cond = extra.get("condition")
    if isinstance(cond, dict) and "env" in cond:
        out.update(_names([cond["env"]], "extra.condition.env"))
    for arm in _arms(extra):
        out.update(arm)
    return out


def composed_pairs(record) -> set[tuple[str, str]]:
    """The compositions A → B the task asks for (RecordShapeError as `shown_envs`)."""
    op, chain = _get(record, "operator"), _names(_get(record, "chain"), "chain")
    extra = _extra(record)
    if op in NO_PAIRS:
        return set()
    if op == "loop":
        times = extra.get("times", _size(record))
        if not isinstance(times, int) or isinstance(times, bool):
            raise RecordShapeError(f'the record\'s "extra.times" must be a whole number, not {describe(times)}')
        return {(chain[0], chain[0])} if chain and times >= 2 else set()
    if op == "branch":
        return {p for arm in _arms(extra) for p in zip(arm, arm[1:])}
    return set(zip(chain, chain[1:]))


def sidecar_of(path) -> str:
    """Where a task file's sidecar is: `FILE.library.json` beside a JSONL or Parquet file (a
    link followed first, as every reader looks: racesl.output.sidecar_places), `DIR/library.json`
    inside a `--format hf` folder (racesl.integrations.hf)."""
    places = sidecar_places(path)
    return next((p for p in places if os.path.lexists(p)), places[-1])


def recorded(path) -> Split:
    """The split recorded in the sidecar of the task file (or hf folder) `path`, read by the
    one reader of user files and schema-checked: UserFileError, one line naming the file,
    when there is none or it is not one."""
    side = sidecar_of(path)
    if not os.path.lexists(side):
        raise UserFileError(f"{os.fspath(path)}: no sidecar {os.path.basename(side)} beside it (compile writes one)")
    data = load_json(side, what="library sidecar")
    if not isinstance(data, dict):
        raise UserFileError(f"{side}: a sidecar is a JSON object, not {describe(data)}")
    if "split" not in data:
        raise UserFileError(f"{os.fspath(path)}: no split recorded (compile it with --holdout SPEC --part train|test)")
    return Split.from_json(data["split"], where=side)


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
    for what in train.differences(test):
        problems.append(f"{a} and {b} hold out {what}: compile both from one library with the same --holdout "
                        "and --seed")
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
