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


FORMATS = ("jsonl", "parquet", "verl", "skyrl", "nemo-gym")  # files; `racesc compile --format hf` writes a folder
ROW_GROUP = 10_000  # Parquet rows buffered before they go to the file as one row group


class RecordWriter:
    """Writes records to a file as they come: JSONL a line at a time, Parquet (and verl's
    Parquet) a row group of ROW_GROUP rows at a time, so a writer holds at most one row
    group, whatever the number of records. The bytes depend only on the records (no
    timestamps or writer ids), so identical records give identical files."""

    def __init__(self, path: str | Path, fmt: str = "jsonl", data_source: str = "racesl"):
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r} (formats: {', '.join(FORMATS)})")
        self.fmt, self.data_source = fmt, data_source
        self.rows: list[tuple[int, dict]] = []
        self.count = 0
        self._parquet = None
        self._file = open(path, "w", encoding="utf-8", newline="\n") if fmt in ("jsonl", "nemo-gym") else None
        self._row = nemo_gym_row if fmt == "nemo-gym" else None
        self._path = path

    def add(self, record: dict, index: int | None = None) -> None:
        """One record; `index` (default: its place in this file) is verl's `extra_info.index`."""
        index = self.count if index is None else index
        self.count += 1
        if self._file is not None:
            self._file.write(dumps(self._row(record) if self._row else record) + "\n")
            return
        self.rows.append((index, record))
        if len(self.rows) >= ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        if not self.rows:
            return
        table = self._table(self.rows)
        if self._parquet is None:
            import pyarrow.parquet as pq

            self._parquet = pq.ParquetWriter(self._path, table.schema, compression="zstd", write_statistics=False)
        self._parquet.write_table(table)
        self.rows = []

    def _table(self, rows: list[tuple[int, dict]]):
        if self.fmt in ("verl", "skyrl"):
            return _verl_table(rows, self.data_source, skyrl=self.fmt == "skyrl")
        return _table([r for _, r in rows])

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            return
        self._flush()
        if self._parquet is None:  # no records: still a valid, empty file with the columns
            import pyarrow.parquet as pq

            empty = self._table([])
            self._parquet = pq.ParquetWriter(self._path, empty.schema, compression="zstd", write_statistics=False)
        self._parquet.close()

    def __enter__(self) -> "RecordWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def nemo_gym_row(record: dict) -> dict:
    """A NeMo Gym dataset row: the model's request (`responses_create_params.input`, the
    Responses API's messages), then what the resources server's `verify` reads: the id and
    the whole record."""
    return {"responses_create_params": {"input": [{"role": "user", "content": record["prompt"]}]},
            "id": record["id"], "record": record}


def write_records(records: Iterable[dict], path: str | Path, fmt: str = "jsonl", data_source: str = "racesl") -> None:
    """All of `records` to `path`, atomically (a temporary file renamed into place)."""
    def w(tmp):
        with RecordWriter(tmp, fmt, data_source) as out:
            for r in records:
                out.add(r)

    atomic_write(path, w)


def write_jsonl(records: Iterable[dict], path: str | Path) -> None:
    write_records(records, path, "jsonl")


def write_parquet(records: Iterable[dict], path: str | Path) -> None:
    write_records(records, path, "parquet")


def write_verl(records: Iterable[dict], path: str | Path, data_source: str = "racesl") -> None:
    write_records(records, path, "verl", data_source)


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


SKYRL_ENV = "racesl"  # the env_class of SkyRL rows: racesl.integrations.skyrl registers it


def _verl_table(rows: list[tuple[int, dict]], data_source: str, skyrl: bool = False):
    """verl's RL parquet: data_source, prompt (chat messages), ability, reward_model, extra_info;
    SkyRL's adds env_class and reward_spec (SkyRL-Gym hands the row's fields to the env)."""
    import pyarrow as pa

    message = pa.struct([("role", pa.string()), ("content", pa.string())])
    schema = pa.schema([
        ("data_source", pa.string()),
        ("prompt", pa.list_(message)),
        ("ability", pa.string()),
        ("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
        ("extra_info", pa.struct([("index", pa.int64()), ("id", pa.string()), ("record", pa.string())])),
    ] + ([("env_class", pa.string()), ("reward_spec", pa.struct([("method", pa.string()),
                                                                 ("ground_truth", pa.string())]))] if skyrl else []))
    cols = {
        "data_source": [data_source] * len(rows),
        "prompt": [[{"role": "user", "content": r["prompt"]}] for _, r in rows],
        "ability": [f"races/{r['operator']}" for _, r in rows],
        "reward_model": [{"style": "rule", "ground_truth": r["answer"]} for _, r in rows],
        "extra_info": [{"index": k, "id": r["id"], "record": json.dumps(r, ensure_ascii=False)} for k, r in rows],
    }
    if skyrl:
        cols["env_class"] = [SKYRL_ENV] * len(rows)
        cols["reward_spec"] = [{"method": "rule", "ground_truth": r["answer"]} for _, r in rows]
    return pa.table(cols, schema=schema)


def from_parquet_row(row: dict, where: str = "a Parquet row") -> dict:
    """A Parquet row back into a record (settings and extra are JSON text there, read as
    racesl.userfiles reads JSON: RecordError `WHERE: why` for NaN, 1e400, deep nesting)."""
    r = dict(row)
    for f in ("settings", "extra"):
        if isinstance(r.get(f), str):
            r[f] = _cell(r[f], where)
    return r


# What the readers of task files (score, audit, eval, serve, train) read of every record, by
# field: the one table `record_problem` checks. "prompt" is read only where a model answers
# (eval, train, audit --model): GENERATION. (chain, settings, steps, level and seed are
# written for people and trainers; no reader depends on them.)
TASK_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "id": ((str, int), "a string or a whole number"),
    "operator": ((str,), "a string"),
    "size": ((int,), "a whole number"),
    "input": ((str,), "a string"),
    "trace": ((list,), "a list of strings"),
    "prompt": ((str,), "a string"),
    "answer": ((str,), "a string"),
    "library": ((str,), "a string"),
    "extra": ((dict,), "an object"),
}
GENERATION = ("prompt",)
_JSON_NAMES = {dict: "an object", list: "an array", str: "a string", int: "a number", float: "a number",
               bool: "a boolean", type(None): "null"}


def _json_name(value) -> str:
    return _JSON_NAMES.get(type(value), type(value).__name__)


def record_problem(r, prompts: bool = True) -> str | None:
    """Why `r` cannot be a task record, in a few words (None when it can): every reader refuses
    such a record up front, with `FILE:N` and this, instead of failing on it halfway.
    `prompts=False`: a reader that gives no prompt to a model (score, serve, audit)."""
    if not isinstance(r, dict):
        return f"the record is not a JSON object but {_json_name(r)}"
    for field, (types, want) in TASK_FIELDS.items():
        if not prompts and field in GENERATION and field not in r:
            continue
        if field not in r:
            return f'the record has no "{field}" ({want})'
        v = r[field]
        if not isinstance(v, types) or isinstance(v, bool):
            return f'the record\'s "{field}" is {_json_name(v)}, not {want}'
    if r["size"] < 1:
        return f'the record\'s "size" is {r["size"]}, not at least 1'
    if not all(isinstance(t, str) for t in r["trace"]):
        return 'the record\'s "trace" is not a list of strings'
    if r["operator"] in ("sort", "select"):
        cands, target = r["extra"].get("candidates"), r["extra"].get("target")
        if not isinstance(cands, list) or not all(isinstance(c, dict) and isinstance(c.get("env"), str)
                                                  for c in cands):
            return (f'the record\'s "extra" has no "candidates" (a list of {{"env": ...}} objects; '
                    f'a {r["operator"]} task)')
        if not isinstance(target, str):
            return f'the record\'s "extra" has no "target" (a string; a {r["operator"]} task)'
    return None


class RecordError(ValueError):
    """A task file that cannot be read, or a record in it that no reader could use: one line,
    `FILE:N: why` (N: the line of a JSONL file, the row of a Parquet file)."""


def _record_lines(path: Path, real: Path):
    """(line number, record) of each non-blank line of a JSONL task file (`real`: the regular
    file `path` names, see racesl.userfiles.regular); RecordError for a line that is not
    UTF-8 or not JSON racesl.userfiles reads (NaN, 1e400, duplicate keys, nested too deep), or
    longer than a record may be (MAX_BYTES: read in pieces, a line without end is never held
    whole). The file itself has no size bound: a compile writes any number of records."""
    from racesl.userfiles import MAX_BYTES, UserFileError, loads_json

    with open(real, "rb") as f:
        for n, raw in enumerate(iter(lambda: f.readline(MAX_BYTES + 1), b""), 1):
            if len(raw) > MAX_BYTES:
                raise RecordError(f"{path}:{n}: the line is longer than a record may be ({MAX_BYTES:,} bytes)")
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise RecordError(f"{path}:{n}: not UTF-8 (byte {e.start + 1})") from None
            if not line.strip():
                continue
            try:
                yield n, loads_json(line, where=f"{path}:{n}")
            except UserFileError as e:  # (one line of JSON: its column is all there is to say)
                raise RecordError(str(e).replace(" (line 1, column ", " (column ")) from None


def read_task_records(path: str | Path, prompts: bool = True) -> list[dict]:
    """The records of a task file (JSONL, NeMo Gym rows, Parquet, verl's Parquet), each checked
    by `record_problem` (`prompts`: see there): what every reader of task files calls, so all
    of them refuse a bad file the same way (RecordError, `FILE:N: why`): a file that is not
    regular (never opened: reading a FIFO blocks forever). OSError when the file is missing
    or cannot be opened (callers say "cannot read tasks from FILE: why")."""
    import os

    from racesl.userfiles import UserFileError, regular

    path = Path(path)
    os.stat(path)  # (FileNotFoundError, PermissionError: the caller's one line; never opens)
    try:
        real = regular(path, what="task file", max_bytes=None)  # (links followed; a folder, FIFO or device refused)
    except UserFileError as e:
        raise RecordError(str(e)) from None
    if path.suffix == ".parquet":
        try:
            numbered = list(enumerate(_read_records(real, path), 1))
        except RecordError:
            raise
        except RecursionError:
            raise RecordError(f"{path}: a record is nested too deeply") from None
        except (ValueError, KeyError, TypeError) as e:
            raise RecordError(f"{path}: not a task Parquet file: {' '.join(str(e).split())[:200]}") from None
    else:
        numbered = list(_record_lines(path, real))
        if numbered and isinstance(numbered[0][1], dict) and "responses_create_params" in numbered[0][1]:
            numbered = [(n, r.get("record") if isinstance(r, dict) else r) for n, r in numbered]  # NeMo Gym rows
    for n, r in numbered:
        why = record_problem(r, prompts)
        if why:
            raise RecordError(f"{path}:{n}: {why}")
    return [r for _, r in numbered]


def _cell(text, where: str):
    """A JSON cell of a Parquet row (settings, extra, verl's record), read by racesl.userfiles:
    RecordError `FILE:N: why` for NaN, 1e400, duplicate keys or nesting too deep."""
    from racesl.userfiles import UserFileError, loads_json

    try:
        return loads_json(text, where=where)
    except UserFileError as e:
        raise RecordError(str(e)) from None


def read_records(path: str | Path) -> list[dict]:
    """The records of a task file, unchecked (`read_task_records` checks them), read as every
    user's file is (racesl.userfiles): RecordError for a file that is not regular or JSON
    that is refused."""
    from racesl.userfiles import UserFileError, regular

    try:
        real = regular(path, what="task file", max_bytes=None)
    except UserFileError as e:
        raise RecordError(str(e)) from None
    return _read_records(real, Path(path))


def _read_records(real: Path, shown: Path) -> list[dict]:
    if shown.suffix == ".parquet":
        import pyarrow.parquet as pq

        rows = pq.read_table(real).to_pylist()
        if rows and "extra_info" in rows[0]:
            return [_cell(r["extra_info"]["record"], f"{shown}:{n}") for n, r in enumerate(rows, 1)]
        return [from_parquet_row(row, f"{shown}:{n}") for n, row in enumerate(rows, 1)]
    rows = [r for _, r in _record_lines(shown, real)]
    if rows and isinstance(rows[0], dict) and "responses_create_params" in rows[0] and "record" in rows[0]:
        return [r["record"] for r in rows]  # NeMo Gym rows carry the record
    return rows
