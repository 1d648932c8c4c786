"""The views people read: by type, around one environment, one module; and the HTML page."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from racesl.graph import views
from racesl.graph.html import to_html
from racesl.types import types as T
from tests.support.signatures import signature_graph, write_modules


@pytest.fixture(scope="module")
def geo(tmp_path_factory):
    d = write_modules(tmp_path_factory.mktemp("views"))
    return d, signature_graph(d)[1]


def test_by_type_has_one_edge_per_environment(geo):
    _, g = geo
    t = views.by_type(g)
    assert t.number_of_edges() == len(g.envs)
    for q, e in g.envs.items():
        assert t.has_edge(T.shape_name(e.input), T.shape_name(e.output), key=q)
    data = views.type_json(g)
    assert sum(len(e["envs"]) for e in data["edges"]) == len(g.envs)
    shapes = {s["shape"]: s for s in data["shapes"]}
    assert "geo.Grid" in shapes and "other.Grid" in shapes  # newtypes keep their names
    assert shapes["geo.Grid"]["read_by"] == sum(1 for e in g.envs.values() if T.shape_name(e.input) == "geo.Grid")


def test_type_dot_labels_edges_with_environments(geo):
    _, g = geo
    dot = views.type_dot(g)
    assert '"Int" -> "geo.Grid" [label="geo.any_grid, geo.make_grid"' in dot
    assert len(re.findall(r" -> ", dot)) == len({(T.shape_name(e.input), T.shape_name(e.output))
                                                  for e in g.envs.values()})
    mod = views.type_dot(g, "other")
    assert re.findall(r'-> "[^"]+" \[label="([^"]+)"', mod) == ["other_rows"]  # only other's environments


def test_around_follows_edges_both_ways(geo):
    _, g = geo
    near = views.around(g, "geo.flip", 1)
    assert near["geo.flip"] == 0
    neighbours = {s for s, _ in g.predecessors("geo.flip")} | {d for d, _ in g.successors("geo.flip")}
    assert set(near) == {"geo.flip"} | neighbours
    far = views.around(g, "geo.flip", 2)
    assert set(near) <= set(far) and max(far.values()) <= 2
    dot = views.around_dot(g, "geo.flip", 1)
    for a, b in re.findall(r'^  "([^"]+)" -> "([^"]+)"', dot, re.M):
        assert "geo.flip" in (a, b)  # at depth 1 only the edges to and from the focus


def test_html_links_neighbours_and_filters(geo):
    _, g = geo
    page = to_html(g)
    assert page.count('<tr class="env"') == len(g.envs)
    for d, _ in g.successors("geo.inc"):
        assert f'<a href="#{d}">' in page
    assert '<select id="m"' in page and '<option value="other">' in page and 'data-tags=' in page
    part = to_html(g, set(views.around(g, "geo.flip", 1)))
    assert part.count('<tr class="env"') == len(views.around(g, "geo.flip", 1))


def _racesc(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "racesl", "graph", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def test_cli_views(geo):
    d, _ = geo
    done = _racesc(str(d), "--format", "dot")
    assert done.returncode == 0 and "type shapes" in done.stdout  # a drawing is by type by default
    done = _racesc(str(d), "--format", "dot", "--by", "env")
    assert done.returncode == 0 and "cluster_geo" in done.stdout
    done = _racesc(str(d), "--format", "json", "--around", "flip")
    assert done.returncode == 0
    assert "geo.flip" in {n["id"] for n in json.loads(done.stdout)["nodes"]}
    done = _racesc(str(d), "--around", "flp")
    assert done.returncode == 2 and "did you mean 'flip'?" in done.stderr
    done = _racesc(str(d), "--module", "oter")
    assert done.returncode == 2 and "did you mean 'other'?" in done.stderr


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz (CI installs it)")
def test_stdlib_by_type_svg_is_a_drawing_of_shapes(tmp_path):
    """The issue's bound, by what made the drawing slow (3.5 minutes and an 82,000-point-tall
    picture before the views): the default drawing of the whole stdlib has a node per shape,
    not per environment, and a bounded height. Its time is benchmarks/bench_graph.py's."""
    out = tmp_path / "g.svg"
    done = _racesc("stdlib", "--by", "type", "--format", "svg", "-o", str(out))
    assert done.returncode == 0, done.stderr
    svg = out.read_text()
    assert 10 <= svg.count('class="node"') <= 60
    height = float(re.search(r'<svg width="[\d.]+pt" height="([\d.]+)pt"', svg).group(1))
    assert height < 5000
