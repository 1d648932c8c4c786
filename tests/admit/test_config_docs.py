"""Every [admit] key is documented in docs/evolve.md's config block, with its default."""

from __future__ import annotations

import re
from pathlib import Path

import attrs

from racesl.admit.context import AdmitConfig

DOC = Path(__file__).resolve().parents[2] / "docs" / "evolve.md"


def test_every_admit_key_is_documented_with_its_default():
    text = DOC.read_text(encoding="utf-8")
    block = text[text.index("\n[admit]") + 1:]
    block = block[:block.index("\n\n")]
    documented = dict(re.findall(r"^(\w+) = (\S+)", block, flags=re.MULTILINE))
    defaults = attrs.asdict(AdmitConfig())
    assert set(documented) == set(defaults)
    for key, value in defaults.items():
        assert float(documented[key]) == float(value), key
