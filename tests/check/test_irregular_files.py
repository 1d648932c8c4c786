"""A FIFO, socket or device named `*.races` is never opened: a folder scan (check, compile,
graph, admit, fmt, the language server's workspace) skips it with a W202 warning, and a
path or an import naming one is an E202 error. Every command runs under a timeout, so a
reader that opens the FIFO (and blocks forever) fails fast instead of hanging the suite."""

from __future__ import annotations

import os
import socket
import threading

import pytest

from racesl.check import check_paths
from tests.support.tasks import HALVE, TRIPLE, run_racesc, toy_library

TOY = toy_library("toy", TRIPLE, HALVE)
LIMIT = 90  # seconds: each command takes a few; one blocked on a FIFO never ends


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "src"
    d.mkdir()
    (d / "toy.races").write_text(TOY, encoding="utf-8")
    os.mkfifo(d / "x.races")
    with socket.socket(socket.AF_UNIX) as s:  # (bound by its name alone: a socket path is short)
        here = os.getcwd()
        os.chdir(d)
        try:
            s.bind("y.races")
        finally:
            os.chdir(here)
    (d / "sub.races").mkdir()  # a folder named like a module: not a file, not warned about
    return d


def test_check_paths_skips_them_with_a_warning(folder):
    done = threading.Event()
    got = {}

    def run():
        got["checked"] = check_paths([folder])
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(LIMIT), "check_paths opened the FIFO"
    checked = got["checked"]
    warned = sorted(d.path for d in checked.diagnostics if d.code == "W202")
    assert warned == [str(folder / "x.races"), str(folder / "y.races")]
    assert checked.ok and list(checked.modules) == ["toy"]
    assert all(not d.is_error for d in checked.diagnostics if d.code == "W202")


@pytest.mark.parametrize("argv, code", [
    (["check", "-q", "{d}"], 0),
    (["compile", "{d}", "-n", "4", "-q", "--no-audit", "-o", "{d}/../t.jsonl"], 0),
    (["graph", "{d}", "-o", "{d}/../g.json"], 0),
    (["fmt", "--check", "{d}"], 0),
    (["admit", "{d}/x.races", "{d}/y.races", "--dry-run"], 1),  # named: refused at read, not opened
])
def test_commands_that_read_folders_never_block_on_them(folder, argv, code):
    p = run_racesc(*[a.format(d=folder) for a in argv], cwd=folder.parent, timeout=LIMIT, check=False)
    assert p.returncode == code, p.stderr
    assert "Traceback" not in p.stderr
    assert "x.races" in p.stderr and ("FIFO" in p.stderr)


def test_admit_skips_them_in_a_folder_of_candidates(tmp_path):
    d = tmp_path / "cands"
    d.mkdir()
    os.mkfifo(d / "x.races")
    p = run_racesc("admit", d, "--dry-run", timeout=LIMIT, check=False)
    assert p.returncode == 2 and "skipped" in p.stderr and "no candidate files" in p.stderr


def test_a_named_fifo_or_an_imported_one_is_an_error(folder, tmp_path):
    checked = check_paths([folder / "x.races"])
    assert [d.code for d in checked.diagnostics] == ["E202"] and "a FIFO" in checked.diagnostics[0].message
    (folder / "uses.races").write_text("import x\n", encoding="utf-8")
    checked = check_paths([folder / "uses.races"])
    assert any(d.code == "E202" and "a FIFO" in d.message for d in checked.diagnostics)


def test_the_language_servers_workspace_scan_skips_them(folder):
    from racesl.lsp.analysis import Workspace
    from racesl.lsp.sources import DiskCache

    ws = Workspace(roots=[folder])
    files = ws.workspace_files()
    assert files == [str((folder / "toy.races").absolute())]
    assert sorted(d.code for d in ws.skipped_files) == ["W202", "W202"]
    with pytest.raises(OSError):  # (a path the client names: stat, never open)
        DiskCache().get(str(folder / "x.races"))
