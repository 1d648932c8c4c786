"""Generator environments are not starved by the search (issue 45): a source can only start a
chain, so the start draw weighs it up (racesl.search.engine.source_boost), and it is used
about as often as any other environment, in sequential chains too.

Measured (stdlib + examples/generators/unscramble.races, `-n 3000 --seed 3`): before the
boost `unscramble` was used in 14 tasks (the median environment: 39) and in 1 sequential
chain; with it, 45 (median 38), in 7 sequential chains."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from racesl.search.config import CompileConfig
from racesl.search.engine import source_boost
from tests.support.tasks import run_racesc

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "generators" / "unscramble.races"
GEN = "unscramble.unscramble"


def test_the_boost_follows_the_operators():
    default = source_boost(CompileConfig(), 390, 350)
    assert 4 < default < 10  # sizes 2-12 and 2-6: about five environments a task, one a start
    chains_only = source_boost(CompileConfig(operators=(("sequential", 3, 3),)), 100, 100)
    assert chains_only == pytest.approx(3.0)  # a chain of 3: any other environment is in it 3 times as often
    assert source_boost(CompileConfig(operators=(("parallel", 2, 4),)), 100, 100) == 1.0  # no chain to start
    assert source_boost(CompileConfig(), 0, 0) == 1.0
    # fewer starts than environments: each start is drawn more often already
    assert source_boost(CompileConfig(), 390, 175) == pytest.approx(default / 2)


@pytest.mark.slow
def test_a_generator_is_used_like_any_other_environment(tmp_path):
    out = tmp_path / "tasks.jsonl"
    p = run_racesc("compile", REPO / "stdlib", EXAMPLE, "-n", "3000", "--seed", "3", "-o", out, "--json",
                   "--workers", "2", timeout=1200)
    summary = json.loads(p.stdout)
    assert summary["tasks"] == 3000
    usage = summary["usage"]
    median = statistics.median(usage.values())
    assert usage[GEN] >= median / 2, (usage[GEN], median)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    sequential = sum(1 for r in records if r["operator"] == "sequential" and GEN in r["chain"])
    assert sequential >= 1
    for r in records:  # a source only ever starts a chain
        if r["operator"] in ("sequential", "sort", "select") and GEN in r["chain"]:
            assert r["chain"].index(GEN) == 0
