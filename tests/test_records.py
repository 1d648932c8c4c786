"""Task records: to_record, atomic writes, JSONL / Parquet / verl round trips."""

from __future__ import annotations

import json
import os
import stat

import pyarrow.parquet as pq
import pytest

from racesl.atomic import atomic_write
from racesl.records import COLUMNS, read_records, write_jsonl, write_parquet, write_verl
from racesl.rewards import score
from tests.support.tasks import OPERATORS, one_per_operator, stdlib_records, wrap


@pytest.fixture(scope="module")
def records():
    recs = stdlib_records(600, 0)
    assert {r["operator"] for r in recs} == set(OPERATORS)
    return recs


def _leftovers(d):
    return sorted(p.name for p in d.iterdir() if p.name.endswith(".part"))


# ------------------------------------------------------------ atomic_write


def test_atomic_write_success(tmp_path):
    target = tmp_path / "sub" / "out.txt"
    atomic_write(target, lambda tmp: open(tmp, "w").write("new"))
    assert target.read_text() == "new"
    assert _leftovers(target.parent) == []


def test_atomic_write_gives_the_mode_a_new_file_gets(tmp_path):
    """Not mkstemp's private 0o600: the umask applies, as for any file the user creates."""
    mask = os.umask(0o022)
    os.umask(mask)
    target = tmp_path / "out.txt"
    atomic_write(target, lambda tmp: open(tmp, "w").write("new"))
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    assert stat.S_IMODE(target.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)


@pytest.mark.parametrize("exc", [RuntimeError("disk full"), KeyboardInterrupt()])
def test_atomic_write_failure_keeps_the_old_file(tmp_path, exc):
    target = tmp_path / "out.txt"
    target.write_text("old complete file")

    def writer(tmp):
        with open(tmp, "w") as f:
            f.write("half of a new fi")
        raise exc

    with pytest.raises(type(exc)):
        atomic_write(target, writer)
    assert target.read_text() == "old complete file"
    assert _leftovers(tmp_path) == []


def test_atomic_write_failure_without_old_file(tmp_path):
    target = tmp_path / "out.jsonl"

    def records():
        yield {"a": 1}
        raise ValueError("the generator broke")

    with pytest.raises(ValueError):
        write_jsonl(records(), target)
    assert not target.exists()
    assert os.listdir(tmp_path) == []


def test_atomic_write_writer_that_removes_its_tmp(tmp_path):
    """A writer that fails after deleting the temporary file must not mask its own error."""
    target = tmp_path / "out.txt"

    def writer(tmp):
        os.unlink(tmp)
        raise OSError("gone")

    with pytest.raises(OSError, match="gone"):
        atomic_write(target, writer)
    assert os.listdir(tmp_path) == []


# ------------------------------------------------------------ round trips


def test_record_fields(records):
    for k, r in enumerate(records):
        assert tuple(r) == COLUMNS
        assert r["id"] == f"races-0-{k:06d}" and r["seed"] == 0
        assert r["library"].startswith("sha256:") and len(r["library"]) == 7 + 64
        assert r["size"] >= 1 and r["steps"] >= 0
        assert isinstance(r["settings"], list) and all(isinstance(s, dict) for s in r["settings"])
        assert len(r["settings"]) == len(r["chain"])
        assert all(isinstance(v, str) for s in r["settings"] for v in s.values())
    assert len({r["id"] for r in records}) == len(records)


def test_jsonl_round_trip(records, tmp_path):
    out = tmp_path / "t.jsonl"
    write_jsonl(records, out)
    lines = out.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == len(records) + 1
    assert read_records(out) == records
    assert _leftovers(tmp_path) == []


def test_parquet_round_trip(records, tmp_path):
    out = tmp_path / "t.parquet"
    write_parquet(records, out)
    table = pq.read_table(out)
    assert tuple(table.column_names) == COLUMNS
    assert table.num_rows == len(records)
    back = read_records(out)
    assert back == records
    for r in one_per_operator(back).values():
        assert score(r, wrap(r["answer"])) == 1.0


def test_parquet_is_reproducible(records, tmp_path):
    write_parquet(records, tmp_path / "a.parquet")
    write_parquet(records, tmp_path / "b.parquet")
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


def test_unicode_survives(tmp_path):
    rec = {c: None for c in COLUMNS}
    rec.update(id="races-0-000000", operator="loop", size=2, chain=["m.e"], settings=[{"k": "'é'"}], input="'ü😀'",
               trace=["'a'", "'b'"], prompt="größe → 😀", answer="'b'", steps=1, level=0, seed=0,
               library="sha256:" + "0" * 64, extra={"times": 2, "note": "ñ"})
    for name in ("u.jsonl", "u.parquet"):
        (write_jsonl if name.endswith("jsonl") else write_parquet)([rec], tmp_path / name)
        assert read_records(tmp_path / name) == [rec]
    assert "größe" in (tmp_path / "u.jsonl").read_text(encoding="utf-8")  # not \\u-escaped


def test_verl_columns(records, tmp_path):
    out = tmp_path / "v.parquet"
    write_verl(records, out, data_source="races-test")
    table = pq.read_table(out)
    assert table.column_names == ["data_source", "prompt", "ability", "reward_model", "extra_info"]
    rows = table.to_pylist()
    assert len(rows) == len(records)
    for k, (row, rec) in enumerate(zip(rows, records)):
        assert row["data_source"] == "races-test"
        assert row["prompt"] == [{"role": "user", "content": rec["prompt"]}]
        assert row["ability"] == f"races/{rec['operator']}"
        assert row["reward_model"]["ground_truth"] == rec["answer"]
        assert row["reward_model"]["style"] == "rule"
        assert row["extra_info"]["index"] == k and row["extra_info"]["id"] == rec["id"]
        assert json.loads(row["extra_info"]["record"]) == rec
    assert read_records(out) == records


@pytest.mark.parametrize("fmt", ["parquet", "verl"])
def test_parquet_streams_in_row_groups(records, tmp_path, monkeypatch, fmt):
    """A writer holds one row group at a time; the file reads back as the records, whatever
    the row group size, and is the same file for the same records."""
    import racesl.records as rec
    from racesl.records import write_records

    monkeypatch.setattr(rec, "ROW_GROUP", 7)
    write_records(records, tmp_path / "a.parquet", fmt)
    write_records(records, tmp_path / "b.parquet", fmt)
    meta = pq.ParquetFile(tmp_path / "a.parquet").metadata
    assert meta.num_row_groups == -(-len(records) // 7) and meta.num_rows == len(records)
    assert read_records(tmp_path / "a.parquet") == records
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "verl"])
def test_no_records_is_a_valid_empty_file(tmp_path, fmt):
    from racesl.records import write_records

    write_records([], tmp_path / "e.out", fmt)
    assert read_records(tmp_path / "e.out") == [] if fmt == "jsonl" else pq.read_table(tmp_path / "e.out").num_rows == 0


def test_unknown_format_is_refused(tmp_path):
    from racesl.records import RecordWriter

    with pytest.raises(ValueError, match="unknown format 'csv'"):
        RecordWriter(tmp_path / "x", "csv")


def test_a_task_file_of_any_size_is_read_and_a_line_past_the_bound_is_refused(records, tmp_path, monkeypatch):
    """A compile writes any number of records (300,000 stdlib tasks: 786 MB, past the bound a
    user's JSON file may have), so task files are bounded by the line, not the file: with the
    bound lowered under the file's size and above each line, every reader still reads it; a
    longer line is one `FILE:N:` error, read in pieces (never held whole)."""
    import racesl.userfiles as U
    from racesl.records import RecordError, read_task_records

    path = tmp_path / "t.jsonl"
    write_jsonl(records, path)
    longest = max(len(line) for line in path.read_bytes().splitlines(keepends=True))
    monkeypatch.setattr(U, "MAX_BYTES", longest)
    assert path.stat().st_size > U.MAX_BYTES
    assert read_task_records(path) == read_records(path) == [json.loads(x) for x in path.read_text().splitlines()]
    monkeypatch.setattr(U, "MAX_BYTES", longest - 1)
    with pytest.raises(RecordError, match=r"t\.jsonl:\d+: the line is longer than a record may be"):
        read_task_records(path)
