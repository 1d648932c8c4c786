"""Features in-process (no client): completion contexts, hover text, composition counts,
references and scopes, semantic tokens of f-strings and docstrings, quick-fix parsing."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("lsprotocol", reason="lsprotocol is not installed (pip install 'racesl[lsp]')")

from lsprotocol import types as L  # noqa: E402

from racesl.check import check_paths  # noqa: E402
from racesl.graph.signature import SignatureGraph  # noqa: E402
from racesl.lsp import code_actions as CA  # noqa: E402
from racesl.lsp import completion as CO  # noqa: E402
from racesl.lsp import definition as DE  # noqa: E402
from racesl.lsp import hover as HO  # noqa: E402
from racesl.lsp.context import View  # noqa: E402
from racesl.lsp.semantic_tokens import TOKEN_TYPES, SemanticTokens  # noqa: E402
from tests.lsp.conftest import position  # noqa: E402
from tests.lsp.views import make_view  # noqa: E402

SRC = '''\
import numbers
from numbers import Nat

def pick(rng, level) -> Int:
    return rng.randint(0, level)

@sample(n=pick)
env label(n: Nat, k: Int where 1 <= it <= 3) -> Str:
    """Write n and {k} as text."""
    xs = [d * k for d in numbers.digit_list(n)]
    ys = {d: d for d in xs}
    return f"{n}:{len(ys)}"
'''


def view_of(tmp_path: Path, text: str = SRC, name: str = "feat.races", enc: str = "utf-16") -> View:
    return make_view(tmp_path, text, name, enc)


def pos(text: str, needle: str, offset: int = 0, nth: int = 0) -> L.Position:
    return position(text, needle, nth, offset)


def labels(v: View, text: str, line_text: str) -> set[str]:
    """Completion labels at the end of `line_text`, appended as a new last line."""
    full = text + line_text
    path = Path(v.a.path)
    v2 = view_of(path.parent, full, path.name)
    res = CO.complete(v2, L.Position(full.count("\n"), len(line_text)))
    return {i.label for i in res.items}


def test_composition_counts_match_the_signature_graph():
    checked = check_paths(["stdlib"])
    envs = checked.envs()
    g = SignatureGraph(envs)
    for e in envs:
        p, s = g.predecessors(e.qualname), g.successors(e.qualname)
        want = (len(p), sum(k == "proved" for _, k in p), len(s), sum(k == "proved" for _, k in s))
        assert HO.composition_counts(envs, e) == want, e.qualname


def test_completion_contexts(tmp_path):
    v = view_of(tmp_path)
    assert v.a.diagnostics() == [] or all(not d.is_error for d in v.a.diagnostics())
    assert {"fibonacci", "Nat", "gcd"} <= labels(v, SRC, "from numbers import Small, ")
    assert {"fibonacci", "Nat"} <= labels(v, SRC, "def h(x: Int) -> Int:\n    return numbers.")
    got = labels(v, SRC, "def h(rng, level) -> Int:\n    return rng.")
    assert got == {"randint", "choice", "sample", "shuffle", "choices", "fraction", "fork"}
    got = labels(v, SRC, "def h(xs: List[Int]) -> Int:\n    return xs.")
    assert "append" in got and "upper" not in got
    assert {"idempotent", "involution"} == labels(v, SRC, "@laws(")
    assert {"Int", "Nat", "List"} <= labels(v, SRC, "env g(x: ")
    assert {"Int", "Nat"} <= labels(v, SRC, "env g(x: Int) -> ")
    assert "Int" not in labels(v, SRC, "env g(x: Int where ")  # a predicate: expressions
    assert {"env", "def", "type", "import"} <= labels(v, SRC, "")
    assert {"lists", "strings"} <= labels(v, SRC, "import ")


def test_hover_texts(tmp_path):
    v = view_of(tmp_path)
    h = HO.hover(v, pos(SRC, "label", 1)).contents.value
    assert "env label(n: Nat, k: Int where 1 <= it <= 3) -> Str" in h
    assert "Settings: `k: Int where 1 <= it <= 3`" in h and "samplers: n" in h
    assert "composes after" in h
    assert "xs: List[Int]" in HO.hover(v, pos(SRC, "xs = ")).contents.value
    assert "comprehension variable" in HO.hover(v, pos(SRC, "d * k")).contents.value
    assert "helper" in HO.hover(v, pos(SRC, "pick)")).contents.value
    assert "randint" in HO.hover(v, pos(SRC, "randint")).contents.value
    assert "the value the refinement constrains" in HO.hover(v, pos(SRC, "it <= 3")).contents.value
    assert "def digit_list(n: Int) -> List[Int]" in HO.hover(v, pos(SRC, "digit_list")).contents.value


def test_scopes_definition_and_references(tmp_path):
    v = view_of(tmp_path)
    # `d` of the first comprehension and `d` of the second are different variables
    refs = DE.references(v, pos(SRC, "d * k"), True)
    line = SRC.split("\n").index("    xs = [d * k for d in numbers.digit_list(n)]")
    assert {r.range.start.line for r in refs} == {line}
    assert len(refs) == 2
    # the sampler keyword names the parameter
    d = DE.definition(v, pos(SRC, "n=pick"))
    assert d and d[0].range.start == pos(SRC, "n: Nat")
    # f-string fields resolve
    d = DE.definition(v, pos(SRC, "{n}", 1))
    assert d and d[0].range.start == pos(SRC, "n: Nat")
    d = DE.definition(v, pos(SRC, "Nat", nth=1))
    assert d and d[0].uri.endswith("numbers.races")


def test_semantic_tokens_cut_strings_around_fstring_fields(tmp_path):
    text = SRC + 'env two(s: Str) -> Str:\n    """A docstring\n    over {two} lines."""\n    return s\n'
    v = view_of(tmp_path, text, "sem.races")
    data = SemanticTokens().full(v).data
    toks, line, col = [], 0, 0
    for i in range(0, len(data), 5):
        dl, dc, n, t, m = data[i: i + 5]
        line += dl
        col = col + dc if dl == 0 else dc
        toks.append((line, col, n, TOKEN_TYPES[t]))
    lines = text.split("\n")
    ret = lines.index('    return f"{n}:{len(ys)}"')
    on_line = [(c, n, t) for ln, c, n, t in toks if ln == ret]
    kinds = [t for _, _, t in on_line]
    assert kinds == ["keyword", "string", "parameter", "string", "function", "string", "variable", "string"]
    doc = lines.index('    """A docstring')
    assert (doc, 4, len('"""A docstring'), "string") in toks
    assert (doc + 1, 0, len('    over {two} lines."""'), "string") in toks


def test_quick_fix_reads_the_hint_from_the_message():
    d = L.Diagnostic(range=L.Range(L.Position(1, 4), L.Position(1, 7)), code="E200", source="racesc",
                     message="unknown name 'lne'\nhint: did you mean 'len'?")
    params = L.CodeActionParams(text_document=L.TextDocumentIdentifier("file:///x.races"), range=d.range,
                                context=L.CodeActionContext(diagnostics=[d]))
    (action,) = CA.code_actions("file:///x.races", params)
    assert action.edit.changes["file:///x.races"][0].new_text == "len"
    other = L.Diagnostic(range=d.range, message="x\nhint: did you mean 'y'?", code="E402", source="racesc")
    params.context.diagnostics = [other]
    assert CA.code_actions("file:///x.races", params) == []
