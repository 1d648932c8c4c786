"""`@layout(rows)` in prompts: every operator shows a laid-out input (and a sort or select
target) as a fenced block of rows, answers stay literals that `score` reads, and the same
compile gives byte-identical records (racesl.types.layout, racesl.templates.fill)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from racesl.compile import compile_tasks
from racesl.library import load
from racesl.records import to_record
from racesl.rewards import register, score
from racesl.runtime.contract import parse_literal
from racesl.search.config import CompileConfig, Filters, parse_operators
from racesl.types import layout as L

SOURCE = '''module boards

type Grid = List[List[Int where 0 <= it <= 12] where 2 <= len(it) <= 3] where 2 <= len(it) <= 3

@layout(rows)
env flip(g: Grid) -> Grid:
    """Reverse the order of the rows of g."""
    return g[::-1]

@layout(rows)
env mirror(g: Grid) -> Grid:
    """Reverse every row of g."""
    return [r[::-1] for r in g]

@layout(rows)
env bump(g: Grid) -> Grid:
    """Add 1 to every cell of g that is below 12."""
    return [[c + 1 if c < 12 else c for c in r] for r in g]

@layout(rows)
env total(g: Grid) -> Int:
    """Return the sum of all cells of g."""
    return sum(sum(r) for r in g)

@layout(rows)
env wide(g: Grid) -> Bool:
    """Return whether g has more columns in its first row than it has rows."""
    return len(g[0]) > len(g)
'''

OPS = "sequential=2-3,parallel=2-3,sort=2-3,select=2-3,branch=2,loop=2-3,individual"


def _compile(tmp_path, source: str, workers: int = 1):
    src = tmp_path / "boards.races"
    src.write_text(source, encoding="utf-8")
    lib = load([src])
    register(lib)
    cfg = CompileConfig(n=120, seed=3, operators=parse_operators(OPS),
                        filters=Filters(drop_values=(), sort_orders=1.0, item_share=1.0))
    tasks, _ = compile_tasks(lib, cfg, workers=workers)
    return lib, [to_record(t, k, 3, lib.hash) for k, t in enumerate(tasks)]


@pytest.fixture(scope="module")
def laid(tmp_path_factory):
    return _compile(tmp_path_factory.mktemp("laid"), SOURCE)


def test_every_operator_shows_its_input_as_rows(laid):
    _, records = laid
    ops = Counter(r["operator"] for r in records)
    assert set(ops) >= {"sequential", "parallel", "sort", "individual", "loop"}, ops
    for r in records:
        inputs = r["extra"]["inputs"] if r["operator"] == "parallel" else [r["input"]]
        for text in inputs:
            block = L.show("rows", parse_literal(text))
            assert block is not None and "\n" + block + "\n" in r["prompt"], (r["operator"], r["prompt"])
            assert text not in r["prompt"]  # the literal is not shown as well
        if r["operator"] in ("sort", "select"):
            assert "\n" + L.show("rows", parse_literal(r["extra"]["target"])) + "\n" in r["prompt"]
        assert " \n" not in r["prompt"]


def test_answers_stay_literals_and_score(laid):
    _, records = laid
    for r in records:
        assert "```" not in r["answer"] and "```" not in "".join(r["trace"])
        assert score(r, f"<answer>{r['answer']}</answer>") == 1.0, r["operator"]
        assert score(r, "<answer>" + "\n".join(L.rows(parse_literal(r["trace"][-1])) or ["?"]) + "</answer>") < 1.0


def test_the_layout_changes_prompts_only(laid, tmp_path):
    """The same compile without @layout: the same tasks, the literal form in every prompt."""
    _, records = laid
    _, plain = _compile(tmp_path, SOURCE.replace("@layout(rows)\n", ""))
    assert len(plain) == len(records)
    for a, b in zip(records, plain):
        assert {k: v for k, v in a.items() if k not in ("prompt", "library")} == \
               {k: v for k, v in b.items() if k not in ("prompt", "library")}
        assert "```" not in b["prompt"] and b["input"] in b["prompt"]


def test_byte_identical_across_runs_and_workers(laid, tmp_path):
    _, records = laid
    _, again = _compile(tmp_path, SOURCE, workers=2)
    assert json.dumps(again, sort_keys=True) == json.dumps(records, sort_keys=True)
