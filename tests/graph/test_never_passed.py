"""Guarded edges that never passed in check's sampling (racesl.passing): recorded by
`racesc check`, left out of `racesc graph` (JSON, `--around`, counts), hover and code lens,
and the compile summary's counts; the search keeps them."""

from __future__ import annotations

import json

import pytest

from racesl.graph.signature import GUARDED, build_graph
from racesl.passing import Recorder, load_record, never_passed, recorded_counts, sample_marks
from tests.support.tasks import run_racesc

# `numeric` is a helper: opaque to the solver, so `digits` → `shout` is guarded, yet no
# string of digits is a string of letters
DIGITS = '''def numeric(s: Str) -> Bool:
    return len(s) >= 1 and all(c in "0123456789" for c in s)


env digits(n: Int where 0 <= it <= 9999) -> Str where numeric(it):
    """Write n in decimal digits."""
    return str(n)


env decimal(n: Int where 0 <= it <= 9999) -> Str where 1 <= len(it) <= 4 and it.isdigit():
    """Write n in decimal digits."""
    return str(n)


env shout(s: Str where 1 <= len(it) <= 8 and it.isalpha()) -> Str where 1 <= len(it) <= 8 and it.isalpha():
    """Write s in capital letters."""
    return s.upper()


env letters(s: Str where 1 <= len(it) <= 8 and it.isalpha()) -> Int where 1 <= it <= 8:
    """Return the number of letters in s."""
    return len(s)


env clip(s: Str where 2 <= len(it) <= 8) -> Str where 1 <= len(it) <= 7:
    """Remove the first character of s."""
    return s[1:]
'''
NEVER = {("digits.digits", "digits.shout"), ("digits.digits", "digits.letters")}


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    d = tmp_path_factory.mktemp("never")
    (d / "digits.races").write_text(DIGITS, encoding="utf-8")
    return d / "digits.races"


@pytest.fixture(scope="module")
def lib(mod):
    from racesl.check import check_paths
    from racesl.library import Library

    checked = check_paths([str(mod)], [])
    assert checked.ok, checked.diagnostics
    return Library(checked)


def _marks(lib, graph, order=1):
    from racesl.probe import probe_env

    rec = Recorder()
    for env in lib.root_envs[::order]:
        probe_env(lib, env, 20, 0, on_run=rec.on_run(env))
    return never_passed(graph, rec.outputs, lib)


def test_a_guarded_edge_that_never_passed_is_marked(lib):
    graph, _ = build_graph(lib.envs.values())
    kinds = {(e.src, e.dst): e.kind for e in graph.edges()}
    assert all(kinds[e] == GUARDED for e in NEVER)
    assert ("digits.digits", "digits.clip") in kinds  # a digit string may be clipped: it passes
    marks = _marks(lib, graph)
    assert set(marks) == NEVER and set(marks.values()) == {GUARDED}
    assert _marks(lib, graph, -1) == marks  # the order environments are sampled in does not matter


def test_the_composing_graph_leaves_out_only_those_edges(lib):
    graph, _ = build_graph(lib.envs.values())
    marks = _marks(lib, graph)
    shown = graph.composing(marks)
    before = {(e.src, e.dst) for e in graph.edges()}
    after = {(e.src, e.dst) for e in shown.edges()}
    assert before - after == set(marks) and after <= before
    c, c0 = shown.counts(), graph.counts()
    assert c["never_passed"] == 2 and c["guarded"] == c0["guarded"] - 2 and c["proved"] == c0["proved"]
    assert [d for d, _ in shown.successors("digits.digits")] == ["digits.clip"]
    assert "digits.digits" not in {s for s, _ in shown.predecessors("digits.shout")}
    from racesl.graph import views

    # (letters → digits: an Int of 1..8 into 0..9999, proved)
    assert set(views.around(shown, "digits.digits", 1)) == {"digits.digits", "digits.clip", "digits.letters"}
    assert "digits.shout" in views.around(graph, "digits.digits", 1)
    # the search's graph is untouched: it still draws (and rejects) the edge
    assert {d for d, _ in graph.successors("digits.digits")} >= {"digits.shout", "digits.letters"}


def test_the_graph_loses_only_edges_that_never_passed_or_are_refuted(lib):
    """Against the graph before character classes and sampling: every edge gone is one the
    solver now refutes (`decimal`'s isdigit output into isalpha inputs) or one that never
    passed (`digits`' opaque output); no edge appears."""
    from racesl.graph.signature import SignatureGraph
    from racesl.solver import Solver

    old = SignatureGraph(lib.envs.values(), classify=Solver(chars=False).classify)
    graph, solver = build_graph(lib.envs.values())
    marks = _marks(lib, graph)
    shown = graph.composing(marks)
    before = {(e.src, e.dst) for e in old.edges()}
    after = {(e.src, e.dst) for e in shown.edges()}
    refuted = {(a, b) for a, b in before if solver.classify(lib.envs[a].output, lib.envs[b].input) is None}
    assert after <= before
    assert before - after == refuted | set(marks)
    assert refuted == {("digits.decimal", "digits.shout"), ("digits.decimal", "digits.letters")}
    assert set(marks) == NEVER and not refuted & set(marks)


def test_check_records_and_graph_reads_it(mod, lib, tmp_path):
    env = {"RACESL_CACHE_DIR": str(tmp_path / "cache")}
    done = run_racesc("check", mod, "--json", env=env)
    assert json.loads(done.stdout)["never_passed"] == sorted(f"{a} -> {b}" for a, b in NEVER)
    data = json.loads(run_racesc("graph", mod, env=env).stdout)
    edges = {(e["source"], e["target"]) for e in data["edges"]}
    assert not edges & NEVER and ("digits.digits", "digits.clip") in edges
    assert {(e["source"], e["target"]) for e in data["never_passed"]} == NEVER
    assert data["counts"]["never_passed"] == 2
    dot = run_racesc("graph", mod, "--format", "dot", "--around", "digits", env=env).stdout
    assert "up to 1 edge away (2)" in dot and '"digits.shout"' not in dot
    kept = json.loads(run_racesc("graph", mod, "--samples", "0", env=env).stdout)
    assert NEVER <= {(e["source"], e["target"]) for e in kept["edges"]} and kept["counts"]["never_passed"] == 0
    # no record: graph samples the same way and finds the same edges
    fresh = json.loads(run_racesc("graph", mod, env={"RACESL_CACHE_DIR": str(tmp_path / "other")}).stdout)
    assert fresh == data


def test_the_record_is_keyed_and_read_back(lib, tmp_path, monkeypatch):
    monkeypatch.setenv("RACESL_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("RACESL_NO_CACHE", raising=False)
    graph, _ = build_graph(lib.envs.values())
    assert load_record(lib, 0, 50) is None
    assert recorded_counts(lib, graph) == graph.counts()  # compile reads only: nothing recorded yet
    marks = sample_marks(lib, graph)
    assert set(marks) == NEVER
    sampled, again = load_record(lib, 0, 50)
    assert again == marks and sampled == {e.qualname for e in lib.root_envs}
    assert load_record(lib, 1, 50) is None  # another seed is another record
    assert recorded_counts(lib, graph)["never_passed"] == 2


def test_hover_and_code_lens_leave_them_out(mod, lib):
    from racesl.lsp import hover as HO
    from racesl.lsp.sampling import probe_document

    marks: dict = {}
    probe_document(str(mod), mod.read_text(encoding="utf-8"), marks=marks)
    assert set(marks) == NEVER
    envs = list(lib.envs.values())
    sig = lib.envs["digits.digits"]
    _, after = HO.composition_edges(envs, sig)
    assert {e.qualname for e, _ in after} >= {"digits.shout", "digits.letters", "digits.clip"}
    _, after = HO.composition_edges(envs, sig, marks)
    assert [e.qualname for e, _ in after] == ["digits.clip"]
    before, _ = HO.composition_edges(envs, lib.envs["digits.shout"], marks)
    assert "digits.digits" not in {e.qualname for e, _ in before}


def test_the_sampler_keeps_marks_per_document_text():
    from racesl.lsp.sampling import Sampling, _Result

    s = Sampling()
    s.results["file:///a"] = _Result("text", [], {("a.x", "a.y"): GUARDED})
    s.results["file:///b"] = _Result("text", [], {("b.x", "a.y"): GUARDED})
    assert set(s.never_passed()) == {("a.x", "a.y"), ("b.x", "a.y")}
    s.invalidate("file:///a")  # an edit: its marks described other text
    assert set(s.never_passed()) == {("b.x", "a.y")}
