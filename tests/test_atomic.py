"""`written_together` and the removal of temporary files that killed writers left."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from racesl.atomic import atomic_write, written_together


def _write(text):
    return lambda tmp: open(tmp, "w").write(text)


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid  # reaped: no process has it (until the PID space wraps round)


def test_group_commits_the_first_file_last(tmp_path, monkeypatch):
    out, side = tmp_path / "out.jsonl", tmp_path / "out.jsonl.library.json"
    out.write_text("old")
    side.write_text("old side")
    order = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: order.append(os.path.basename(b)) or real(a, b))
    with written_together():
        atomic_write(out, _write("new"))
        atomic_write(side, _write("new side"))
        assert out.read_text() == "old" and order == []  # staged only
    assert order == ["out.jsonl.library.json", "out.jsonl"]
    assert out.read_text() == "new" and side.read_text() == "new side"
    assert sorted(os.listdir(tmp_path)) == ["out.jsonl", "out.jsonl.library.json"]


@pytest.mark.parametrize("exc", [RuntimeError("disk full"), KeyboardInterrupt()])
def test_group_failure_keeps_the_old_files_and_no_temporary_one(tmp_path, exc):
    out, side = tmp_path / "o", tmp_path / "o.library.json"
    out.write_text("old")
    side.write_text("old side")
    with pytest.raises(type(exc)):
        with written_together():
            atomic_write(out, _write("new"))
            atomic_write(side, _write("new side"))
            raise exc
    assert out.read_text() == "old" and side.read_text() == "old side"
    assert sorted(os.listdir(tmp_path)) == ["o", "o.library.json"]


def test_stale_parts_go_live_ones_and_other_targets_stay(tmp_path):
    dead, live = _dead_pid(), os.getppid()
    names = [f".out.jsonl.{dead}.abc123_x.part",  # a killed writer's
             ".out.jsonl.k2j4h5g6.part",  # the older name, without a PID
             f".out.jsonl.{live}.def456gh.part",  # a writer still running
             f".out.jsonl.library.json.{dead}.zz9.part",  # another target's
             "out.jsonl.notes"]
    for n in names:
        (tmp_path / n).write_text("x")
    atomic_write(tmp_path / "out.jsonl", _write("new"))
    assert sorted(os.listdir(tmp_path)) == sorted(["out.jsonl", *names[2:]])
