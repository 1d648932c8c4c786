"""The breadth of the stdlib, computed from `racesc graph stdlib --format json`: at least 300
environments over at least 24 type shapes (refinements erased, newtypes kept), each shape met
by at least 4 environments, and every shape joined to the original nine both ways."""

from __future__ import annotations

import json
import subprocess
import sys

import networkx as nx
import pytest

ORIGINAL = {"Int", "Bool", "Str", "List[Int]", "Tuple[Int, Int]", "Dict[Int, Int]", "Dict[Str, Int]",
            "grids.Grid", "graphs.Graph"}


@pytest.fixture(scope="module")
def data():
    done = subprocess.run([sys.executable, "-m", "racesl", "graph", "stdlib", "--format", "json", "--no-solver"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_counts(data):
    nodes = data["nodes"]
    assert len(nodes) >= 300
    met: dict[str, set[str]] = {}
    for n in nodes:
        for shape in {n["input_shape"], n["output_shape"]}:
            met.setdefault(shape, set()).add(n["id"])
    assert len(met) >= 24, sorted(met)
    thin = {shape: len(envs) for shape, envs in met.items() if len(envs) < 4}
    assert not thin, thin


def test_every_shape_reaches_the_original_ones_both_ways(data):
    g = nx.MultiDiGraph()
    for n in data["nodes"]:
        g.add_edge(n["input_shape"], n["output_shape"])
    old = ORIGINAL & set(g.nodes)
    assert old == ORIGINAL
    for shape in set(g.nodes) - ORIGINAL:
        assert nx.descendants(g, shape) & old, f"{shape} leads to none of the original shapes"
        assert nx.ancestors(g, shape) & old, f"no original shape leads to {shape}"
