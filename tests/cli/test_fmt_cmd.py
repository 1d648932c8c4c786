"""`racesc fmt PATHS... [--check] [--diff]` through the installed script: files rewritten
in place (atomically), `--check` lists and exits 1, `--diff` prints a diff and writes
nothing, `-` filters standard input, and files with syntax errors are left untouched with
their diagnostics (file:line:col and a hint) and exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from racesl.format import format_source

ROOT = Path(__file__).resolve().parents[2]
RACESC = str(Path(sys.executable).with_name("racesc"))
MESSY = 'env  f(x:Int)->Int:\n  """Double x."""\n  return x*2\n'
TIDY = 'env f(x: Int) -> Int:\n    """Double x."""\n    return x * 2\n'
BROKEN = "env f(x: Int) -> Int:\n    return (x +\n"


def racesc(*args, cwd, stdin=None) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    return subprocess.run([RACESC, "fmt", *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          env=env, input=stdin, timeout=120)


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "lib" / "sub").mkdir(parents=True)
    (tmp_path / "lib" / "messy.races").write_text(MESSY)
    (tmp_path / "lib" / "sub" / "tidy.races").write_text(TIDY)
    (tmp_path / "lib" / "notes.txt").write_text("not a module")
    return tmp_path / "lib"


def test_rewrites_files_in_folders(tmp_path: Path):
    lib = _tree(tmp_path)
    p = racesc(lib, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (lib / "messy.races").read_text() == TIDY
    assert (lib / "sub" / "tidy.races").read_text() == TIDY
    assert "reformatted" in p.stderr and "1 file reformatted, 1 unchanged" in p.stderr
    assert not [f for f in lib.rglob("*") if f.name.endswith(".part")]  # (atomic writes leave nothing)
    assert racesc(lib, "--check", cwd=tmp_path).returncode == 0


def test_check_lists_what_would_change_and_writes_nothing(tmp_path: Path):
    lib = _tree(tmp_path)
    p = racesc("--check", lib, cwd=tmp_path)
    assert p.returncode == 1
    assert p.stdout.strip() == str(lib / "messy.races")
    assert (lib / "messy.races").read_text() == MESSY


def test_diff_prints_a_unified_diff(tmp_path: Path):
    lib = _tree(tmp_path)
    p = racesc("--diff", lib / "messy.races", cwd=tmp_path)
    assert p.returncode == 0
    assert "-  return x*2" in p.stdout and "+    return x * 2" in p.stdout
    assert (lib / "messy.races").read_text() == MESSY
    assert racesc("--diff", "--check", lib / "messy.races", cwd=tmp_path).returncode == 1


def test_standard_input_to_standard_output(tmp_path: Path):
    p = racesc("-", cwd=tmp_path, stdin=MESSY)
    assert p.returncode == 0 and p.stdout == TIDY


def test_syntax_errors_leave_the_file_and_say_where(tmp_path: Path):
    lib = _tree(tmp_path)
    (lib / "broken.races").write_text(BROKEN)
    p = racesc(lib, cwd=tmp_path)
    assert p.returncode == 2
    assert (lib / "broken.races").read_text() == BROKEN
    assert f"{lib / 'broken.races'}:2:" in p.stderr and "hint" in p.stderr
    assert "Traceback" not in p.stderr
    assert (lib / "messy.races").read_text() == TIDY  # the other files are still formatted
    p = racesc("-", cwd=tmp_path, stdin=BROKEN)
    assert p.returncode == 2 and p.stdout == "" and "<stdin>:2:" in p.stderr


def test_missing_path_is_an_error(tmp_path: Path):
    p = racesc(tmp_path / "nothere", cwd=tmp_path)
    assert p.returncode == 2 and "no such file or folder" in p.stderr


def test_the_stdlib_and_examples_are_formatted():
    p = racesc("--check", "stdlib", "examples", cwd=ROOT)
    assert p.returncode == 0, f"run `racesc fmt stdlib examples`; would change:\n{p.stdout}"


def test_crlf_files_keep_their_line_endings():
    out = format_source(MESSY.replace("\n", "\r\n")).text
    assert out == TIDY.replace("\n", "\r\n")
