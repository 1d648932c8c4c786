"""`stdlib` names the bundled library wherever a path is expected, from any folder; a
local folder named `stdlib` wins. The end-to-end test runs a built, non-editable wheel."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from racesl import resources
from racesl.check import check_paths
from racesl.check.loader import locate, source_notes

ROOT = Path(__file__).resolve().parents[2]


def test_locate_names_the_bundled_library_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert locate("stdlib") == resources.stdlib_dir()
    assert locate("stdlib/strings") == resources.stdlib_dir() / "strings.races"
    assert locate("stdlib/strings.races") == resources.stdlib_dir() / "strings.races"
    assert locate("stdlib/nope") == Path("stdlib/nope")  # E202 then, with the module list as hint
    assert locate("other") == Path("other")
    assert source_notes(["stdlib"]) == [f"stdlib: the bundled standard library ({resources.stdlib_dir().resolve()})"]


def test_a_local_stdlib_folder_wins_and_is_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "stdlib").mkdir()
    (tmp_path / "stdlib" / "mine.races").write_text('env double(n: Int) -> Int:\n    """Return twice n."""\n    return n + n\n')
    checked = check_paths(["stdlib"])
    assert checked.ok, checked.diagnostics
    assert [e.name for e in checked.envs(only_roots=True)] == ["double"]
    assert checked.notes == [f"stdlib: the local folder {tmp_path / 'stdlib'}, not the bundled standard library"]


def test_missing_bundled_module_lists_the_modules(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    checked = check_paths(["stdlib/nope"])
    (d,) = checked.diagnostics
    assert d.code == "E202" and "strings" in d.hint and "lists" in d.hint


def _run(args, cwd, env):
    return subprocess.run([sys.executable, "-c", "import sys; from racesl.cli.main import main; sys.exit(main())", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_a_wheel_install_checks_compiles_and_graphs_stdlib_from_a_temporary_folder(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
                   check=True, capture_output=True, timeout=600)
    (wheel,) = wheels.glob("racesl-*.whl")
    assert any(n.startswith("racesl/_data/stdlib/") for n in zipfile.ZipFile(wheel).namelist())
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
                   check=True, capture_output=True, timeout=600)
    work = tmp_path / "elsewhere"
    work.mkdir()
    # the wheel's package, ahead of the editable checkout on sys.path
    env = dict(os.environ, PYTHONPATH=str(site), OMP_NUM_THREADS="1")
    where = subprocess.run([sys.executable, "-c", "from racesl import resources; print(resources.stdlib_dir())"],
                           cwd=work, env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where) == site / "racesl" / "_data" / "stdlib"

    check = _run(["check", "stdlib", "-q"], work, env)
    assert check.returncode == 0, check.stderr
    assert "bundled standard library" in check.stderr and "0 errors" in check.stdout + check.stderr
    assert "Traceback" not in check.stderr

    compiled = _run(["compile", "stdlib/numbers", "-n", "20", "-o", "t.jsonl", "--no-audit", "-q"], work, env)
    assert compiled.returncode == 0, compiled.stderr
    assert "stdlib/numbers: the bundled standard library" in compiled.stderr
    rows = [json.loads(line) for line in (work / "t.jsonl").read_text().splitlines()]
    assert len(rows) == 20

    graph = _run(["graph", "stdlib", "-o", "g.html"], work, env)
    assert graph.returncode == 0, graph.stderr
    assert "stdlib: the bundled standard library" in graph.stderr
    assert (work / "g.html").stat().st_size > 0
