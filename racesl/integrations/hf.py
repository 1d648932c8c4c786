"""Hugging Face `datasets`: a compiled task set saved as a dataset folder
(`racesc compile --format hf DIR`), and `load(...)`, an IterableDataset that streams tasks
from the compiler for any trainer that reads `datasets`.

Rows are the records with typed columns: the Parquet columns of racesl.records (settings
and extra as JSON text, chain and trace as lists of strings). A saved folder also holds
`library.json`, the library sidecar, so sort and select answers can be re-executed.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterable

from racesl.records import from_parquet_row
from racesl.rewards.libraries import load_beside, write_sidecar

SIDECAR = "library.json"


def features():
    """The columns of a task row, typed."""
    from datasets import Features, Sequence, Value

    text, many = Value("string"), Sequence(Value("string"))
    return Features({"id": text, "operator": text, "size": Value("int32"), "chain": many, "settings": text,
                     "input": text, "trace": many, "prompt": text, "answer": text, "steps": Value("int64"),
                     "level": Value("int32"), "seed": Value("int64"), "library": text, "extra": text})


def to_row(record: dict) -> dict:
    row = {k: record[k] for k in features()}
    row["settings"] = json.dumps(record["settings"], ensure_ascii=False)
    row["extra"] = json.dumps(record["extra"], ensure_ascii=False, sort_keys=True)
    return row


def to_record(row: dict) -> dict:
    """A dataset row back into the record `racesl.rewards.score` reads."""
    return from_parquet_row(row)


def _swap_into(tmp: Path, target: Path) -> None:
    """`tmp` becomes `target`: the old folder, if any, is moved aside first and removed
    after, so `target` is always a whole dataset (the old one or the new) or absent."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.{os.getpid()}.old")
        os.replace(target, old)
    os.replace(tmp, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def save_parquet(parquet: str | Path, target: str | Path, lib, extra: dict | None = None) -> int:
    """The records of a racesl Parquet file (racesl.records.RecordWriter) saved as a
    dataset folder at `target` with the library sidecar (`extra`: the compile's further
    sidecar keys); the number of rows."""
    import datasets
    from datasets import Dataset

    from racesl.output import dataset_folder

    datasets.disable_progress_bars()  # (a compile has its own progress bar, and -q means quiet)
    target = dataset_folder(target)  # (the output policy: a link is followed, a foreign folder refused)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".part", dir=target.parent))
    try:
        ds = Dataset.from_parquet(str(parquet), features=features(), cache_dir=str(tmp / "cache"),
                                  keep_in_memory=False)
        ds.save_to_disk(str(tmp / "data"))
        write_sidecar(lib, tmp / "data" / SIDECAR, extra)
        n = len(ds)
        del ds
        _swap_into(tmp / "data", target)
        return n
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def save(records: Iterable[dict], target: str | Path, lib) -> int:
    """Records saved as a dataset folder (through a temporary Parquet file)."""
    from racesl.records import write_parquet

    target = Path(target)
    with tempfile.TemporaryDirectory(dir=target.parent if target.parent.exists() else None) as d:
        write_parquet(records, Path(d) / "records.parquet")
        return save_parquet(Path(d) / "records.parquet", target, lib)


def load_saved(path: str | Path):
    """A saved task dataset (`datasets.Dataset`), its library registered for the rewards
    (racesl.rewards.libraries.load_beside: UserFileError, one line, for a bad sidecar)."""
    from datasets import load_from_disk

    load_beside(path)
    return load_from_disk(str(path))


_SOURCES: dict[str, dict] = {}


def _rows(key: str):
    from racesl.integrations.tasks import stream

    for record in stream(**_SOURCES[key]):
        yield to_row(record)


def load(paths=None, *, seed: int = 0, operators: str | None = None, level: int | None = None,
         limit: int | None = None, include=()):
    """A `datasets.IterableDataset` of task rows compiled on the fly from `paths` (default:
    the stdlib): endless, or `limit` rows; the same rows for the same arguments. The
    library is registered here, so `racesl.rewards.score(to_record(row), completion)` works
    in this process."""
    from datasets import IterableDataset

    from racesl.integrations.tasks import library
    from racesl.rewards import register

    kwargs = {"paths": [str(p) for p in paths] if paths else None, "seed": seed, "operators": operators,
              "level": level, "limit": limit, "include": tuple(include)}
    register(library(kwargs["paths"], include))
    key = json.dumps(kwargs, sort_keys=True)  # (from_generator hashes its arguments: keep them plain)
    _SOURCES[key] = kwargs
    return IterableDataset.from_generator(_rows, features=features(), gen_kwargs={"key": key})
