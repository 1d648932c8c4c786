"""`racesc graph --format json|dot|html [-o FILE]`."""

from __future__ import annotations

import html as html_mod
import json
import re

import pytest

from tests.support.signatures import write_modules
from tests.support.tasks import run_racesc


ESC = '''module esc

env tag(n: Int where 0 <= it <= 9) -> Tuple[Int, Bool]:
    """Return n; the <b>bold</b> & "quoted" part is text, not markup."""
    return (n, True)
'''


@pytest.fixture(scope="module")
def src(tmp_path_factory):
    d = write_modules(tmp_path_factory.mktemp("graphcmd"))
    (d / "esc.races").write_text(ESC, encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def as_json(src):
    return json.loads(run_racesc("graph", src, cwd=src).stdout)


def test_json(as_json):
    ids = {n["id"] for n in as_json["nodes"]}
    assert "geo.make_grid" in ids and "other.other_rows" in ids and "esc.tag" in ids and len(ids) == 19
    edges = {(e["source"], e["target"]): e["kind"] for e in as_json["edges"]}
    assert edges["geo.make_grid", "geo.rows"] == "proved"
    assert edges["geo.anyint", "geo.inc"] == "guarded"
    assert ("geo.make_grid", "geo.plain") not in edges  # nominal Grid
    assert all(e["source"] in ids and e["target"] in ids for e in as_json["edges"])
    c = as_json["counts"]
    assert c["proved"] + c["guarded"] == len(edges)


def test_dot(src, as_json):
    dot = run_racesc("graph", src, "--format", "dot", "--by", "env", cwd=src).stdout
    assert dot.startswith("digraph")
    pairs = set(re.findall(r'^\s*"([^"]+)" -> "([^"]+)" \[style=(solid|dashed)\];$', dot, re.M))
    want = {(e["source"], e["target"], "solid" if e["kind"] == "proved" else "dashed") for e in as_json["edges"]}
    assert pairs == want
    nodes = set(re.findall(r'^\s*"([^"]+)" \[label=', dot, re.M))
    assert nodes == {n["id"] for n in as_json["nodes"]}
    assert 'subgraph "cluster_esc"' in dot


def test_html_to_file(src, as_json, tmp_path):
    out = tmp_path / "g" / "graph.html"
    p = run_racesc("graph", src, "--format", "html", "-o", out, cwd=src)
    assert p.stdout == ""
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!doctype html>") and text.rstrip().endswith("</html>")
    for n in as_json["nodes"]:
        assert f"<b>{html_mod.escape(n['id'])}</b>" in text
    assert f"{len(as_json['nodes'])} environments" in text
    assert f"{as_json['counts']['proved']} proved" in text
    assert "http://" not in text and "https://" not in text  # viewable offline
    assert not [p.name for p in out.parent.iterdir() if p.name.endswith(".part")]
    # descriptions are text, not markup
    assert "<b>bold</b>" not in text and "&lt;b&gt;bold&lt;/b&gt; &amp;" in text


def test_graph_of_bad_sources_fails(tmp_path):
    (tmp_path / "bad.races").write_text("module bad\n\nenv oops(n: Int) -> Int:\n    return n\n", encoding="utf-8")
    p = run_racesc("graph", tmp_path / "bad.races", cwd=tmp_path, check=False)
    assert p.returncode == 1
    assert p.stdout == ""
    assert "bad.races" in p.stderr


def test_graph_cli_uses_the_solver(as_json):
    """LANGUAGE §5: the solver proves implications (proved edge) and removes edges whose
    conjunction is unsatisfiable; `racesc graph` draws the solver's graph by default."""
    edges = {(e["source"], e["target"]): e["kind"] for e in as_json["edges"]}
    assert edges.get(("geo.small", "geo.inc")) == "proved"
    assert ("geo.high", "geo.inc") not in edges
