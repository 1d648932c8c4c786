"""The records a server scores against, by id.

Ids are compared as text: a JSON client may send `7` or `"7"` for the record whose id is 7.
Each TASKS file's library sidecar is registered as it loads (sort and select answers are
re-executed), every library the records name is found (built, for the bundled stdlib) then,
and the index is built before the worker processes fork, which share it all: a worker that
built a library on its first sort answer spent its batch's time limit doing so.
"""

from __future__ import annotations

from pathlib import Path

from racesl.rewards.libraries import library_for, read_tasks


class TaskIndex:
    """Task records by id (as text), from one or more compiled files."""

    def __init__(self, records: dict[str, dict], files: tuple[str, ...] = ()):
        self._records = records
        self.files = files

    @classmethod
    def load(cls, paths) -> "TaskIndex":
        """Read every file (raises ValueError naming the file: missing, unreadable, empty,
        or an id that two different records share)."""
        records: dict[str, dict] = {}
        where: dict[str, str] = {}
        files = tuple(str(p) for p in paths)
        for path in files:
            for r in read_tasks(Path(path)):
                key = str(r["id"])
                old = records.get(key)
                if old is not None and old != r:
                    raise ValueError(f"{path}: task id {key!r} is also a different task in {where[key]}; "
                                     f"serve files from one compile, or compile with different seeds")
                records[key] = r
                where.setdefault(key, path)
        for h in sorted({r.get("library") for r in records.values() if isinstance(r.get("library"), str)}):
            library_for(h)  # (None when it cannot be found: those answers say library_missing)
        return cls(records, files)

    def get(self, task_id) -> dict | None:
        """The record with this id, or None (for ids of any type, bools and containers included)."""
        if isinstance(task_id, bool) or not isinstance(task_id, (str, int)):
            return None
        return self._records.get(str(task_id))

    def __len__(self) -> int:
        return len(self._records)
