"""Training data: an endless stream of tasks compiled on the fly, or a compiled file.

The stream builds task i from `item_rng(seed, "task", i)` exactly as `racesc compile` does
(operator, then size), except that with a curriculum the size (and level) come from the
operator's current rung. Every process runs the same stream from the same seed, so under
accelerate every rank sees the same tasks in the same order; the curriculum is updated from
gathered rewards, so it is the same on every rank too.

Rows carry the prompt (chat messages, or text), the record as JSON (what the reward needs),
and `operator`, `size`, `rung` (the curriculum rung the task was drawn at; -1 without one).

With a held-out split ([data] holdout, part) the stream asks the one predicate compile asks
(racesl.search.holdout, through the Generator): the same split of the whole library, the
same sizes per part, and a curriculum's ladders fitted to those sizes, so a `size>=K` train
stream never climbs to a size it cannot make. Given a recorded split ([data] split: the
other part's task file), it refuses to start when its own differs.

`datasets.IterableDataset.from_generator` hashes its arguments, so the source object (which
holds the compiled library) is kept in a registry and the generator gets only its key.
"""

from __future__ import annotations

import itertools
import json
import random
import time
from collections import Counter
from typing import Callable, Iterator

from racesl.curriculum import Curriculum, Rung
from racesl.records import to_record
from racesl.sample.seeding import item_rng
from racesl.search.config import CompileConfig, ConfigError
from racesl.search.filters import AnswerShare
from racesl.search.holdout import Split, recorded as read_recorded

MAX_SEEN = 2_000_000  # dedup memory of the stream; cleared past this


class StreamStats:
    """What the stream did, for logs and the step-time breakdown."""

    def __init__(self):
        self.built = 0
        self.failed = 0
        self.duplicates = 0
        self.too_long = 0
        self.seconds = 0.0  # building tasks (and measuring prompts)
        self.split: dict | None = None  # the held-out split the stream keeps to (Split.to_json), for the summary

    def admit(self, row: dict, keep: Callable[[dict], bool] | None, t0: float) -> bool:
        """Whether `keep` takes the row; counts it (built or too long) and the time since `t0`."""
        ok = keep is None or keep(row)
        self.seconds += time.perf_counter() - t0
        if ok:
            self.built += 1
        else:
            self.too_long += 1
        return ok

    def as_dict(self) -> dict:
        return {"built": self.built, "failed": self.failed, "duplicates": self.duplicates, "too_long": self.too_long,
                "seconds": round(self.seconds, 3), **({"split": self.split} if self.split is not None else {})}


def make_row(record: dict, rung: int = -1, system_prompt: str | None = None, chat: bool = True) -> dict:
    if chat:
        prompt = ([{"role": "system", "content": system_prompt}] if system_prompt else []) + \
                 [{"role": "user", "content": record["prompt"]}]
    else:
        prompt = (system_prompt + "\n\n" if system_prompt else "") + record["prompt"]
    return {"prompt": prompt, "record": json.dumps(record, ensure_ascii=False), "operator": record["operator"],
            "size": int(record["size"]), "rung": int(rung)}


class _PinnedLevel:
    """Stands in for Search.level: a curriculum rung's level, else compile's uniform draw."""

    def __init__(self, max_level: int):
        self.max_level = max_level
        self.pinned: int | None = None

    def __call__(self, rng: random.Random) -> int:
        if self.pinned is not None:
            return self.pinned
        return rng.randint(0, self.max_level)


class TaskStream:
    """Endless compiled tasks from a library."""

    def __init__(self, lib, cfg: CompileConfig, curriculum: Curriculum | None = None, *,
                 keep: Callable[[dict], bool] | None = None, system_prompt: str | None = None, chat: bool = True,
                 start: int = 0, recorded: Split | str | None = None):
        """`recorded`: a split this stream must hold out (a Split, or a task file or hf folder
        whose sidecar records one); ConfigError, one line, when the stream's own differs."""
        from racesl.compile import Generator
        from racesl.rewards import register

        self.lib = lib
        self.cfg = cfg
        self.curriculum = curriculum
        self.keep = keep
        self.system_prompt = system_prompt
        self.chat = chat
        self.start = start
        self.gen = Generator(lib, cfg)
        self.split = self.gen.split
        if recorded is not None:
            self._agree(recorded)
        if curriculum is not None:
            curriculum.fit(self.gen.ops)  # the sizes this part makes (a train part stops below size>=K)
        self._level = _PinnedLevel(cfg.max_level)
        self.gen.search.level = self._level  # instance attribute: shadows Search.level for this stream only
        self.stats = StreamStats()
        self.stats.split = self.split.to_json() if self.split is not None else None
        self.rejections: Counter = Counter()
        register(lib)  # the reward finds the library by hash (sort/select re-execute chains)

    def _agree(self, recorded: Split | str) -> None:
        """Refuse (ConfigError, [data] split) a recorded split this stream does not hold out."""
        where = "the recorded split"
        if not isinstance(recorded, Split):
            where = str(recorded)
            try:
                recorded = read_recorded(recorded)
            except ValueError as e:  # (UserFileError: one line naming the file)
                raise ConfigError(f"[data] split: {e}", "data", "split") from None
        if self.split is None:
            raise ConfigError(f"[data] split: {where} records holdout {recorded.spec} (seed {recorded.seed}) but "
                              "this stream holds nothing out: set [data] holdout and seed to match", "data", "split")
        diff = self.split.differences(recorded)
        if diff:
            raise ConfigError(f"[data] split: this stream and {where} hold out {'; '.join(diff)}: compile both "
                              "from one library with the same holdout and seed", "data", "split")

    def _draw(self, rng: random.Random) -> tuple[str, int, Rung | None]:
        name, lo, hi = self.gen.ops[rng.randrange(len(self.gen.ops))]
        if self.curriculum is None:
            return name, rng.randint(lo, hi), None
        rung = self.curriculum.draw(name, rng)
        return name, rung.size, rung

    def records(self) -> Iterator[tuple[dict, int]]:
        """(record, rung index) forever."""
        search = self.gen.search
        mean = sum((lo + hi) / 2 for _, lo, hi in self.gen.ops) / len(self.gen.ops)
        quota = search.initial_quota(mean)
        snapshot = dict(quota)
        seen: set = set()
        shares = AnswerShare(self.cfg.filters.answer_share)  # as compile's merge: no constant-guess cells
        seed = self.cfg.seed
        stall = 0
        for i in itertools.count(self.start):
            if (i - self.start) % self.cfg.batch == 0:
                snapshot = dict(quota)  # like compile: quotas change between batches only
            t0 = time.perf_counter()
            rng = item_rng(seed, "task", i)
            name, size, rung = self._draw(rng)
            self._level.pinned = rung.level if rung is not None else None
            stats: Counter = Counter()
            task = self.gen.make(name, size, rng, snapshot, stats)
            self.rejections.update(stats)
            record = None
            if task is None:
                self.stats.failed += 1
            else:
                key = task.key()
                if key in seen:
                    self.stats.duplicates += 1
                elif not shares.admit(task.operator, task.size, task.answer):
                    self.rejections["answer_share"] += 1
                    self.stats.failed += 1
                else:
                    if len(seen) > MAX_SEEN:
                        seen.clear()
                        shares = AnswerShare(self.cfg.filters.answer_share)  # bounded like `seen`
                    seen.add(key)
                    for q in task.chain:
                        quota[q] = quota.get(q, 0) - 1
                    if all(v <= 0 for v in quota.values()):
                        quota = search.initial_quota(mean)
                    record = to_record(task, i, seed, self.lib.hash)
            self.stats.seconds += time.perf_counter() - t0
            if record is None:
                stall += 1
                if stall >= 64 * self.cfg.batch:
                    raise RuntimeError("the task stream made nothing new in a long while: the library or the "
                                       "operator sizes cannot make more tasks")
                continue
            stall = 0
            yield record, (rung.index if rung is not None else -1)

    def rows(self) -> Iterator[dict]:
        for record, rung in self.records():
            t0 = time.perf_counter()
            row = make_row(record, rung, self.system_prompt, self.chat)
            if self.stats.admit(row, self.keep, t0):
                yield row


class FileStream:
    """Tasks from a compiled file, drawn to follow a curriculum: per operator, records at
    the current rung's size (and level), else at the nearest rung that has any. The ladders
    are fitted to the sizes the file holds (a held-out split's train part stops below
    `size>=K`), so the curriculum never climbs to a size the file has no task of."""

    def __init__(self, records: list[dict], curriculum: Curriculum, seed: int = 0, *,
                 keep: Callable[[dict], bool] | None = None, system_prompt: str | None = None, chat: bool = True):
        sizes: dict[str, list[int]] = {}
        for r in records:
            sizes.setdefault(r["operator"], []).append(r["size"])
        fitted = [(op, max(st.rungs[0].size, min(sizes[op])), min(st.rungs[-1].size, max(sizes[op])))
                  for op, st in curriculum.ops.items() if op in sizes]
        fitted = [(op, lo, hi) for op, lo, hi in fitted if lo <= hi]
        if not fitted:
            raise ValueError("no task in the file matches the configured operators and sizes")
        curriculum.fit(fitted)
        self.curriculum = curriculum
        self.seed = seed
        self.keep = keep
        self.system_prompt = system_prompt
        self.chat = chat
        self.stats = StreamStats()
        self.by_op: dict[str, dict[int, list[dict]]] = {}
        for r in records:
            if r["operator"] not in curriculum.ops:
                continue
            for rung in curriculum.ops[r["operator"]].rungs:
                if rung.size == r["size"] and (rung.level is None or rung.level == r.get("level", 0)):
                    self.by_op.setdefault(r["operator"], {}).setdefault(rung.index, []).append(r)
        if not self.by_op:
            raise ValueError("no task in the file matches the configured operators and sizes")
        self.ops = sorted(self.by_op)

    def _pick(self, op: str, rung: int, rng: random.Random) -> dict:
        pools = self.by_op[op]
        best = min(pools, key=lambda k: (abs(k - rung), k))
        pool = pools[best]
        return pool[rng.randrange(len(pool))]

    def rows(self) -> Iterator[dict]:
        for i in itertools.count():
            t0 = time.perf_counter()
            rng = item_rng(self.seed, "file-task", i)
            op = self.ops[rng.randrange(len(self.ops))]
            rung = self.curriculum.draw(op, rng)
            record = self._pick(op, rung.index, rng)
            row = make_row(record, rung.index, self.system_prompt, self.chat)
            if self.stats.admit(row, self.keep, t0):
                yield row


# ------------------------------------------------------------ datasets glue

_SOURCES: dict[str, object] = {}


def _generate(source_key: str):
    yield from _SOURCES[source_key].rows()


def iterable_dataset(source, key: str | None = None):
    """A `datasets.IterableDataset` over `source.rows()` (a TaskStream or FileStream)."""
    from datasets import IterableDataset

    key = key or f"races-{id(source)}"
    _SOURCES[key] = source
    return IterableDataset.from_generator(_generate, gen_kwargs={"source_key": key})


def token_length_filter(tokenizer, max_tokens: int) -> Callable[[dict], bool]:
    """keep(row): the prompt as the trainer will feed it is at most max_tokens tokens."""

    def keep(row: dict) -> bool:
        prompt = row["prompt"]
        if isinstance(prompt, list):
            if getattr(tokenizer, "chat_template", None):
                text = tokenizer.apply_chat_template(prompt, tokenize=False, add_generation_prompt=True)
            else:
                text = "\n\n".join(m["content"] for m in prompt)
        else:
            text = prompt
        # cheap bound first: a byte-level tokenizer makes at most one token per UTF-8 byte
        if len(text.encode("utf-8")) <= max_tokens:
            return True
        return len(tokenizer(text, add_special_tokens=False)["input_ids"]) <= max_tokens

    return keep
