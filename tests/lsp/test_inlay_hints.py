"""Inlay hints in-process (no client): local types at first bindings (and the noise left
out), output bounds tighter than declared, ranges and position encodings, the cache, and
the soundness of the interval reading (random expressions, evaluated by CPython)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip("lsprotocol", reason="lsprotocol is not installed (pip install 'racesl[lsp]')")

from lsprotocol import types as L  # noqa: E402

from racesl.lsp import index as I  # noqa: E402
from racesl.lsp import inlay_hints as IH  # noqa: E402
from racesl.lsp import output_bounds as OB  # noqa: E402
from racesl.lsp.context import View  # noqa: E402
from racesl.lsp.documents import units  # noqa: E402
from racesl.syntax import ast as A  # noqa: E402
from racesl.syntax.parser import parse_module  # noqa: E402
from tests.lsp.views import make_view, open_workspace, random_edit  # noqa: E402

SRC = '''\
from numbers import Nat

def twice(x: Int) -> Int:
    ys = [x, x]
    return len(ys)

env digits(n: Nat, k: Int where 1 <= it <= 9) -> Int:
    """Sum the digits of n, then {k}."""
    xs = [int(c) for c in str(n)]
    total = 0
    a, b = 0, 1
    for c in str(n):
        total += int(c)
    for i in range(3):
        a, b = b, a + b
    w = "x" + str(k)
    r = (n + k) % 55
    return r if r > k else k

env small(n: Nat) -> Int where it >= 0:
    """Small."""
    return min(n, 9) - 2

env loose(n: Nat) -> Int where 0 <= it <= 10:
    """Loose: the declaration is already tight."""
    return n % 11

env moved(n: Nat) -> Int:
    """The parameter is rebound: nothing is said."""
    n = n * 1000
    return n % 7 + n

env text(s: Str where len(it) <= 7 and it != "é🙂") -> Int:
    """Length."""
    return len(s) + 1
'''


def view_of(tmp_path: Path, text: str = SRC, name: str = "hints.races", enc: str = "utf-16") -> View:
    return make_view(tmp_path, text, name, enc)


EVERYTHING = L.Range(L.Position(0, 0), L.Position(10_000, 0))


def hints(v: View, rng: L.Range = EVERYTHING) -> list[tuple[int, int, str]]:
    return [(h.position.line, h.position.character, "".join(p.value for p in h.label))
            for h in IH.inlay_hints(v, rng)]


def end_of(text: str, needle: str, name: str | None = None, enc: str = "utf-16") -> tuple[int, int]:
    """(line, column in `enc` units) of the end of `needle` (of `name` in it, if given)."""
    i = text.index(needle)
    i += text.index(name, i) - i + len(name) if name is not None else len(needle)
    line = text.count("\n", 0, i)
    start = text.rfind("\n", 0, i) + 1
    return line, units(text[start:i], enc)


def test_local_types_at_their_first_binding(tmp_path):
    v = view_of(tmp_path)
    assert not [d for d in v.a.diagnostics() if d.is_error], v.a.diagnostics()
    got = {h for h in hints(v) if h[2].startswith(": ")}
    assert got == {
        (*end_of(SRC, "    ys =", "ys"), ": List[Int]"),
        (*end_of(SRC, "    xs =", "xs"), ": List[Int]"),
        (*end_of(SRC, "    for c", "c"), ": Str"),  # a loop target
        (*end_of(SRC, "    w =", "w"), ": Str"),
        (*end_of(SRC, "    r =", "r"), ": Int"),
    }  # not `total = 0`, `a, b = 0, 1` (literals), `for i in range(3)`, nor the rebound parameter `n`
    h = next(h for h in IH.inlay_hints(v, EVERYTHING) if h.position.line == end_of(SRC, "    xs =")[0])
    assert h.kind == L.InlayHintKind.Type and not h.padding_left
    assert "inferred by the checker" in h.label[1].tooltip.value


def test_output_bounds_tighter_than_declared(tmp_path):
    v = view_of(tmp_path)
    got = {h for h in hints(v) if not h[2].startswith(": ")}
    assert got == {
        (*end_of(SRC, "k: Int where 1 <= it <= 9) -> Int"), "where 0 <= it <= 54"),
        (*end_of(SRC, "-> Int where it >= 0"), "and it <= 7"),  # min(n, 9) - 2 met with it >= 0
        (*end_of(SRC, 'it != "é🙂") -> Int'), "where 1 <= it <= 8"),  # len under the solver's bound
    }  # loose: declared already tight; moved: `n` is rebound
    h = next(h for h in IH.inlay_hints(v, EVERYTHING) if "54" in h.label[0].value)
    assert h.padding_left and "Declared: `Int`" in h.label[0].tooltip.value


def test_an_alias_output_says_where(tmp_path):
    text = "from numbers import Nat\n\nenv f(n: Nat) -> Nat:\n    \"\"\"F.\"\"\"\n    return n // 10\n"
    v = view_of(tmp_path, text, "alias.races")
    assert hints(v) == [(*end_of(text, "-> Nat"), "where it <= 50")]  # Nat is 0..500: only the top is tighter


def test_only_the_requested_range(tmp_path):
    v = view_of(tmp_path)
    line = end_of(SRC, "env small")[0]
    rng = L.Range(L.Position(line, 0), L.Position(line + 2, 0))
    assert [h[2] for h in hints(v, rng)] == ["and it <= 7"]
    assert hints(v, L.Range(L.Position(0, 0), L.Position(1, 0))) == []


@pytest.mark.parametrize("enc", ["utf-8", "utf-16", "utf-32"])
def test_positions_in_the_client_units(tmp_path, enc):
    v = view_of(tmp_path, enc=enc)
    want = end_of(SRC, 'it != "é🙂") -> Int', enc=enc)
    assert (*want, "where 1 <= it <= 8") in hints(v)
    line = SRC.splitlines()[want[0]]
    assert len({units(line, e) for e in ("utf-8", "utf-16", "utf-32")}) == 3  # (the encodings differ here)


def test_a_document_that_does_not_parse(tmp_path):
    broken = SRC.replace("    w = \"x\" + str(k)\n", "    w = \"x\" + str(k\n")
    v = view_of(tmp_path, broken, "broken.races")
    assert any(d.is_error for d in v.a.diagnostics())
    got = hints(v)  # no exception; the items that parse still have theirs
    assert (*end_of(broken, "-> Int where it >= 0"), "and it <= 7") in got
    empty = view_of(tmp_path, "", "empty.races")
    assert hints(empty) == []


def test_bounds_are_cached_per_function(tmp_path, monkeypatch):
    v = view_of(tmp_path, name="cache.races")
    hints(v)
    calls = []
    real = OB.output_bounds
    monkeypatch.setattr(OB, "output_bounds", lambda *a, **k: calls.append(a) or real(*a, **k))
    hints(v)
    assert calls == []  # the same nodes and signatures: replayed


def _fn(src_expr: str, params=("a", "b")) -> A.FuncDef:
    mod, diags = parse_module(f"def f({', '.join(params)}):\n    return {src_expr}\n")
    assert not diags, diags
    return mod.items[0]


def _gen(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(["a", "b", str(rng.randint(-9, 9)), "True"])
    k = rng.randint(0, 9)
    x, y = _gen(rng, depth - 1), _gen(rng, depth - 1)
    if k <= 4:
        return f"({x} {rng.choice(['+', '-', '*', '//', '%'])} {y})"
    if k == 5:
        return f"(-{x})"
    if k == 6:
        return f"abs({x})"
    if k == 7:
        return f"{rng.choice(['min', 'max'])}({x}, {y})"
    if k == 8:
        return f"({x} if {x} < {y} else {y})"
    return f"({x} or {y})"


def test_the_interval_reading_is_sound():
    """For random integer expressions over a in A and b in B, every value CPython computes
    lies within the bounds read (and some bounds are finite: the reading says something)."""
    rng = random.Random(7)
    boxes = {"a": (-3, 12), "b": (1, 5)}
    finite = 0
    for _ in range(400):
        e = _gen(rng, 4)
        bb = OB.BodyBounds(_fn(e), lambda n, kind: boxes.get(n) if kind == "value" else None,
                           frozenset({"abs", "min", "max"}))
        lo, hi = bb.returns()
        finite += lo is not None and hi is not None
        for a in range(boxes["a"][0], boxes["a"][1] + 1):
            for b in range(boxes["b"][0], boxes["b"][1] + 1):
                try:
                    val = eval(e, {"abs": abs, "min": min, "max": max}, {"a": a, "b": b})
                except ZeroDivisionError:
                    continue
                assert (lo is None or lo <= val) and (hi is None or val <= hi), (e, a, b, val, lo, hi)
    assert finite > 100


def test_rebinding_and_unknowns_give_no_bounds():
    top = (None, None)

    def read(body: str, params=("a",)):
        mod, diags = parse_module(f"def f({', '.join(params)}):\n" + body)
        assert not diags, diags
        return OB.BodyBounds(mod.items[0], lambda n, kind: (0, 9) if kind == "value" else None,
                             frozenset({"len", "abs"})).returns()

    assert read("    return a % 4\n") == (0, 3)
    assert read("    x = a + 1\n    y = x * 2\n    return y\n") == (2, 20)
    assert read("    x = 0\n    if a > 3:\n        x = 5\n    return x\n") == (0, 5)
    assert read("    a = a * 100\n    return a\n") == top  # the parameter is rebound
    assert read("    x = 1\n    x += a\n    return x\n") == top  # augmented
    assert read("    x = 1\n    for i in range(a):\n        x = x * 2\n    return x\n") == top  # depends on itself
    assert read("    return g(a)\n") == top  # a helper
    assert read("    return len([a]) + abs(a)\n") == (0, None)
    assert read('    return "%d" % a\n') == top  # text formatting
    assert read("    pass\n") is None  # no return


SNIPPETS = ["(", ")", "[", "]", ",", ":", "=", "\n", "    ", '"', "#", "@", "-> Int", " where it >= 3", "% 7",
            "é🙂", "return ", "x = [1]\n    ", "for q in s:\n        ", "env ", "def ", "\\", "f'{", "\r\n"]


def test_random_edits_never_raise(tmp_path):
    """Edits mid-typing: hints are computed or left out, never raise, and always sit
    inside the document in the client's units."""
    rng = random.Random(5)
    ws, uri = open_workspace(tmp_path, SRC, "fuzz.races")  # (an editor's session starts from a file that parsed)
    text = SRC
    for _ in range(100):
        text = random_edit(rng, text, SNIPPETS)
        ws.open(uri, text)
        a = ws.analyze(uri)
        for enc in ("utf-8", "utf-16"):
            v = View(ws, a, enc, I.Indexer())
            for h in IH.inlay_hints(v, EVERYTHING):
                p = h.position
                assert 0 <= p.line < a.index.line_count
                assert 0 <= p.character <= units(a.index.line(p.line), enc)
