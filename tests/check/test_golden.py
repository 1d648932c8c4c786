from __future__ import annotations

from pathlib import Path

import pytest

from racesl.check import check_paths
from racesl.diagnostics import CODES
from tests.support.golden import chunks, compare

GOLDEN = Path(__file__).parent / "golden"
ALL = [c for f in sorted(GOLDEN.glob("*.races")) for c in chunks(f)]


def diagnose(chunk, tmp_path: Path):
    src = tmp_path / "golden_case.races"
    src.write_text(chunk.text, encoding="utf-8")
    checked = check_paths([src])
    diags = list(checked.diagnostics)
    if "#! probe" in chunk.text and checked.ok:
        from racesl.library import Library
        from racesl.probe import SeedProbe, probe_env, set_builders

        from racesl.graph.diagnostics import composition_diagnostics
        from racesl.graph.signature import build_graph

        from racesl.library import ConstantError

        try:
            lib = Library(checked)
        except ConstantError as e:  # a module constant that does not evaluate (E443)
            return diags + [e.diagnostic]
        graph, solver = build_graph(lib.envs.values(), True)
        diags += composition_diagnostics(graph, lib.root_envs, solver)
        seeds = SeedProbe(lib, set_builders(lib, lib.root_envs))  # E601 under other hash seeds
        try:
            for env in lib.root_envs:
                diags += probe_env(lib, env, 30, 0, seeds=seeds)[1]
            diags += seeds.finish()
        finally:
            seeds.close()
    return diags


@pytest.mark.parametrize("chunk", ALL, ids=[c.id for c in ALL])
def test_golden_chunk(chunk, tmp_path):
    problems = compare(chunk, diagnose(chunk, tmp_path))
    assert not problems, "\n".join(problems)


def test_every_code_has_a_golden_case():
    text = "\n".join(f.read_text() for f in GOLDEN.glob("*.races")) + \
        "\n".join(f.read_text() for f in (Path(__file__).parent).glob("test_*.py"))
    missing = [code for code in CODES if code not in text]
    assert not missing, f"diagnostic codes without a golden test: {missing}"
