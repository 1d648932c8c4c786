"""Rename and prepareRename end to end through pytest-lsp, as Neovim (UTF-8, `changes`)
and as VS Code (UTF-16, `documentChanges`): helpers, types, settings (with their
description placeholders and `@sample` keywords), helper parameters (with call keywords in
other modules) and locals, across an open document and a workspace file on disk; every
edit is applied here and the files must still check. Refusals: bad or clashing names, the
read-only stdlib, documents with syntax errors. (In-process pieces: test_rename_parts.py.)"""

from __future__ import annotations

import itertools
import pytest

pytest.importorskip("pytest_lsp", reason="pytest-lsp is not installed (pip install 'racesl[lsp,dev]')")

from lsprotocol import types as L  # noqa: E402
from pygls.exceptions import JsonRpcException  # noqa: E402
from pytest_lsp import LanguageClient  # noqa: E402
import pytest_lsp  # noqa: E402

from racesl import resources  # noqa: E402
from tests.lsp.conftest import CLIENTS, open_doc, replace_all, server_config, start_session, wait_for  # noqa: E402
from tests.lsp.conftest import position  # noqa: E402
from tests.lsp.edits import apply, edits_by_uri, errors_after  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")


LIB = '''\
def double(x: Int) -> Int:
    return 2 * x

newtype Score = Int where 0 <= it <= 100
'''

MAIN = '''\
import lib
from lib import double, Score
from strings import Word

def pick(rng, level) -> Int:
    return rng.randint(0, 3)

@sample(k=pick)
env shout(w: Word, k: Int where 0 <= it <= 3) -> Str:
    """Upper-case w 🙂, then repeat it {k} times ({{k}} is no placeholder)."""
    t = w.upper()
    return t * lib.double(x=k) + str(double(k)) + f"{t}é"

env grade(s: Score) -> lib.Score:
    """Keep s."""
    return s
'''

_versions = itertools.count(1)


@pytest_lsp.fixture(scope="module", params=CLIENTS, config=server_config())
async def client(request, lsp_client: LanguageClient, tmp_path_factory):
    await start_session(lsp_client, request.param, tmp_path_factory.mktemp(f"rename-{request.param}"),
                        {"lib.races": LIB, "main.races": MAIN}, sampling=False)
    yield
    await lsp_client.shutdown_session()


async def open_main(client, text: str = MAIN) -> str:
    return await open_doc(client, client.root / "main.races", text, version=next(_versions))


def pos(client, text: str, needle: str, nth: int = 0, plus: int = 0) -> L.Position:
    return position(text, needle, nth, plus, client.enc)


async def prepare(client, uri: str, p: L.Position):
    return await client.text_document_prepare_rename_async(L.PrepareRenameParams(L.TextDocumentIdentifier(uri), p))


async def rename(client, uri: str, p: L.Position, new: str) -> L.WorkspaceEdit:
    return await client.text_document_rename_async(L.RenameParams(L.TextDocumentIdentifier(uri), p, new))


async def renamed(client, uri: str, p: L.Position, new: str) -> dict[str, str]:
    """The workspace's files after the rename (applied here), which must still check."""
    edit = await rename(client, uri, p, new)
    assert edit is not None
    # the server keeps to one form: the one the client supports
    assert bool(edit.document_changes) == (client.profile == "visual-studio-code")
    root = client.root
    texts = apply({str(root / "main.races"): MAIN, str(root / "lib.races"): LIB}, edit, client.enc)
    assert errors_after(texts) == []
    return texts


async def test_capabilities(client: LanguageClient):
    caps = client.result.capabilities
    assert caps.rename_provider == L.RenameOptions(prepare_provider=True)
    assert caps.workspace_symbol_provider and caps.code_lens_provider.resolve_provider
    ecp = caps.execute_command_provider
    assert "racesl.showComposers" not in (ecp.commands if ecp else ())  # the client's own command


async def test_prepare_rename_range_and_placeholder(client: LanguageClient):
    uri = await open_main(client)
    got = await prepare(client, uri, pos(client, MAIN, "double(k)", plus=3))
    assert got.placeholder == "double"
    assert got.range == L.Range(pos(client, MAIN, "double(k)"), pos(client, MAIN, "double(k)", plus=6))
    got = await prepare(client, uri, pos(client, MAIN, "{t}", plus=1))  # a local inside an f-string
    assert got.placeholder == "t" and got.range.start == pos(client, MAIN, "{t}", plus=1)
    got = await prepare(client, uri, pos(client, MAIN, "k=pick"))  # the @sample keyword is the parameter
    assert got.placeholder == "k"


@pytest.mark.parametrize("needle,plus", [
    ("randint", 2),  # a method
    ("str(double", 1),  # a builtin
    ("Str:", 1),  # a base type
    ("sample", 2),  # a decorator
    ("it <= 3", 0),  # the value of a refinement
    ("env shout", 1),  # a keyword
    ("import lib", 8),  # a module
    ("\n\ndef pick", 1),  # an empty line
    ('"""Upper', 5),  # inside a docstring
])
async def test_prepare_rename_null(client: LanguageClient, needle, plus):
    uri = await open_main(client)
    assert await prepare(client, uri, pos(client, MAIN, needle, plus=plus)) is None


async def test_rename_helper_across_modules(client: LanguageClient):
    uri = await open_main(client)
    texts = await renamed(client, uri, pos(client, MAIN, "double(k)"), "twice")
    main, lib = texts[str(client.root / "main.races")], texts[str(client.root / "lib.races")]
    assert main == MAIN.replace("double", "twice") and lib == LIB.replace("double", "twice")
    # the same from the declaration in the (unopened) workspace file's importer, and
    # the edit of the file on disk carries no version
    edit = await rename(client, uri, pos(client, MAIN, "double, Score"), "twice")
    files = {u.rsplit("/", 1)[-1] for u in edits_by_uri(edit)}
    assert files == {"main.races", "lib.races"}
    for dc in edit.document_changes or []:
        assert (dc.text_document.version is None) == dc.text_document.uri.endswith("/lib.races")


async def test_rename_type_across_modules(client: LanguageClient):
    uri = await open_main(client)
    texts = await renamed(client, uri, pos(client, MAIN, "lib.Score", plus=4), "Grade")
    assert texts[str(client.root / "main.races")] == MAIN.replace("Score", "Grade")
    assert texts[str(client.root / "lib.races")] == LIB.replace("Score", "Grade")


async def test_rename_setting_rewrites_placeholders_and_sample_keyword(client: LanguageClient):
    uri = await open_main(client)
    texts = await renamed(client, uri, pos(client, MAIN, "k: Int"), "times")
    main = texts[str(client.root / "main.races")]
    assert "@sample(times=pick)" in main and "times: Int where 0 <= it <= 3" in main
    assert "repeat it {times} times ({{k}} is no placeholder)" in main  # after non-ASCII text
    assert "lib.double(x=times) + str(double(times))" in main
    assert texts[str(client.root / "lib.races")] == LIB


async def test_rename_helper_parameter_renames_call_keywords(client: LanguageClient):
    await open_main(client)
    lib_uri = await open_doc(client, client.root / "lib.races", LIB, version=next(_versions))
    try:
        texts = await renamed(client, lib_uri, pos(client, LIB, "x: Int"), "value")
        assert texts[str(client.root / "lib.races")] == LIB.replace("x", "value")
        assert "lib.double(value=k)" in texts[str(client.root / "main.races")]
    finally:
        client.text_document_did_close(L.DidCloseTextDocumentParams(L.TextDocumentIdentifier(lib_uri)))


async def test_rename_local_and_the_server_agrees(client: LanguageClient):
    uri = await open_main(client)
    texts = await renamed(client, uri, pos(client, MAIN, "t = w"), "loud")
    main = texts[str(client.root / "main.races")]
    assert "loud = w.upper()" in main and "return loud * lib" in main and 'f"{loud}é"' in main
    # the edited buffer, sent back to the server, has no errors either
    v = next(_versions)
    replace_all(client, uri, v, main)
    p = await wait_for(client, uri, lambda p: p.version == v)
    assert not [d for d in p.diagnostics if d.severity == L.DiagnosticSeverity.Error], p.diagnostics


@pytest.mark.parametrize("needle,new,why", [
    ("double(k)", "2x", "not a valid identifier"),
    ("double(k)", "for", "keyword"),
    ("double(k)", "newtype", "keyword"),
    ("double(k)", "class", "keyword"),
    ("double(k)", "True", "keyword"),
    ("double(k)", "len", "built-in"),
    ("double(k)", "List", "built-in"),
    ("double(k)", "it", "reserved"),
    ("double(k)", "_hidden", "reserved"),
    ("double(k)", "pick", "already defined in module main"),  # a top-level name where it is used bare
    ("double(k)", "Word", "already imported in module main"),
    ("double(k)", "t", "local of 'shout'"),  # would be shadowed where it is called
    ("Score)", "Word", "already imported in module main"),
    ("t = w", "w", "already uses 'w'"),  # another local of the same function
    ("t = w", "grade", "module-level name"),
    ("k: Int", "t", "already uses 't'"),
])
async def test_refused_names(client: LanguageClient, needle, new, why):
    uri = await open_main(client)
    with pytest.raises(JsonRpcException) as e:
        await rename(client, uri, pos(client, MAIN, needle), new)
    assert why in e.value.message, e.value.message


async def test_stdlib_is_read_only(client: LanguageClient):
    uri = await open_main(client)
    for ask in (prepare(client, uri, pos(client, MAIN, "Word", 1)),
                rename(client, uri, pos(client, MAIN, "Word", 1), "Term")):
        with pytest.raises(JsonRpcException) as e:
            await ask
        assert "stdlib" in e.value.message and "read-only" in e.value.message
    # inside a stdlib file: a local is not renamed either
    path = resources.stdlib_dir() / "strings.races"
    text = path.read_text(encoding="utf-8")
    suri = path.as_uri()
    client.text_document_did_open(L.DidOpenTextDocumentParams(L.TextDocumentItem(suri, "races", 1, text)))
    await wait_for(client, suri, lambda p: p.version == 1)
    try:
        line = next(i for i, ln in enumerate(text.split("\n")) if ln.startswith("def ") and "(rng" not in ln)
        name = text.split("\n")[line][4:].split("(")[0]
        with pytest.raises(JsonRpcException) as e:  # its first parameter
            await prepare(client, suri, L.Position(line, len("def ") + len(name) + 1))
        assert "strings.races is a file of the bundled stdlib, which is read-only" in e.value.message
    finally:
        client.text_document_did_close(L.DidCloseTextDocumentParams(L.TextDocumentIdentifier(suri)))


async def test_syntax_errors(client: LanguageClient):
    broken = MAIN + "\nenv broken(n: Int -> Int:\n    return double(n)\n"
    uri = await open_main(client, broken)
    # a name the part that does not parse mentions: refused, not half renamed
    with pytest.raises(JsonRpcException) as e:
        await rename(client, uri, pos(client, broken, "double(k)"), "twice")
    assert "syntax errors" in e.value.message
    # a local of an item that parses is renamed as usual
    edit = await rename(client, uri, pos(client, broken, "t = w"), "loud")
    assert len(next(iter(edits_by_uri(edit).values()))) == 3
    # no name under the cursor in the broken item: null, and the server keeps serving
    assert await prepare(client, uri, pos(client, broken, "broken(n")) is None
    with pytest.raises(JsonRpcException):
        await rename(client, uri, pos(client, broken, "broken(n"), "fine")
    assert await prepare(client, uri, pos(client, broken, "double(k)")) is not None
