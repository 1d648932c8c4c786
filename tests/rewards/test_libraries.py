"""Finding the library a record names: sidecars, RACESL_LIBRARY_PATH, hash checks."""

from __future__ import annotations

import json

import pytest

from racesl.compile import compile_tasks
from racesl.library import load
from racesl.records import to_record
from racesl.rewards import Verdict, libraries, load_sidecar, score, verdict, write_sidecar
from racesl.search.config import CompileConfig, Filters, parse_operators
from tests.support.tasks import TOY, oracle_reaches, wrap


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    d = tmp_path_factory.mktemp("lib")
    (d / "shop.races").write_text(TOY, encoding="utf-8")
    lib = load([d / "shop.races"])
    # sort_orders=1 keeps sorts that other orders solve too: answers that need re-execution
    tasks, _ = compile_tasks(lib, CompileConfig(n=60, seed=0, operators=parse_operators("sort=2-3,select=2-3"),
                                                filters=Filters(sort_orders=1.0)))
    records = [to_record(t, k, 0, lib.hash) for k, t in enumerate(tasks)]
    return d, lib, records


@pytest.fixture
def fresh(monkeypatch):
    """An empty registry: nothing found unless a sidecar provides it."""
    monkeypatch.setattr(libraries, "_LIBS", {})
    monkeypatch.setattr(libraries, "_SCANNED", {"stdlib"})
    monkeypatch.delenv("RACESL_LIBRARY_PATH", raising=False)


def _needs_reexecution(lib, records):
    """(record, answer) pairs that score 1 only by re-executing: a selection or order that
    reaches the target but is not the recorded one."""
    import itertools

    out = []
    for r in records:
        labels = r["answer"].split(", ")
        n = len(r["extra"]["candidates"])
        pool = itertools.permutations(labels) if r["operator"] == "sort" else \
            (p for k in (1, 2) for p in itertools.permutations([chr(65 + i) for i in range(n)], k))
        for p in pool:
            if list(p) != labels and oracle_reaches(lib, r, list(p)):
                out.append((r, ", ".join(p)))
                break
    return out


def test_sidecar_round_trip(toy, tmp_path, fresh):
    d, lib, records = toy
    side = tmp_path / "t.jsonl.library.json"
    write_sidecar(lib, side)
    data = json.loads(side.read_text())
    assert data["format"] == libraries.FORMAT and data["library"] == lib.hash
    assert data["modules"] == {"shop": TOY}
    again = load_sidecar(side)
    assert again.hash == lib.hash and set(again.envs) == set(lib.envs)
    assert libraries.library_for(lib.hash) is again
    assert load_sidecar(side) is again  # registered once


def test_scoring_needs_the_library(toy, tmp_path, fresh, monkeypatch):
    d, lib, records = toy
    # not findable yet: nothing is judged, the recorded answer included (it used to score 1)
    for r in records:
        v = verdict(r, wrap(r["answer"]))
        assert (v.score, v.status) == (0.0, "library_missing") and lib.hash in v.detail
        assert score(r, wrap(r["answer"])) == 0.0
    pairs = _needs_reexecution(lib, records)
    assert pairs, "the toy library should allow other orders/selections"
    for r, a in pairs:
        assert score(r, wrap(a)) == 0.0
    side = tmp_path / "found" / "x.library.json"
    side.parent.mkdir()
    write_sidecar(lib, side)
    monkeypatch.setenv("RACESL_LIBRARY_PATH", f"{tmp_path / 'nothing-here'}:{side.parent}")
    for r, a in pairs:
        assert score(r, wrap(a)) == 1.0
    for r in records:
        assert verdict(r, wrap(r["answer"])) == Verdict(1.0, "ok", "right")


def test_library_path_may_name_a_file(toy, tmp_path, fresh, monkeypatch):
    _, lib, _ = toy
    side = tmp_path / "one.json"
    write_sidecar(lib, side)
    monkeypatch.setenv("RACESL_LIBRARY_PATH", str(side))
    assert libraries.library_for(lib.hash).hash == lib.hash
    assert libraries.library_for("sha256:" + "0" * 64) is None


def test_bad_sidecars(toy, tmp_path, fresh, monkeypatch):
    _, lib, _ = toy
    side = tmp_path / "bad.library.json"
    write_sidecar(lib, side)
    data = json.loads(side.read_text())
    side.write_text(json.dumps(dict(data, format="other/1")))
    with pytest.raises(ValueError, match="not a racesl library"):
        load_sidecar(side)
    side.write_text(json.dumps(dict(data, library="sha256:" + "1" * 64)))
    with pytest.raises(ValueError, match="mismatch"):
        load_sidecar(side)
    side.write_text(json.dumps(dict(data, modules={"shop": TOY + "\nenv broken(\n"})))
    with pytest.raises(ValueError):
        load_sidecar(side)
    # on the search path, a broken sidecar is skipped, not fatal
    (tmp_path / "junk.library.json").write_text("{not json")
    monkeypatch.setenv("RACESL_LIBRARY_PATH", str(tmp_path))
    assert libraries.library_for(lib.hash) is None
