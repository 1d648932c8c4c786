"""Document formatting through pytest-lsp (as Neovim and as VS Code): the edits the server
sends turn the buffer into exactly `racesc fmt`'s text, a formatted buffer gets no edits,
and a buffer with syntax errors gets none either."""

from __future__ import annotations

import pytest

pytest.importorskip("pytest_lsp", reason="pytest-lsp is not installed (pip install 'racesl[lsp,dev]')")

from lsprotocol import types as L  # noqa: E402
from pytest_lsp import LanguageClient  # noqa: E402
import pytest_lsp  # noqa: E402

from racesl.format import format_source  # noqa: E402
from racesl.lsp.documents import LineIndex, units_to_cp  # noqa: E402
from tests.lsp.conftest import CLIENTS, open_doc, server_config, start_session  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")

MESSY = '''module  messy

type Nat = Int where 0 <= it <= 500
type Small=Int where 0<=it<=9

@tags( "demo" )
@sample( n=pick )
env label(n:Nat,k:Int where 1<=it<=3)->Str:
    """Write n and {k} as text: "é🙂" stays; a long description wraps at the width of the layout, \
which is a hundred columns."""
    s = "é🙂" ; t = str( n )
    if k>1 : return t*k
    return s+t
def pick(rng, level) -> Int:
    return rng.randint(0, 9)
'''


@pytest_lsp.fixture(scope="module", params=CLIENTS, config=server_config())
async def client(request, lsp_client: LanguageClient, tmp_path_factory):
    await start_session(lsp_client, request.param, tmp_path_factory.mktemp(f"fmt-{request.param}"),
                        None, sampling=False)
    yield
    await lsp_client.shutdown_session()


def apply(text: str, edits: list[L.TextEdit], enc: str) -> str:
    """The client's side: apply LSP text edits (non-overlapping) to `text`."""
    idx = LineIndex(text)

    def offset(p: L.Position) -> int:
        if p.line >= len(idx.starts):
            return len(text)
        start = idx.starts[p.line]
        end = idx.starts[p.line + 1] if p.line + 1 < len(idx.starts) else len(text)
        return start + units_to_cp(text[start:end].rstrip("\r\n"), p.character, enc)

    spans = sorted(((offset(e.range.start), offset(e.range.end), e.new_text) for e in edits), reverse=True)
    for a, b, new in spans:
        text = text[:a] + new + text[b:]
    return text


async def _format(client: LanguageClient, uri: str):
    return await client.text_document_formatting_async(L.DocumentFormattingParams(
        text_document=L.TextDocumentIdentifier(uri=uri), options=L.FormattingOptions(tab_size=4, insert_spaces=True)))


async def test_formatting_is_advertised(client: LanguageClient):
    assert client.result.capabilities.document_formatting_provider


@pytest.mark.parametrize("final_newline", [True, False])
async def test_edits_give_the_formatted_text(client: LanguageClient, final_newline: bool):
    text = MESSY if final_newline else MESSY.rstrip("\n")
    uri = await open_doc(client, client.root / f"messy_{final_newline}.races", text)
    edits = await _format(client, uri)
    expected = format_source(text).text
    assert expected != text and edits
    assert apply(text, edits, client.enc) == expected
    if final_newline:
        assert len(edits) > 1  # line edits, not one replacement of everything


async def test_formatted_text_gets_no_edits(client: LanguageClient):
    text = format_source(MESSY).text
    uri = await open_doc(client, client.root / "tidy.races", text)
    edits = await _format(client, uri)
    assert edits is not None and list(edits) == []


async def test_syntax_errors_get_no_edits(client: LanguageClient):
    uri = await open_doc(client, client.root / "broken.races", "env f(x: Int) -> Int:\n    return (x +\n")
    assert not await _format(client, uri)
