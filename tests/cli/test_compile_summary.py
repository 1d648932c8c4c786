"""`racesc compile`'s summary in a real 80-column terminal: short by default (a table of
tasks and a line per fact), `--summary full` with every table, whose pairs stack one under
the other where they would not fit side by side (their titles wrapped into each other)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

from rich.cells import cell_len

RACESC = str(Path(sys.executable).with_name("racesc"))
STDLIB = Path(__file__).resolve().parents[2] / "stdlib"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
BOX = set("┏┃┡│└━─┓┩┘┳╇┴")


def in_terminal(*args, cols: int = 80) -> list[str]:
    """The lines `racesc ARGS` writes to standard output, a terminal `cols` wide (a pseudo-terminal;
    the progress bar on standard error is left out)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, cols, 0, 0))
    chunks: list[bytes] = []

    def read():
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    p = subprocess.run([RACESC, *map(str, args)], stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.DEVNULL, env=env,
                       timeout=600)
    os.close(slave)
    reader.join(10)
    os.close(master)
    text = ANSI.sub("", b"".join(chunks).decode("utf-8", "replace")).replace("\r", "")
    assert p.returncode in (0, 1), text[-2000:]
    return text.splitlines()


def _tables_fit(lines: list[str], cols: int) -> None:
    for line in lines:
        if BOX & set(line):
            assert cell_len(line) <= cols, line


def test_the_default_summary_is_short_and_fits(tmp_path):
    lines = in_terminal("compile", STDLIB, "-n", "200", "--seed", "1", "-o", tmp_path / "t.jsonl")
    _tables_fit(lines, 80)
    body = [line for line in lines if line.strip()]
    assert any(line.startswith("dropped by filter: ") for line in body)
    assert any(line.startswith("graph: 390 environments") for line in body)
    assert any("`--summary full` shows every table" in line for line in body)
    assert not any("usage per input shape" in line for line in body)
    assert len(body) <= 40, "\n".join(body)


def test_the_full_summary_stacks_its_tables_at_80_columns(tmp_path):
    lines = in_terminal("compile", STDLIB, "-n", "200", "--seed", "1", "-o", tmp_path / "t.jsonl", "--summary", "full")
    _tables_fit(lines, 80)
    titles = ["expansions dropped, by filter", "signature graph", "usage per environment", "usage per input shape"]
    for title in titles:
        assert sum(1 for line in lines if line.strip().startswith(title)) == 1, title
