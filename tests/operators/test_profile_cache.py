"""Answer profiles kept on disk (racesl.operators.outputs.DiskProfiles): a later compile of the
same library reads them and writes byte-identical tasks; a damaged cache file is ignored."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
from pathlib import Path

STDLIB = Path(__file__).resolve().parents[2] / "stdlib"
RACESC = str(Path(sys.executable).with_name("racesc"))


def _compile(tmp_path, cache, name: str, **env) -> bytes:
    out = tmp_path / f"{name}.jsonl"
    e = dict(os.environ, RACESL_CACHE_DIR=str(cache), OMP_NUM_THREADS="1", **env)
    if "RACESL_NO_CACHE" not in env:
        e.pop("RACESL_NO_CACHE", None)
    subprocess.run([RACESC, "compile", STDLIB / "numbers.races", STDLIB / "lists.races", "-n", "150", "--seed", "4",
                    "--no-audit", "-q", "-o", out], check=True, env=e, timeout=600)
    return out.read_bytes()


def test_stored_profiles_give_the_same_tasks(tmp_path):
    cache = tmp_path / "cache"
    fresh = _compile(tmp_path, cache, "a")
    files = glob.glob(str(cache / "profiles-*.json"))
    assert len(files) == 1
    table = json.loads(Path(files[0]).read_text())
    assert table and all(isinstance(v, list) and len(v) == 2 for v in table.values())
    assert _compile(tmp_path, cache, "b") == fresh  # read from disk
    assert _compile(tmp_path, tmp_path / "other", "c", RACESL_NO_CACHE="1") == fresh  # none at all
    assert not (tmp_path / "other").exists()


def test_a_damaged_cache_is_ignored(tmp_path):
    cache = tmp_path / "cache"
    fresh = _compile(tmp_path, cache, "a")
    (path,) = glob.glob(str(cache / "profiles-*.json"))
    table = json.loads(Path(path).read_text())
    for k, bad in zip(list(table), (["x", 7], [0.5, {"1": "x"}], [0.5, []], "?", [None])):  # each recomputed
        table[k] = bad
    Path(path).write_text(json.dumps(table))
    assert _compile(tmp_path, cache, "b") == fresh
    Path(path).write_text("[" * 100_000)
    assert _compile(tmp_path, cache, "c") == fresh
