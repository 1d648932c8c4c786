"""EvoEnv's generator shape through the admission gates: a generator environment
(`@generate`, examples/generators/unscramble.races) is admitted end to end against the stdlib,
its tasks start with it and score from the drawn answers; one whose generator draws answers
outside its type stops at the sample gate with E610."""

from __future__ import annotations

from pathlib import Path

import pytest

from racesl.admit.context import Context
from racesl.admit.run import admit_text
from racesl.pool import Pool

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "generators" / "unscramble.races"
CANDIDATES = Path(__file__).parent / "candidates"


@pytest.fixture(scope="module")
def ctx():
    c = Context(Pool.open("stdlib"))
    yield c
    c.close()


def test_a_generator_environment_is_admitted(ctx):
    verdict, out = admit_text(EXAMPLE.read_text(encoding="utf-8"), str(EXAMPLE), ctx, isolate=False)
    assert verdict.admitted, (verdict.gate, verdict.reason)
    s = verdict.scores
    assert s["sample"]["envs"]["unscramble"]["ok"] == 1.0
    assert "declared" not in s["sample"]["envs"]["unscramble"]  # its inputs are only ever drawn
    c = s["contract"]
    assert c["tasks"] and c["reference_ok"] == c["tasks"] and c["perturbed_rejected"] > 0
    instances = out.material["instances"]  # (the calibration gate's tasks: sequential, parallel, ...)
    assert instances
    for r in instances:
        if r["operator"] != "parallel":
            assert r["chain"][0] == "unscramble.unscramble" and "unscramble.unscramble" not in r["chain"][1:]


def test_a_generator_drawing_outside_its_type_stops_at_sample(ctx):
    path = CANDIDATES / "generator_out_of_type.races"
    verdict, _ = admit_text(path.read_text(encoding="utf-8"), str(path), ctx, isolate=False)
    assert verdict.gate == "sample" and "E610" in verdict.reason, verdict.reason
