"""`racesc compile POOL stdlib` reads a pool folder as it is: the active modules only."""

from __future__ import annotations

import json

from racesl.cli.main import main
from racesl.pool import Pool
from tests.pool.helpers import tiny


def test_racesc_compiles_a_pool_folder_with_a_retired_namesake(tmp_path, monkeypatch):
    root = tmp_path / "pool"
    pool = Pool.open(root)
    pool.add("tinypool", tiny("tinypool", "old_env"), origin="admitted", step=0, envs=["tinypool.old_env"])
    pool.rotate(5, max_age=1)  # its file goes under retired/ (a second `tinypool` racesc must not see)
    pool.add("tinypool", tiny(), origin="generated", step=5, envs=["tinypool.triple_plus"])
    out = tmp_path / "x.jsonl"
    monkeypatch.chdir(tmp_path)
    rc = main(["compile", str(root), "stdlib", "-n", "20", "-o", str(out), "--no-audit", "-q"])
    assert rc == 0
    assert len(out.read_text().splitlines()) == 20
    modules = json.loads((tmp_path / "x.jsonl.library.json").read_text())["modules"]
    assert modules["tinypool"] == tiny() and "numbers" in modules
    assert "old_env" not in json.dumps(modules)
