"""`racesc compile --shard K/N`: shards built apart, concatenated in order, are byte for byte
the single-machine output (records and ids alike)."""

from __future__ import annotations

import pytest

from racesl import resources
from tests.support.tasks import run_racesc

N = 3000


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    d = tmp_path_factory.mktemp("shards")
    (d / "races.toml").write_text(f'[compile]\nsources = ["{resources.stdlib_dir()}"]\nn = {N}\nseed = 8\n'
                                  "block = 1000\n", encoding="utf-8")
    run_racesc("compile", "--no-audit", "-q", "-o", d / "whole.jsonl", cwd=d)
    return d


@pytest.mark.parametrize("of", [2, 3, 5])
def test_shards_concatenated_are_the_whole_output(project, tmp_path, of):
    parts = []
    for k in range(1, of + 1):
        out = tmp_path / f"part{k}.jsonl"
        run_racesc("compile", "--no-audit", "-q", "--shard", f"{k}/{of}", "-o", out, cwd=project)
        parts.append(out.read_bytes())
        assert (tmp_path / f"part{k}.jsonl.library.json").exists()
    assert b"".join(parts) == (project / "whole.jsonl").read_bytes()
    assert any(not p for p in parts) == (of > 3)  # five shards of three blocks: two are empty


def test_a_shard_with_workers_is_the_same_shard(project, tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    run_racesc("compile", "--no-audit", "-q", "--shard", "2/3", "-o", a, cwd=project)
    run_racesc("compile", "--no-audit", "-q", "--shard", "2/3", "--workers", 2, "-o", b, cwd=project)
    assert a.read_bytes() == b.read_bytes()
    assert a.read_text().splitlines()[0].startswith('{"id":"races-8-001000"')


@pytest.mark.parametrize("spec", ["0/3", "4/3", "2", "a/b", "1/0", "-1/2"])
def test_a_bad_shard_is_a_usage_error(project, spec):
    p = run_racesc("compile", "-q", "--shard", spec, "-o", "x.jsonl", cwd=project, check=False)
    assert p.returncode == 2 and "--shard" in p.stderr and "K/N" in p.stderr
    assert "Traceback" not in p.stderr
