"""Tasks (what an operator builds), their records, and the files they go to: JSONL,
Parquet, verl's Parquet.

Every writer writes a temporary file beside the target and renames it into place, so an
interrupted compile leaves either the old file or the new one, never half of one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

import attrs

from racesl.atomic import atomic_write


@attrs.frozen
class Task:
    operator: str
    size: int
    chain: tuple[str, ...]
    settings: tuple[dict, ...]  # per chain element: {setting: canonical text}
    input: str
    trace: tuple[str, ...]
    prompt: str
    answer: str
    steps: int
    level: int
    extra: dict = attrs.field(factory=dict)

    def key(self) -> tuple:
        """What makes two tasks the same task."""
        return (self.operator, self.chain, tuple(tuple(sorted(s.items())) for s in self.settings), self.input,
                str(sorted(self.extra.items())) if self.operator in ("parallel", "branch", "loop") else "")


COLUMNS = ("id", "operator", "size", "chain", "settings", "input", "trace", "prompt", "answer", "steps",
           "level", "seed", "library", "extra")


def to_record(task: Task, index: int, seed: int, library: str) -> dict:
    return {
        "id": f"races-{seed}-{index:06d}",
        "operator": task.operator,
        "size": task.size,
        "chain": list(task.chain),
        "settings": [dict(s) for s in task.settings],
        "input": task.input,
        "trace": list(task.trace),
        "prompt": task.prompt,
        "answer": task.answer,
        "steps": task.steps,
        "level": task.level,
        "seed": seed,
        "library": library,
        "extra": task.extra,
    }


def dumps(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def write_jsonl(records: Iterable[dict], path: str | Path) -> None:
    def w(tmp):
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            for r in records:
                f.write(dumps(r) + "\n")

    atomic_write(path, w)


def _table(records: list[dict]):
    import pyarrow as pa

    cols = {
        "id": pa.array([r["id"] for r in records], pa.string()),
        "operator": pa.array([r["operator"] for r in records], pa.string()),
        "size": pa.array([r["size"] for r in records], pa.int32()),
        "chain": pa.array([r["chain"] for r in records], pa.list_(pa.string())),
        "settings": pa.array([json.dumps(r["settings"], ensure_ascii=False) for r in records], pa.string()),
        "input": pa.array([r["input"] for r in records], pa.string()),
        "trace": pa.array([r["trace"] for r in records], pa.list_(pa.string())),
        "prompt": pa.array([r["prompt"] for r in records], pa.string()),
        "answer": pa.array([r["answer"] for r in records], pa.string()),
        "steps": pa.array([r["steps"] for r in records], pa.int64()),
        "level": pa.array([r["level"] for r in records], pa.int32()),
        "seed": pa.array([r["seed"] for r in records], pa.int64()),
        "library": pa.array([r["library"] for r in records], pa.string()),
        "extra": pa.array([json.dumps(r["extra"], ensure_ascii=False, sort_keys=True) for r in records], pa.string()),
    }
    return pa.table(cols)


def _write_table(table, path) -> None:
    import pyarrow.parquet as pq

    def w(tmp):
        # no timestamps or writer ids in the file: identical input gives identical bytes
        pq.write_table(table, tmp, compression="zstd", write_statistics=False)

    atomic_write(path, w)


def write_parquet(records: list[dict], path: str | Path) -> None:
    _write_table(_table(records), path)


def from_parquet_row(row: dict) -> dict:
    """A Parquet row back into a record (settings and extra are JSON text there)."""
    r = dict(row)
    if isinstance(r.get("settings"), str):
        r["settings"] = json.loads(r["settings"])
    if isinstance(r.get("extra"), str):
        r["extra"] = json.loads(r["extra"])
    return r


def write_verl(records: list[dict], path: str | Path, data_source: str = "racesl") -> None:
    """verl's RL parquet: data_source, prompt (chat messages), ability, reward_model, extra_info."""
    import pyarrow as pa

    rows = {
        "data_source": [data_source] * len(records),
        "prompt": [[{"role": "user", "content": r["prompt"]}] for r in records],
        "ability": [f"races/{r['operator']}" for r in records],
        "reward_model": [{"style": "rule", "ground_truth": r["answer"]} for r in records],
        "extra_info": [{"index": k, "id": r["id"], "record": json.dumps(r, ensure_ascii=False)}
                       for k, r in enumerate(records)],
    }
    _write_table(pa.table(rows), path)


def read_records(path: str | Path) -> list[dict]:
    path = Path(path)
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        rows = pq.read_table(path).to_pylist()
        if rows and "extra_info" in rows[0]:
            return [json.loads(r["extra_info"]["record"]) for r in rows]
        return [from_parquet_row(r) for r in rows]
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
