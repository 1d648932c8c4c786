"""The messy corpus (tests/format/messy) formatted, against its snapshots, and formatting a
snapshot again changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from racesl.format import format_source
from tests.support.golden import snapshot_problem

HERE = Path(__file__).parent
MESSY = sorted((HERE / "messy").glob("*.races"))
REGENERATE = "pytest tests/format/test_snapshots.py"


@pytest.mark.parametrize("path", MESSY, ids=lambda p: p.stem)
def test_messy_module_formats_to_its_snapshot(path: Path):
    text = path.read_text(encoding="utf-8")
    result = format_source(text, str(path))
    assert result.ok
    assert result.text != text  # (the corpus is messy: each file has something to fix)
    problem = snapshot_problem(HERE / "snapshots" / path.name, result.text, REGENERATE)
    assert problem is None, problem
    assert format_source(result.text, str(path)).text == result.text
