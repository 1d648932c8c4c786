"""Signature help and inlay hints end to end through pytest-lsp, once as Neovim (UTF-8
positions) and once as VS Code (UTF-16): the advertised options, the active parameter of
nested and keyword arguments, parameter offsets and hint positions in the client's units,
and a call typed (unclosed) into the document."""

from __future__ import annotations

import pytest

pytest.importorskip("pytest_lsp", reason="pytest-lsp is not installed (pip install 'racesl[lsp,dev]')")

from lsprotocol import types as L  # noqa: E402
from pytest_lsp import LanguageClient  # noqa: E402
import pytest_lsp  # noqa: E402

from tests.lsp.conftest import (  # noqa: E402
    CLIENTS, change, open_doc, position, server_config, start_session, wait_for,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

CODEC = {"utf-8": ("utf-8", 1), "utf-16": ("utf-16-le", 2)}

TEXT = '''\
from numbers import Nat

def both(x: Int, y: Str where it != "é🙂") -> Bool:
    return x > 0 and y != ""

env mod55(n: Nat, w: Str where it != "é🙂") -> Int:
    """Reduce n, checking {w}."""
    xs = sorted([n, len(w)], key=lambda a: -a, reverse=both(y=w, x=n))
    ok = both(0, "é🙂") or both(n, w)
    return (n + xs[0] + int(ok)) % 55
'''


@pytest_lsp.fixture(scope="module", params=CLIENTS, config=server_config())
async def client(request, lsp_client: LanguageClient, tmp_path_factory):
    await start_session(lsp_client, request.param, tmp_path_factory.mktemp(f"sig-{request.param}"),
                        None)
    yield
    await lsp_client.shutdown_session()


def _param_texts(sig: L.SignatureInformation, enc: str) -> list[str]:
    codec, width = CODEC[enc]
    raw = sig.label.encode(codec)
    return [raw[p.label[0] * width:p.label[1] * width].decode(codec) for p in sig.parameters]


async def _help(client, uri, text, needle, offset) -> L.SignatureHelp | None:
    return await client.text_document_signature_help_async(L.SignatureHelpParams(
        L.TextDocumentIdentifier(uri), position(text, needle, offset=offset, enc=client.enc)))


async def test_advertised(client: LanguageClient):
    caps = client.result.capabilities
    assert caps.signature_help_provider is not None
    assert list(caps.signature_help_provider.trigger_characters) == ["(", ","]
    assert caps.inlay_hint_provider


async def test_signature_help_nested_and_keywords(client: LanguageClient):
    uri = await open_doc(client, client.root / "sig.races", TEXT)
    h = await _help(client, uri, TEXT, "[n, len", 1)
    s = h.signatures[h.active_signature]
    assert s.label == "sorted(xs, key=, reverse=) -> List" and h.active_parameter == 0
    h = await _help(client, uri, TEXT, "key=lambda", 6)
    assert h.signatures[0].parameters[h.active_parameter].label == (11, 15)  # ASCII: the same in every encoding
    # the innermost call, by keyword; offsets past a non-ASCII character in the client's units
    h = await _help(client, uri, TEXT, "x=n))", 2)
    s = h.signatures[h.active_signature]
    assert s.label == 'def both(x: Int, y: Str where it != "é🙂") -> Bool'
    assert _param_texts(s, client.enc) == ["x: Int", 'y: Str where it != "é🙂"']
    assert h.active_parameter == 0
    h = await _help(client, uri, TEXT, "y=w", 2)
    assert h.active_parameter == 1
    assert s.documentation is None or isinstance(s.documentation, L.MarkupContent)
    # a cursor past non-ASCII text on its line, in the client's units
    h = await _help(client, uri, TEXT, "both(n, w)", 8)
    assert h.signatures[0].label.startswith("def both(") and h.active_parameter == 1
    # outside any call
    assert await _help(client, uri, TEXT, "return (n", 0) is None


async def test_signature_help_while_typing_an_unclosed_call(client: LanguageClient):
    uri = await open_doc(client, client.root / "typing.races", TEXT)
    line = TEXT.split("\n").index("    return (n + xs[0] + int(ok)) % 55")
    change(client, uri, 2, (line, 0), (line, 0), "    q = both(n, \n")
    await wait_for(client, uri, lambda p: p.version == 2)
    typed = TEXT.replace("    return (n + xs", "    q = both(n, \n    return (n + xs")
    h = await _help(client, uri, typed, "both(n, ", 8)
    s = h.signatures[h.active_signature]
    assert s.label.startswith("def both(") and h.active_parameter == 1
    h = await _help(client, uri, typed, "    q = both(n, ", 13)
    assert h.active_parameter == 0


async def test_inlay_hints(client: LanguageClient):
    uri = await open_doc(client, client.root / "hints.races", TEXT, version=3)
    lines = TEXT.split("\n")
    got = await client.text_document_inlay_hint_async(L.InlayHintParams(
        L.TextDocumentIdentifier(uri), L.Range(L.Position(0, 0), L.Position(len(lines), 0))))
    by_label = {"".join(p.value for p in h.label): h for h in got}
    assert set(by_label) == {": List[Int]", ": Bool", "where 0 <= it <= 54"}
    h = by_label["where 0 <= it <= 54"]
    assert h.position == position(TEXT, ') -> Int:', offset=len(") -> Int"), enc=client.enc)  # after "é🙂" on its line
    assert h.padding_left and h.kind == L.InlayHintKind.Type
    assert by_label[": List[Int]"].position == position(TEXT, "    xs", offset=len("    xs"), enc=client.enc)
    # a range without them
    none = await client.text_document_inlay_hint_async(L.InlayHintParams(
        L.TextDocumentIdentifier(uri), L.Range(L.Position(0, 0), L.Position(2, 0))))
    assert not none
