"""Opening, adding, reopening; refusals; the manifest's bytes and its errors."""

from __future__ import annotations

import json

import pytest

from racesl import resources
from racesl.pool import Entry, Pool, PoolError
from tests.pool.helpers import seed_folder, tiny


def test_stdlib_pool_is_read_only_and_holds_the_bundled_library():
    pool = Pool.open("stdlib")
    assert pool.root is None and not pool.writable and pool.seeds == ("stdlib",)
    assert pool.seed_paths() == sorted(resources.stdlib_dir().glob("*.races"))
    assert pool.admitted_paths() == [] and pool.paths() == pool.seed_paths()
    assert pool.include() == [resources.stdlib_dir()]
    assert {"numbers", "strings"} <= pool.module_names()
    with pytest.raises(PoolError, match="read-only"):
        pool.add("mine", tiny("mine"), origin="admitted")
    with pytest.raises(PoolError, match="read-only"):
        pool.rotate(1)
    with pytest.raises(PoolError, match="read-only"):
        pool.advance(1)


def test_create_add_reopen(tmp_path):
    root = tmp_path / "pool"
    pool = Pool.open(root)
    assert pool.writable and pool.root == root and pool.entries == {} and pool.step == 0
    assert json.loads((root / "manifest.json").read_text())["entries"] == []
    e = pool.add("tinypool", tiny(), origin="generated", generator="qwen-0.5b", step=3,
                 scores={"novelty": {"behaviour": 0.5}, "judge": 0.9}, fingerprints={"text": "abc"},
                 parents=["numbers.add_k"], envs=["tinypool.triple_plus"])
    assert isinstance(e, Entry) and e.file == "tinypool.races" and e.sha256.startswith("sha256:")
    assert (root / "tinypool.races").read_text() == tiny()
    again = Pool.open(root)
    assert again.entries["tinypool"] == e
    assert again.admitted_paths() == [root / "tinypool.races"]
    assert again.include()[0] == root and resources.stdlib_dir() in again.include()
    assert "tinypool" in again.module_names() and "numbers" in again.module_names()
    assert again.paths()[-1] == root / "tinypool.races"
    s = again.summary()
    assert (s["active"], s["retired"], s["active_envs"], s["by_origin"]) == (1, 0, 1, {"generated": 1})
    assert s["seed_modules"] == len(list(resources.stdlib_dir().glob("*.races")))
    assert s["seed_envs"] > 100


def test_step_defaults_and_advance_persist(tmp_path):
    pool = Pool.open(tmp_path / "p")
    pool.advance(5)
    assert pool.add("m1", tiny("m1"), origin="admitted").step == 5
    pool.step = 7
    assert Pool.open(tmp_path / "p").step == 7
    with pytest.raises(PoolError, match="does not go back"):
        pool.advance(6)
    with pytest.raises(ValueError):
        pool.advance(-1)


def test_refuses_duplicates_seed_names_and_bad_input(tmp_path):
    pool = Pool.open(tmp_path / "p")
    pool.add("mine", tiny("mine"), origin="admitted")
    with pytest.raises(PoolError, match="already has an active module 'mine'"):
        pool.add("mine", tiny("mine"), origin="admitted")
    with pytest.raises(PoolError, match="seed module"):
        pool.add("numbers", tiny("numbers"), origin="admitted")
    with pytest.raises(PoolError, match="not a module name"):
        pool.add("bad-name", tiny(), origin="admitted")
    with pytest.raises(PoolError, match="origin"):
        pool.add("other", tiny("other"), origin="recovered")
    with pytest.raises(PoolError, match="plain JSON"):
        pool.add("other", tiny("other"), origin="admitted", scores={"x": float("nan")})
    with pytest.raises(PoolError, match="list of names"):
        pool.add("other", tiny("other"), origin="admitted", parents="numbers.add_k")
    with pytest.raises(PoolError, match="non-negative"):
        pool.add("other", tiny("other"), origin="admitted", step=-2)
    assert not (tmp_path / "p" / "other.races").exists()  # refused before anything was written
    assert set(Pool.open(tmp_path / "p").entries) == {"mine"}


def test_folder_seeds_are_stored_relative_to_the_pool(tmp_path, monkeypatch):
    seeds = seed_folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    pool = Pool.open("pool", seeds=("seeds",))
    assert pool.seeds == ("../seeds",)
    monkeypatch.chdir(seeds)  # another working folder: the manifest means the same
    again = Pool.open(tmp_path / "pool")
    assert [p.resolve() for p in again.seed_paths()] == [(seeds / "fakeseed.races").resolve()]
    assert again.seed_env_count() == 2 and again.module_names() == {"fakeseed"}
    with pytest.raises(PoolError, match="seed module"):
        again.add("fakeseed", tiny("fakeseed"), origin="admitted")
    assert again.add("numbers", tiny("numbers"), origin="admitted").module == "numbers"  # not a seed here


def test_open_errors(tmp_path):
    (tmp_path / "afile").write_text("x")
    with pytest.raises(PoolError, match="not a pool folder"):
        Pool.open(tmp_path / "afile")
    with pytest.raises(PoolError, match="manifest.json missing"):
        Pool.open(tmp_path / "none", create=False)
    with pytest.raises(PoolError, match="no such file"):
        Pool.open(tmp_path / "p", seeds=(str(tmp_path / "nowhere"),))
    with pytest.raises(PoolError, match="bundled standard library"):
        Pool.open(resources.stdlib_dir())


@pytest.mark.parametrize("text, match", [
    ("{not json", "cannot read the pool manifest"),
    ("[1, 2]", "not a pool manifest"),
    ('{"version": 2, "seeds": [], "step": 0, "entries": []}', "version 2"),
    ('{"version": 1, "seeds": ["stdlib"], "step": "x", "entries": []}', "malformed"),
    ('{"version": 1, "seeds": ["stdlib"], "step": 0, "entries": [{"module": "m"}]}', "malformed"),
    ('{"version": 1, "seeds": ["stdlib"], "step": 0, "entries": [], "extra": 1}', "unknown keys"),
])
def test_corrupt_manifest_is_a_pool_error_with_a_hint(tmp_path, text, match):
    root = tmp_path / "p"
    root.mkdir()
    (root / "manifest.json").write_text(text)
    with pytest.raises(PoolError, match=match) as info:
        Pool.open(root)
    msg = str(info.value)
    assert str(root / "manifest.json") in msg
    assert "restore" in msg or "upgrade" in msg
    assert isinstance(info.value, ValueError) and info.value.__cause__ is None


def test_manifest_bytes_are_deterministic(tmp_path):
    def build(root, order):
        pool = Pool.open(root)
        for name in order:
            pool.add(name, tiny(name), origin="admitted", step=1,
                     scores={"z": 1, "a": {"y": 2.5, "b": [1, 2]}}, fingerprints={"text": "t", "env": "e"},
                     envs=[f"{name}.triple_plus"])
        pool.rotate(4, max_age=1)
        return (root / "manifest.json").read_bytes()

    a = build(tmp_path / "a", ["m2", "m1", "m3"])
    b = build(tmp_path / "b", ["m1", "m3", "m2"])
    assert a == b
    data = json.loads(a)
    assert list(data) == ["version", "seeds", "step", "entries"] and data["version"] == 1
    assert [e["module"] for e in data["entries"]] == ["m1", "m2", "m3"]
    assert list(data["entries"][0]["scores"]) == ["a", "z"]
    assert all(e["retired"] and e["retired_step"] == 4 for e in data["entries"])
