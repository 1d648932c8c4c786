"""Rename in-process (no client): scopes of comprehensions and lambdas, environments, the
two forms of WorkspaceEdit, placeholder scanning, and the rules for new names."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="pygls is not installed (pip install 'racesl[lsp]')")

from lsprotocol import types as L  # noqa: E402
from pygls.exceptions import JsonRpcException  # noqa: E402
from pytest_lsp import client_capabilities  # noqa: E402

from racesl.lsp import rename as RN  # noqa: E402
from racesl.lsp.analysis import Workspace  # noqa: E402
from racesl.lsp.context import View  # noqa: E402
from tests.lsp.conftest import position  # noqa: E402
from tests.lsp.edits import apply, errors_after  # noqa: E402
from tests.lsp.views import make_view  # noqa: E402

SRC = '''\
def helper(xs: List[Int]) -> Int:
    return sum(x * x for x in xs) + len(sorted(xs, key=lambda x: x + 1))

env total(xs: List[Int where 0 <= it <= 9] where len(it) <= 5, m: Int where 1 <= it <= 3) -> Int:
    """Sum the squares of xs, times {m}."""
    ys = [x for x in xs if x > 0]
    return helper(ys) * m

env again(n: Int where 0 <= it <= 500) -> Int:
    """Total n's digits."""
    return total([int(c) for c in str(n)][:5], m=1)
'''


def view_of(tmp_path: Path, text: str = SRC, name: str = "mod.races") -> View:
    return make_view(tmp_path, text, name, version=3)


def renamed(v: View, needle: str, new: str, nth: int = 0, plus: int = 0, changes: bool = False) -> str:
    edit = RN.rename(v, position(v.a.text, needle, nth, plus), new, document_changes=not changes)
    texts = apply({v.a.path: v.a.text}, edit, "utf-16")
    assert errors_after(texts) == []
    return texts[v.a.path]


def test_the_sample_checks(tmp_path):
    assert errors_after({str(tmp_path / "mod.races"): SRC}) == []


def test_comprehension_and_lambda_variables_are_their_own_scopes(tmp_path):
    v = view_of(tmp_path)
    # the generator's x: only its two uses, not the lambda's x
    out = renamed(v, "x * x", "d")
    assert "sum(d * d for d in xs) + len(sorted(xs, key=lambda x: x + 1" in out
    out = renamed(v, "lambda x", "y", plus=len("lambda "))
    assert "sum(x * x for x in xs) + len(sorted(xs, key=lambda y: y + 1" in out
    with pytest.raises(JsonRpcException, match="already uses 'xs'"):
        RN.rename(v, position(SRC, "lambda x", offset=len("lambda ")), "xs")


def test_environment_and_setting_with_keyword_calls(tmp_path):
    v = view_of(tmp_path)
    out = renamed(v, "total(", "summed", changes=True)
    assert out == SRC.replace("total(", "summed(")
    out = renamed(v, "m: Int", "factor")
    assert "{factor}" in out and "* factor\n" in out and "m=1" not in out and "factor=1" in out


def test_the_input_of_an_environment(tmp_path):
    v = view_of(tmp_path)
    out = renamed(v, "n: Int", "number")
    assert "env again(number: Int" in out and "str(number)" in out and "Total n's digits." in out


def test_placeholder_offsets():
    src = '"""a {k} {{k}} {{{k}}} {kk} {k!r} {k:>3} }} {k.x}"""'
    got = RN.placeholder_offsets(src, "k")
    assert [src[i - 1: i + 2] for i in got] == ["{k}", "{k}", "{k!", "{k:", "{k."]
    assert got[1] == src.index("{{{k}}}") + 3


def test_name_problems():
    assert RN.name_problem("score2") is None and RN.name_problem("é_x") is None and RN.name_problem("_") is None
    for bad in ("", "a b", "9a", "a-b", "where", "env", "module", "yield", "None", "_x", "__x__", "a__b", "sorted",
                "Dict", "it", "ﬁx"):
        assert RN.name_problem(bad), bad


def test_workspace_edit_forms(tmp_path: Path):
    ws = Workspace(roots=[tmp_path])
    open_path, disk_path = str(tmp_path / "a.races"), str(tmp_path / "b.races")
    ws.open(Path(open_path).as_uri(), "x", 7)
    r = L.Range(L.Position(0, 0), L.Position(0, 1))
    ranges = [(open_path, r), (disk_path, r), (open_path, r)]  # (a duplicate is dropped)
    e = RN.workspace_edit(ws, ranges, "y", document_changes=False)
    assert e.document_changes is None and {len(v) for v in e.changes.values()} == {1} and len(e.changes) == 2
    e = RN.workspace_edit(ws, ranges, "y", document_changes=True)
    assert [dc.text_document.version for dc in e.document_changes] == [7, None]
    assert RN.wants_document_changes(client_capabilities("visual-studio-code"))
    assert not RN.wants_document_changes(client_capabilities("neovim")) and not RN.wants_document_changes(None)


def test_same_name_is_an_empty_edit(tmp_path):
    v = view_of(tmp_path)
    e = RN.rename(v, position(SRC, "helper("), "helper")
    assert e.changes == {} and not e.document_changes
