"""Rotation: by age, by the seed floor, what moves where, and a rotation cut short."""

from __future__ import annotations

import json

import pytest

import racesl.pool.pool as P
from racesl.pool import Pool, PoolError
from tests.pool.helpers import seed_folder, tiny


def _pool(tmp_path, n=12, envs=2):
    pool = Pool.open(tmp_path / "pool", seeds=(str(seed_folder(tmp_path, envs)),))
    for i in range(n):  # steps 0,0,1,1,2,2,...: ties broken by module name
        pool.add(f"m{i:02d}", tiny(f"m{i:02d}"), origin="generated", step=i // 2, envs=[f"m{i:02d}.triple_plus"])
    return pool


def test_seed_envs_are_env_lines(tmp_path):
    pool = Pool.open(tmp_path / "pool", seeds=(str(seed_folder(tmp_path, 3)),))
    assert pool.seed_env_count() == 3  # the commented-out one is not counted


def test_floor_retires_oldest_until_seeds_reach_it(tmp_path):
    pool = _pool(tmp_path)
    retired = pool.rotate(6, max_age=None, seed_floor=0.2)
    # 2 seed envs + 12 admitted: 2 >= 0.2 * total needs total <= 10, so the 4 oldest go
    assert [e.module for e in retired] == ["m00", "m01", "m02", "m03"]
    assert all(e.retired and e.retired_step == 6 and "below 20%" in e.reason for e in retired)
    s = pool.summary()
    assert (s["seed_envs"], s["active_envs"], s["active"], s["retired"]) == (2, 8, 8, 4)
    assert s["seed_share"] == 0.2
    assert pool.rotate(7, max_age=None, seed_floor=0.2) == []  # already at the floor


def test_age_then_floor(tmp_path):
    pool = _pool(tmp_path, envs=1)
    retired = pool.rotate(5, max_age=3, seed_floor=0.2)
    # age: steps 0 and 1 (5 - step > 3) → m00..m03; then 1 seed env + 8 left: total must be <= 5
    assert [e.module for e in retired[:4]] == ["m00", "m01", "m02", "m03"]
    assert all("older than 3" in e.reason for e in retired[:4])
    assert [e.module for e in retired[4:]] == ["m04", "m05", "m06", "m07"]
    assert all("below" in e.reason for e in retired[4:])
    assert sorted(pool.module_names()) == ["fakeseed", "m08", "m09", "m10", "m11"]


def test_no_age_limit_and_zero_floor_keep_everything(tmp_path):
    pool = _pool(tmp_path)
    assert pool.rotate(100, max_age=0, seed_floor=0.0) == []
    assert pool.rotate(100, max_age=None, seed_floor=0.0) == []
    assert len(pool.admitted_paths()) == 12


def test_seed_envs_override_and_modules_without_envs_stay(tmp_path):
    pool = _pool(tmp_path, n=4)
    pool.add("noenv", tiny("noenv"), origin="admitted", step=0)  # oldest, but retiring it would not help
    retired = pool.rotate(1, seed_floor=0.5, seed_envs=lambda: 3)
    assert [e.module for e in retired] == ["m00"]  # 3 >= 0.5 * (3 + 3)
    assert "noenv" in pool.module_names()
    with pytest.raises(ValueError):
        pool.rotate(1, seed_floor=1.5)


def test_retired_files_move_and_the_layout_stays_compilable(tmp_path):
    pool = _pool(tmp_path, n=6)
    retired = pool.rotate(6, max_age=5, seed_floor=0)
    root = pool.root
    assert [e.module for e in retired] == ["m00", "m01"]
    assert sorted(p.name for p in root.glob("*.races")) == [f"m{i:02d}.races" for i in range(2, 6)]
    assert sorted(p.name for p in root.rglob("*.races")) == [f"m{i:02d}.races" for i in range(2, 6)]
    assert (root / "retired" / "m00.races.retired").read_text() == tiny("m00")
    again = Pool.open(root)
    assert again.entries["m00"].retired and again.entries["m00"].file == "retired/m00.races.retired"
    assert again.admitted_paths() == [root / f"m{i:02d}.races" for i in range(2, 6)]


def test_a_retired_name_can_come_back_and_both_records_stay(tmp_path):
    pool = Pool.open(tmp_path / "pool")
    pool.add("again", tiny("again"), origin="admitted", step=0, envs=["again.triple_plus"])
    pool.rotate(3, max_age=1)
    pool.add("again", tiny("again", "other_env"), origin="generated", step=3)
    pool.rotate(8, max_age=1)
    pool.add("again", tiny("again", "third_env"), origin="generated", step=8)
    again = Pool.open(tmp_path / "pool")
    files = [e.file for e in again.history()]
    assert files == ["retired/again.races.retired", "retired/again.2.races.retired", "again.races"]
    assert again.entries["again"].origin == "generated" and not again.entries["again"].retired
    assert "third_env" in (tmp_path / "pool" / "again.races").read_text()
    assert again.summary()["retired"] == 2


def test_rotation_cut_short_is_finished_on_open(tmp_path, monkeypatch):
    pool = _pool(tmp_path, n=4)

    def crash(src, dst):
        raise KeyboardInterrupt  # killed after the manifest, before the first move

    monkeypatch.setattr(P, "_move", crash)
    with pytest.raises(KeyboardInterrupt):
        pool.rotate(10, max_age=2)
    monkeypatch.undo()
    root = pool.root
    assert (root / "m00.races").exists()  # still at the top, though the manifest retired it
    data = json.loads((root / "manifest.json").read_text())
    assert [e["retired"] for e in data["entries"]] == [True, True, True, True]
    again = Pool.open(root)
    assert list(root.glob("*.races")) == []
    assert sorted(p.name for p in (root / "retired").iterdir()) == [f"m{i:02d}.races.retired" for i in range(4)]
    assert all(e.retired and e.origin == "generated" for e in again.history())


def test_missing_active_file_is_an_error(tmp_path):
    pool = _pool(tmp_path, n=2)
    (pool.root / "m01.races").unlink()
    with pytest.raises(PoolError, match="m01.races"):
        Pool.open(pool.root)
