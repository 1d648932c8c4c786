"""Hugging Face datasets: `racesc compile --format hf DIR` saves a typed dataset folder that
round-trips (load, score: every gold answer 1.0), replaces an old one whole, and refuses a
folder that is not a dataset; `hf.load(...)` streams the same rows for the same arguments."""

from __future__ import annotations

from racesl.integrations import hf
from racesl.records import read_records
from racesl.rewards import score, verdict
from racesl.rewards.libraries import _LIBS
from tests.support.tasks import TOY, run_racesc, wrap


def test_compile_to_a_dataset_folder_round_trips(tmp_path):
    (tmp_path / "shop.races").write_text(TOY, encoding="utf-8")
    run_racesc("compile", "shop.races", "-n", 40, "-q", "-o", "ref.jsonl", "--no-audit",
               "--operators", "sequential=2-3,sort=2-3,loop=2-3", cwd=tmp_path)
    for n in (25, 40):  # the second compile replaces the first folder
        run_racesc("compile", "shop.races", "-n", n, "-q", "-o", "ds", "--format", "hf", "--no-audit",
                   "--operators", "sequential=2-3,sort=2-3,loop=2-3", cwd=tmp_path)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary left
    ds = hf.load_saved(tmp_path / "ds")
    assert len(ds) == 40 and ds.features == hf.features()
    records = [hf.to_record(row) for row in ds]
    assert records == read_records(tmp_path / "ref.jsonl")  # the same records as the JSONL compile
    assert records[0]["library"] in _LIBS  # load_saved registered the folder's library.json
    assert [score(r, wrap(r["answer"])) for r in records] == [1.0] * 40
    assert {verdict(r, "no idea").status for r in records} == {"no_answer"}


def test_format_hf_refuses_a_folder_that_is_no_dataset(tmp_path):
    (tmp_path / "ds").mkdir()
    (tmp_path / "ds" / "mine.txt").write_text("keep me")
    p = run_racesc("compile", "stdlib", "-n", 5, "-q", "-o", tmp_path / "ds", "--format", "hf", check=False)
    assert p.returncode == 2 and "not a saved dataset" in p.stderr
    assert (tmp_path / "ds" / "mine.txt").read_text() == "keep me"


def test_streamed_iterable_dataset_is_typed_and_repeatable():
    ops = "sequential=2-3,parallel=2-2,loop=2-3"
    rows = list(hf.load(seed=5, operators=ops, limit=30))
    again = list(hf.load(seed=5, operators=ops, limit=30))
    assert len(rows) == 30 and rows == again
    assert hf.load(seed=5, operators=ops, limit=3).features == hf.features()
    assert list(hf.load(seed=6, operators=ops, limit=30)) != rows
    records = [hf.to_record(r) for r in rows]
    assert {r["operator"] for r in records} <= {"sequential", "parallel", "loop"}
    assert all("<answer>" in r["prompt"] for r in records)
    assert [score(r, wrap(r["answer"])) for r in records] == [1.0] * 30
