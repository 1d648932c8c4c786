"""docs/format.md states the decorators' canonical order: the one table the formatter sorts by."""

from __future__ import annotations

import re
from pathlib import Path

from racesl.syntax.decorators import DECORATORS

DOC = Path(__file__).resolve().parents[2] / "docs" / "format.md"


def test_the_documented_order_is_the_formatters():
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    line = re.search(r"\*\*Decorators\*\* in the order (.*?) \(the checker", text)
    assert line is not None
    assert re.findall(r"`@(\w+)`", line[1]) == list(DECORATORS)
