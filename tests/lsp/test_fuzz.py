"""~200 random edits through didChange (inserts and deletes of snippets, unicode included)
per client: the server never crashes, and never publishes a range outside the document
(in the client's own units: UTF-8 for Neovim, UTF-16 for VS Code)."""

from __future__ import annotations

import random
import re

import pytest

pytest.importorskip("pytest_lsp", reason="pytest-lsp is not installed (pip install 'racesl[lsp,dev]')")

from lsprotocol import types as L  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402
import pytest_lsp  # noqa: E402

from racesl import resources  # noqa: E402
from racesl.check import check_paths  # noqa: E402
from tests.lsp.conftest import (  # noqa: E402
    CLIENTS, expected_units, make_client, open_doc, server_command, server_env, wait_for,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

ENC = {"neovim": "utf-8", "visual-studio-code": "utf-16"}
SNIPPETS = ["(", ")", "[", "]", ":", "\n", "    ", "\t", '"', '"""', "'''", "#", "\\", "env ", "def ", "@", "where ",
            "it", "->", "=", "/", "lambda", "é", "🙂", "日本", "\r", "\r\n", "f'{", "}", ",", "x.y", "__", "1.5",
            "return ", "import numbers\n", "\nenv g(x: Int) -> Int:\n    return x\n", " + y", "é🙂 ", "\0"]
BREAKS = re.compile(r"\r\n|\r|\n")
EDITS = 200


def lines_of(text: str) -> list[str]:
    return BREAKS.split(text)


def position(text: str, offset: int, enc: str) -> L.Position:
    starts = [0] + [m.end() for m in BREAKS.finditer(text)]
    line = max(i for i, s in enumerate(starts) if s <= offset)
    # an offset between \r and \n belongs to the end of the line
    content = lines_of(text)[line]
    col = min(offset - starts[line], len(content))
    return L.Position(line, expected_units(content, col, enc))


def offset_of(text: str, offset: int) -> int:
    """Snap an offset off the middle of a \\r\\n pair (LSP cannot address it)."""
    if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
        return offset - 1
    return offset


def in_bounds(text: str, rng: L.Range, enc: str) -> bool:
    ls = lines_of(text)
    for p in (rng.start, rng.end):
        if not (0 <= p.line < len(ls)):
            return False
        if not (0 <= p.character <= expected_units(ls[p.line], len(ls[p.line]), enc)):
            return False
    return (rng.start.line, rng.start.character) <= (rng.end.line, rng.end.character)


@pytest_lsp.fixture(scope="module", params=CLIENTS,
                    config=ClientServerConfig(server_command=server_command(), client_factory=make_client,
                                              server_env=server_env()))
async def client(request, lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"fuzz-{request.param}")
    await lsp_client.initialize_session(L.InitializeParams(
        capabilities=client_capabilities(request.param), root_uri=root.as_uri(),
        initialization_options={"debounceMs": 5}))
    lsp_client.root = root
    lsp_client.enc = ENC[request.param]
    yield
    await lsp_client.shutdown_session()


async def test_random_edits(client: LanguageClient):
    enc = client.enc
    rng = random.Random(20240 + len(enc))
    text = (resources.stdlib_dir() / "strings.races").read_text(encoding="utf-8")
    uri = await open_doc(client, client.root / "strings.races", text)
    texts = {1: text}
    version = 1
    for k in range(EDITS):
        version += 1
        n = len(text)
        a = offset_of(text, rng.randrange(n + 1))
        if rng.random() < 0.55:
            b, new = a, rng.choice(SNIPPETS)
        else:
            b, new = offset_of(text, min(n, a + rng.randint(1, 30))), ""
        if rng.random() < 0.1:  # sometimes replace a span with a snippet
            new = rng.choice(SNIPPETS)
        start, end = position(text, a, enc), position(text, b, enc)
        text = text[:a] + new + text[b:]
        texts[version] = text
        client.text_document_did_change(L.DidChangeTextDocumentParams(
            L.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [L.TextDocumentContentChangePartial(range=L.Range(start, end), text=new)]))
        if k % 20 == 19:
            # requests flush pending analyses; their answers must be in bounds too
            p = position(text, rng.randrange(len(text) + 1), enc)
            h = await client.text_document_hover_async(L.HoverParams(L.TextDocumentIdentifier(uri), p))
            if h is not None and h.range is not None:
                assert in_bounds(text, h.range, enc)
            await client.text_document_completion_async(L.CompletionParams(L.TextDocumentIdentifier(uri), p))
            toks = await client.text_document_semantic_tokens_full_async(
                L.SemanticTokensParams(L.TextDocumentIdentifier(uri)))
            ls = lines_of(text)
            line = col = 0
            for i in range(0, len(toks.data), 5):
                dl, dc, length = toks.data[i: i + 3]
                line += dl
                col = col + dc if dl == 0 else dc
                assert line < len(ls) and col + length <= expected_units(ls[line], len(ls[line]), enc)
            await client.text_document_document_symbol_async(L.DocumentSymbolParams(L.TextDocumentIdentifier(uri)))
    await wait_for(client, uri, lambda p: p.version == version)
    checked = 0
    for p in client.published:
        if p.uri != uri:
            continue
        assert p.version in texts
        for d in p.diagnostics:
            assert in_bounds(texts[p.version], d.range, enc), (p.version, d)
            checked += 1
    assert checked > 0
    # the server's copy of the text is ours: its final diagnostics are the compiler's on our text
    ref_dir = client.root / "ref"
    ref_dir.mkdir(exist_ok=True)
    (ref_dir / "strings.races").write_text(text, encoding="utf-8", newline="")
    ref = check_paths([ref_dir / "strings.races"])
    ls = lines_of(text)

    def conv(line: int, col: int) -> tuple[int, int]:
        if line >= len(ls):
            return len(ls) - 1, expected_units(ls[-1], len(ls[-1]), enc)
        return line, expected_units(ls[line], min(col, len(ls[line])), enc)

    want = sorted((d.code, conv(d.span.line - 1, d.span.col - 1), conv(d.span.end_line - 1, d.span.end_col - 1))
                  for d in ref.diagnostics if d.path.endswith("ref/strings.races"))
    got = sorted((str(d.code), (d.range.start.line, d.range.start.character), (d.range.end.line, d.range.end.character))
                 for d in client.diagnostics[uri])
    assert got == want
    # still alive and answering
    h = await client.text_document_hover_async(L.HoverParams(L.TextDocumentIdentifier(uri), L.Position(0, 0)))
    assert client.error is None
    del h
