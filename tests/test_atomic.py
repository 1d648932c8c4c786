"""`written_together`, the removal of temporary files that killed writers left, and the output
policy every write goes through (racesl.output)."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys

import pytest

from racesl.atomic import OutputRefused, atomic_write, written_together


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


# ------------------------------------------------------------ the output policy (racesl.output)


def test_a_symlink_is_written_through_and_kept(tmp_path):
    (tmp_path / "real").write_text("old")
    (tmp_path / "link").symlink_to("real")
    (tmp_path / "link2").symlink_to("link")  # (a chain of links)
    atomic_write(tmp_path / "link2", _write("new"))
    assert (tmp_path / "link").is_symlink() and (tmp_path / "link2").is_symlink()
    assert (tmp_path / "real").read_text() == "new"
    (tmp_path / "dangling").symlink_to("made")  # a link to nothing: its file is made
    atomic_write(tmp_path / "dangling", _write("x"))
    assert (tmp_path / "dangling").is_symlink() and (tmp_path / "made").read_text() == "x"


def test_a_symlinked_first_file_commits_through_its_link(tmp_path):
    (tmp_path / "real.jsonl").write_text("old")
    (tmp_path / "out.jsonl").symlink_to("real.jsonl")
    with written_together():
        atomic_write(tmp_path / "out.jsonl", _write("new"))
        atomic_write(tmp_path / "out.jsonl.library.json", _write("side"))
    assert (tmp_path / "out.jsonl").is_symlink() and (tmp_path / "real.jsonl").read_text() == "new"


@pytest.mark.parametrize("mode", [0o640, 0o755, 0o600])
def test_an_existing_file_keeps_its_mode(tmp_path, mode):
    f = tmp_path / "f"
    f.write_text("old")
    f.chmod(mode)
    atomic_write(f, _write("new"))
    assert stat.S_IMODE(f.stat().st_mode) == mode and f.read_text() == "new"


def _special(kind: str, path):
    if kind == "dir":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        here = os.getcwd()
        os.chdir(path.parent)
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.bind(path.name)
        finally:
            os.chdir(here)
    elif kind == "chardev":
        if os.geteuid() != 0:
            pytest.skip("a character device can be made only as root (os.mknod)")
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("this container may not make device nodes")
    elif kind == "readonly":
        path.write_text("old")
        path.chmod(0o444)  # (refused as root too: the bits are read, not only access())


@pytest.mark.parametrize("kind, says", [("dir", "a folder"), ("fifo", "a FIFO"), ("socket", "a socket"),
                                        ("chardev", "a character device"), ("readonly", "read-only")])
@pytest.mark.parametrize("via_link", [False, True])
def test_what_is_no_writable_file_is_refused_and_left_alone(tmp_path, kind, says, via_link):
    thing = tmp_path / "thing"
    _special(kind, thing)
    before = os.lstat(thing)
    path = thing
    if via_link:
        path = tmp_path / "link"
        path.symlink_to("thing")
    with pytest.raises(OutputRefused, match=says):
        atomic_write(path, _write("new"))
    after = os.lstat(thing)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode) and after.st_ino == before.st_ino
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".part")]


def test_a_loop_a_nul_and_a_link_out_of_a_folder_are_refused(tmp_path):
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(OutputRefused):
        atomic_write(tmp_path / "a", _write("x"))
    with pytest.raises(OutputRefused, match="NUL"):
        atomic_write(str(tmp_path / "a\0b"), _write("x"))
    (tmp_path / "pool").mkdir()
    (tmp_path / "pool" / "m.races").symlink_to(tmp_path / "outside")
    with pytest.raises(OutputRefused, match="leads out of"):
        atomic_write(tmp_path / "pool" / "m.races", _write("x"), inside=tmp_path / "pool")
    assert not (tmp_path / "outside").exists()


def test_a_file_under_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputRefused):
        atomic_write(tmp_path / "f" / "g", _write("x"))


def test_refusal_and_folders():
    from racesl.output import folder, refusal

    assert refusal(None, "-", stdout=True) is None
    assert "standard output" in refusal("-")
    with pytest.raises(OutputRefused, match="standard output"):
        folder("-")
