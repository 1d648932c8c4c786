"""A pool folder someone else wrote: manifest paths that lead out, files that are not regular,
corrupt manifests, and rotation that would strand an importer. Each is one PoolError line (or,
for a file the pool did not name, a warning and a skip); nothing outside the folder is touched."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from racesl.pool import Pool, PoolError
from tests.pool.helpers import seed_folder, tiny


def _pool(tmp_path):
    pool = Pool.open(tmp_path / "pool", seeds=(str(seed_folder(tmp_path)),))
    pool.add("first", tiny("first"), origin="admitted", envs=["first.triple_plus"])
    return pool


def _edit(root, **changes):
    path = root / "manifest.json"
    data = json.loads(path.read_text())
    for k, v in changes.items():
        if k == "entry":
            data["entries"][0].update(v)
        else:
            data[k] = v
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("file", ["../outside/created/authorized_keys", "/tmp/x.races", "sub/first.races",
                                  "retired/../../x.races.retired", "first.races/../first.races"])
def test_manifest_file_that_leaves_the_folder_is_refused(tmp_path, file):
    root = _pool(tmp_path).root
    _edit(root, entry={"file": file})
    with pytest.raises(PoolError, match="manifest") as e:
        Pool.open(root)
    assert "\n" not in str(e.value)
    assert not (tmp_path / "outside").exists()


def test_retired_file_that_leaves_the_folder_is_refused(tmp_path):
    root = _pool(tmp_path).root
    _edit(root, entry={"file": "../outside/first.races.retired", "retired": True, "retired_step": 0})
    with pytest.raises(PoolError, match="retired"):
        Pool.open(root)
    assert not (tmp_path / "outside").exists()


def test_symlink_out_is_refused(tmp_path):
    root = _pool(tmp_path).root
    outside = tmp_path / "elsewhere.races"
    outside.write_text(tiny("first"))
    (root / "first.races").unlink()
    (root / "first.races").symlink_to(outside)
    with pytest.raises(PoolError, match="outside the pool folder"):
        Pool.open(root)


def test_retired_folder_linking_out_is_refused_before_anything_moves(tmp_path):
    pool = _pool(tmp_path)
    (tmp_path / "out").mkdir()
    (pool.root / "retired").symlink_to(tmp_path / "out")
    with pytest.raises(PoolError, match="outside the pool folder"):
        pool.rotate(1, seed_floor=1.0)
    assert list((tmp_path / "out").iterdir()) == []
    assert (pool.root / "first.races").is_file()


def test_fifo_in_the_folder_is_skipped_with_a_warning(tmp_path):
    root = _pool(tmp_path).root
    os.mkfifo(root / "x.races")
    pool = Pool.open(root)  # (reading the FIFO would block forever)
    assert [e.module for e in pool.active()] == ["first"]
    assert any("x.races" in w and "not a regular file" in w for w in pool.warnings)
    # and `racesc admit` says so (a candidate that stops at parse keeps this quick)
    (tmp_path / "cand.races").write_text("this is not a module\n")
    p = subprocess.run([sys.executable, "-m", "racesl", "admit", str(tmp_path / "cand.races"), "--pool", str(root),
                        "--dry-run"], capture_output=True, text=True, timeout=120, env=dict(os.environ, NO_COLOR="1"))
    assert "warning:" in p.stderr and "x.races" in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_symlinked_stray_module_is_skipped_not_adopted(tmp_path):
    root = _pool(tmp_path).root
    (tmp_path / "other.races").write_text(tiny("other"))
    (root / "other.races").symlink_to(tmp_path / "other.races")
    pool = Pool.open(root)
    assert "other" not in pool.module_names()
    assert any("outside the pool folder" in w for w in pool.warnings)


def test_active_entry_that_is_a_fifo_is_refused(tmp_path):
    root = _pool(tmp_path).root
    (root / "first.races").unlink()
    os.mkfifo(root / "first.races")
    with pytest.raises(PoolError, match="not a regular file"):
        Pool.open(root)


@pytest.mark.parametrize("text, words", [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"version": 1, "seeds": [], "step": -1, "entries": []}', "non-negative"),
    ('{"version": 1, "seeds": [], "step": 0, "entries": [{"module": "a", "file": "a.races", "sha256": "x", '
     '"origin": "admitted", "step": -1}]}', "non-negative"),
    ('{"version": 1.0, "seeds": [], "step": 0, "entries": []}', "version"),
    ('{"version": 1, "seeds": [], "step": 0, "entries": [' + "[" * 50_000 + "]" * 50_000 + ']}', "manifest"),
    ('{"version": 1, "seeds": [], "step": 1' + "0" * 5000 + ', "entries": []}', "manifest"),
])
def test_corrupt_manifest_is_one_line(tmp_path, text, words):
    root = tmp_path / "pool"
    root.mkdir()
    (root / "manifest.json").write_text(text)
    with pytest.raises(PoolError, match=words) as e:
        Pool.open(root)
    assert "\n" not in str(e.value) and len(str(e.value)) < 1000


def test_manifest_that_is_a_fifo_is_refused(tmp_path):
    root = tmp_path / "pool"
    root.mkdir()
    os.mkfifo(root / "manifest.json")
    with pytest.raises(PoolError, match="not a regular file"):
        Pool.open(root)


def test_cli_corrupt_manifest_exits_2_with_one_line(tmp_path):
    root = tmp_path / "pool"
    root.mkdir()
    (root / "manifest.json").write_text("[" * 100_000)
    cand = tmp_path / "c.races"
    cand.write_text(tiny("cand"))
    r = subprocess.run([sys.executable, "-m", "racesl", "admit", "--pool", str(root), str(cand)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "Traceback" not in r.stderr, r.stderr


USER = '''module user

import first

env shifted(n: first.Nat) -> Int where 1 <= it <= 1509:
    """Return 3 times n plus 1."""
    return first.triple_plus(n, 1)
'''


def test_rotation_never_strands_an_importer(tmp_path):
    pool = _pool(tmp_path)
    pool.add("user", USER, origin="admitted", step=5, envs=["user.shifted"])
    pool.add("late", tiny("late"), origin="admitted", step=5, envs=["late.triple_plus"])
    retired = pool.rotate(5, max_age=2)  # `first` is too old; `user` imports it
    by = {e.module: e.reason for e in retired}
    assert "first" in by and "older than 2" in by["first"]
    assert by.get("user") == "imports first, retired at the same step"
    assert [e.module for e in pool.active()] == ["late"]
    for e in pool.active():  # no active module imports a retired one
        text = (pool.root / e.file).read_text()
        assert "import first" not in text
