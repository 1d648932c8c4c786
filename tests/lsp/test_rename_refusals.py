"""Rename refuses names whose rename would change meaning or break the module: a sampler's
`rng` (the checker knows the generator by that name), as old name or new, in prepareRename
too (so the editor never offers it); keywords, builtins, `it` and decorators are not
offered; every rename it does allow leaves the module checking."""

from __future__ import annotations

import pytest

pytest.importorskip("pytest_lsp", reason="pytest-lsp is not installed (pip install 'racesl[lsp,dev]')")

from lsprotocol import types as L  # noqa: E402
from pygls.exceptions import JsonRpcException  # noqa: E402
from pytest_lsp import LanguageClient  # noqa: E402
import pytest_lsp  # noqa: E402

from racesl.lsp import rename as RN  # noqa: E402
from tests.lsp.conftest import open_doc, position, server_config, start_session  # noqa: E402
from tests.lsp.edits import apply, errors_after  # noqa: E402
from tests.lsp.views import make_view  # noqa: E402

SRC = '''\
type Digit = Int where 0 <= it <= 9

def pick(rng, level) -> Int:
    xs = [1, 2, 3]
    rng.shuffle(xs)
    return rng.randint(0, 5 + level) + xs[0]

@sample(n=pick)
env add(n: Int where 0 <= it <= 100, k: Digit) -> Int:
    """Add {k} to n."""
    total = n + k
    return total
'''


def test_the_sample_checks(tmp_path):
    assert errors_after({str(tmp_path / "m.races"): SRC}) == []


@pytest.mark.parametrize("needle, nth", [("rng", 0), ("rng.shuffle", 0), ("rng.randint", 0)])
def test_rng_is_never_offered_nor_renamed(tmp_path, needle, nth):
    v = make_view(tmp_path, SRC, "m.races")
    at = position(SRC, needle, nth)
    with pytest.raises(JsonRpcException, match="'rng' cannot be renamed"):
        RN.prepare_rename(v, at)
    with pytest.raises(JsonRpcException, match="'rng' cannot be renamed"):
        RN.rename(v, at, "gen")


@pytest.mark.parametrize("new, why", [("rng", "'rng' is reserved"), ("it", "reserved for the value"),
                                      ("len", "built-in"), ("Int", "built-in"), ("return", "keyword"),
                                      ("n", "already uses 'n'"), ("k", "already uses 'k'")])
def test_new_names_that_would_change_meaning_are_refused(tmp_path, new, why):
    v = make_view(tmp_path, SRC, "m.races")
    with pytest.raises(JsonRpcException, match=why):
        RN.rename(v, position(SRC, "total"), new)


@pytest.mark.parametrize("needle, nth", [("it <= 9", 0), ("it <= 100", 0), ("return", 0), ("sample", 0),
                                         ("Int", 0), ("shuffle", 0)])
def test_names_that_are_not_the_users_are_not_offered(tmp_path, needle, nth):
    v = make_view(tmp_path, SRC, "m.races")
    assert RN.prepare_rename(v, position(SRC, needle, nth)) is None


@pytest.mark.parametrize("needle, new", [("level", "lv"), ("xs", "ys"), ("k:", "kk"), ("n: Int", "m"),
                                         ("pick", "choose"), ("Digit", "Small"), ("total", "level")])
def test_what_is_offered_keeps_the_module_checking(tmp_path, needle, new):
    v = make_view(tmp_path, SRC, "m.races")
    at = position(SRC, needle)
    assert RN.prepare_rename(v, at) is not None
    texts = apply({v.a.path: v.a.text}, RN.rename(v, at, new), "utf-16")
    assert errors_after(texts) == [] and texts[v.a.path] != SRC


@pytest_lsp.fixture(scope="module", params=["neovim"], config=server_config())
async def client(request, lsp_client: LanguageClient, tmp_path_factory):
    await start_session(lsp_client, request.param, tmp_path_factory.mktemp("rename-refusals"), None,
                        sampling=False)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_prepare_rename_on_rng_over_lsp(client: LanguageClient):
    uri = await open_doc(client, client.root / "m.races", SRC)
    doc = L.TextDocumentIdentifier(uri)
    for needle in ("rng", "rng.randint"):
        with pytest.raises(JsonRpcException, match="'rng' cannot be renamed"):
            await client.text_document_prepare_rename_async(
                L.PrepareRenameParams(doc, position(SRC, needle, enc=client.enc)))
    with pytest.raises(JsonRpcException, match="'rng' is reserved"):
        await client.text_document_rename_async(L.RenameParams(doc, position(SRC, "total", enc=client.enc), "rng"))
    ok = await client.text_document_prepare_rename_async(
        L.PrepareRenameParams(doc, position(SRC, "level", enc=client.enc)))
    assert ok is not None and ok.placeholder == "level"
