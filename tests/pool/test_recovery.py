"""Interrupted writes: nothing admitted is lost and no half-written module shows."""

from __future__ import annotations

import json
import os

import pytest

import racesl.pool.manifest as M
from racesl.pool import Pool, PoolError
from tests.pool.helpers import tiny


def test_crash_between_module_and_manifest_adopts_the_module(tmp_path, monkeypatch):
    root = tmp_path / "pool"
    pool = Pool.open(root)
    pool.add("first", tiny("first"), origin="admitted", envs=["first.triple_plus"])
    pool.advance(4)
    before = (root / "manifest.json").read_bytes()

    def crash(path, text):
        raise KeyboardInterrupt

    monkeypatch.setattr(M, "write", crash)
    with pytest.raises(KeyboardInterrupt):
        pool.add("second", tiny("second"), origin="generated", scores={"judge": 1.0})
    monkeypatch.undo()
    assert (root / "manifest.json").read_bytes() == before
    assert (root / "second.races").read_text() == tiny("second")

    again = Pool.open(root)
    e = again.entries["second"]
    assert (e.origin, e.step, e.fingerprints, e.scores, e.retired) == ("recovered", 4, {}, {}, False)
    assert e.envs == ("second.triple_plus",) and e.sha256 == M.sha256(tiny("second"))
    assert again.entries["first"].origin == "admitted"
    assert "second" in json.loads((root / "manifest.json").read_text())["entries"][1]["module"]
    with pytest.raises(PoolError, match="already has"):
        again.add("second", tiny("second"), origin="generated")


def test_crash_while_writing_the_module_leaves_nothing_visible(tmp_path, monkeypatch):
    root = tmp_path / "pool"
    pool = Pool.open(root)
    pool.add("first", tiny("first"), origin="admitted")
    before = (root / "manifest.json").read_bytes()
    real = type(root).write_text

    def half(self, text, *a, **k):  # half the module written, then the process dies
        real(self, text[: len(text) // 2], *a, **k)
        raise KeyboardInterrupt

    monkeypatch.setattr(type(root), "write_text", half)
    with pytest.raises(KeyboardInterrupt):
        pool.add("second", tiny("second"), origin="admitted")
    monkeypatch.undo()
    assert not (root / "second.races").exists()
    assert (root / "manifest.json").read_bytes() == before
    assert [p.name for p in root.iterdir() if p.name.endswith(".part")] == []  # cleaned up on the way out
    assert set(Pool.open(root).entries) == {"first"}


def test_temporary_file_of_a_killed_writer_is_not_a_module(tmp_path):
    """SIGKILL leaves the temporary file: it is not a `.races` file, so neither the pool nor
    `racesc compile POOL` reads it, and the manifest is unchanged."""
    root = tmp_path / "pool"
    Pool.open(root)
    before = (root / "manifest.json").read_bytes()
    (root / ".second.races.999999999.abcdefgh.part").write_text(tiny("second")[:40])
    again = Pool.open(root)
    assert again.entries == {} and again.admitted_paths() == []
    assert list(root.rglob("*.races")) == []
    assert (root / "manifest.json").read_bytes() == before
    again.add("second", tiny("second"), origin="admitted")  # the next write of that target clears it
    assert sorted(os.listdir(root)) == ["manifest.json", "second.races"]


def test_a_module_dropped_in_by_hand_is_adopted_and_a_bad_name_refused(tmp_path):
    root = tmp_path / "pool"
    Pool.open(root)
    (root / "byhand.races").write_text(tiny("byhand"))
    assert Pool.open(root).entries["byhand"].origin == "recovered"
    (root / "bad-name.races").write_text(tiny("x"))
    with pytest.raises(PoolError, match="rename or remove"):
        Pool.open(root)
