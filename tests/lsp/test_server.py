"""End to end through pytest-lsp, once as Neovim (UTF-8 positions) and once as VS Code
(UTF-16): diagnostics with exact ranges, hover, completion, definition into the stdlib,
references, symbols, semantic tokens, quick fixes, and a file broken then repaired."""

from __future__ import annotations

import pytest

pytest.importorskip("pytest_lsp", reason="pytest-lsp is not installed (pip install 'racesl[lsp,dev]')")

from lsprotocol import types as L  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402
import pytest_lsp  # noqa: E402

from racesl import resources  # noqa: E402
from tests.lsp.conftest import (  # noqa: E402
    CLIENTS, DEMO, change, expected_units, make_client, open_doc, replace_all, server_command, server_env, wait_for,
)
from tests.lsp.conftest import position as _pos  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")

ENC = {"neovim": "utf-8", "visual-studio-code": "utf-16"}


@pytest_lsp.fixture(scope="module", params=CLIENTS,
                    config=ClientServerConfig(server_command=server_command(), client_factory=make_client,
                                              server_env=server_env()))
async def client(request, lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"ws-{request.param}")
    result = await lsp_client.initialize_session(L.InitializeParams(
        capabilities=client_capabilities(request.param),
        root_uri=root.as_uri(),
        workspace_folders=[L.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        initialization_options={"debounceMs": 10},
    ))
    lsp_client.root = root
    lsp_client.enc = ENC[request.param]
    lsp_client.result = result
    yield
    await lsp_client.shutdown_session()


async def test_negotiated_encoding(client: LanguageClient):
    assert client.result.capabilities.position_encoding == client.enc
    caps = client.result.capabilities
    assert caps.hover_provider and caps.definition_provider and caps.document_symbol_provider
    assert caps.semantic_tokens_provider is not None and caps.code_action_provider


async def test_clean_file_has_no_errors(client: LanguageClient):
    uri = await open_doc(client, client.root / "demo.races", DEMO)
    errors = [d for d in client.diagnostics[uri] if d.severity == L.DiagnosticSeverity.Error]
    assert errors == []


async def test_diagnostic_ranges_after_non_ascii(client: LanguageClient):
    text = DEMO.replace('    s = "é🙂"\n', '    s = "é🙂" + mystery + "ü"\n')
    uri = await open_doc(client, client.root / "ranges.races", text)
    diags = [d for d in client.diagnostics[uri] if d.code == "E200"]
    assert len(diags) == 1, client.diagnostics[uri]
    d = diags[0]
    line_no = next(i for i, l in enumerate(text.splitlines()) if "mystery" in l)
    line = text.splitlines()[line_no]
    col = line.index("mystery")
    assert d.range.start == L.Position(line_no, expected_units(line, col, client.enc))
    assert d.range.end == L.Position(line_no, expected_units(line, col + len("mystery"), client.enc))
    # the three unit systems really differ on this line
    assert len({expected_units(line, col, e) for e in ("utf-8", "utf-16", "utf-32")}) == 3
    assert "unknown name 'mystery'" in d.message and d.source == "racesc"


async def test_every_range_is_inside_the_document(client: LanguageClient):
    text = "env f(x: Int) -> Int:\n    \"\"\"é🙂 x\"\"\"\n    return (x +\n"  # unclosed bracket at EOF, no newline
    uri = await open_doc(client, client.root / "eof.races", text.rstrip("\n"))
    lines = text.rstrip("\n").split("\n")
    assert client.diagnostics[uri]
    for d in client.diagnostics[uri]:
        for p in (d.range.start, d.range.end):
            assert 0 <= p.line < len(lines)
            assert 0 <= p.character <= expected_units(lines[p.line], len(lines[p.line]), client.enc)


async def test_hover_env_signature_and_composition(client: LanguageClient):
    uri = await open_doc(client, client.root / "demo.races", DEMO, version=2)
    h = await client.text_document_hover_async(L.HoverParams(L.TextDocumentIdentifier(uri),
                                                             _pos(DEMO, "add_one", offset=2)))
    assert h is not None
    v = h.contents.value
    assert "env add_one(n: numbers.Nat) -> Int where 1 <= it <= 501" in v
    assert "Add one to n." in v
    assert "0 <= it <= 500" in v  # the resolved input type, refinement included
    assert "composes after" in v and "proved" in v and "before" in v
    h = await client.text_document_hover_async(L.HoverParams(L.TextDocumentIdentifier(uri),
                                                             _pos(DEMO, "shout", offset=1)))
    assert "Settings: `k: Int where 0 <= it <= 9`" in h.contents.value


async def test_hover_local_helper_builtin_and_stdlib_type(client: LanguageClient):
    uri = await open_doc(client, client.root / "demo.races", DEMO, version=3)

    async def hover(needle, nth=0, offset=0):
        h = await client.text_document_hover_async(L.HoverParams(
            L.TextDocumentIdentifier(uri), _pos(DEMO, needle, nth, offset, client.enc)))
        return h.contents.value if h else ""

    assert "t: Str" in await hover("t * double", offset=0)  # inferred local type
    assert "def double(x: Int) -> Int" in await hover("double(k)")
    assert "Word" in await hover("Word", 1) and "isalpha" in await hover("Word", 1)
    assert "upper" in await hover("upper")
    assert "numbers" in await hover("numbers.Nat")
    assert "demo" in await hover('tags("demo")') or "categories" in await hover("tags")


async def test_completion(client: LanguageClient):
    text = DEMO + "\nenv third(w: Word) -> Str:\n    \"\"\"Third.\"\"\"\n    u = w.\n"
    uri = await open_doc(client, client.root / "comp.races", text)
    lines = text.split("\n")

    async def labels(line_no, col):
        res = await client.text_document_completion_async(L.CompletionParams(
            L.TextDocumentIdentifier(uri), L.Position(line_no, expected_units(lines[line_no], col, client.enc))))
        items = res.items if isinstance(res, L.CompletionList) else res
        return {i.label for i in items}

    ln = lines.index("    u = w.")
    got = await labels(ln, len("    u = w."))
    assert {"upper", "lower", "isalpha"} <= got and "append" not in got  # Str methods only
    ln0 = lines.index("import numbers")
    assert {"numbers", "strings", "lists"} <= await labels(ln0, len("import "))
    body = lines.index("    t = w.upper()")
    got = await labels(body, len("    t = "))
    assert {"w", "k", "double", "add_one", "len", "sorted"} <= got
    at = lines.index('@tags("demo")')
    assert {"sample", "tags", "verify", "laws"} <= await labels(at, 1)
    sig = next(i for i, l in enumerate(lines) if l.startswith("env shout"))
    got = await labels(sig, lines[sig].index("Word"))
    assert {"Int", "Str", "List", "Digit", "Word"} <= got


async def test_definition_into_stdlib_and_local(client: LanguageClient):
    uri = await open_doc(client, client.root / "demo.races", DEMO, version=4)
    locs = await client.text_document_definition_async(L.DefinitionParams(
        L.TextDocumentIdentifier(uri), _pos(DEMO, "Word", 0, 1)))
    assert locs and locs[0].uri.endswith("/strings.races")
    stdlib_text = (resources.stdlib_dir() / "strings.races").read_text()
    line = stdlib_text.splitlines()[locs[0].range.start.line]
    assert line.startswith("type Word")
    # a local helper
    locs = await client.text_document_definition_async(L.DefinitionParams(
        L.TextDocumentIdentifier(uri), _pos(DEMO, "double(k)")))
    assert locs[0].uri == uri and locs[0].range.start.line == DEMO.splitlines().index("def double(x: Int) -> Int:")
    # a parameter
    locs = await client.text_document_definition_async(L.DefinitionParams(
        L.TextDocumentIdentifier(uri), _pos(DEMO, "double(k)", offset=len("double("))))
    sig = next(i for i, l in enumerate(DEMO.splitlines()) if l.startswith("env shout"))
    assert locs[0].range.start.line == sig


async def test_references_across_modules(client: LanguageClient):
    uri = await open_doc(client, client.root / "demo.races", DEMO, version=5)
    refs = await client.text_document_references_async(L.ReferenceParams(
        text_document=L.TextDocumentIdentifier(uri), position=_pos(DEMO, "Word", 1, enc=client.enc),
        context=L.ReferenceContext(include_declaration=True)))
    files = {r.uri.rsplit("/", 1)[-1] for r in refs}
    assert {"demo.races", "strings.races"} <= files
    assert len([r for r in refs if r.uri == uri]) == 2  # the import and the annotation


async def test_document_symbols(client: LanguageClient):
    uri = await open_doc(client, client.root / "demo.races", DEMO, version=6)
    syms = await client.text_document_document_symbol_async(L.DocumentSymbolParams(L.TextDocumentIdentifier(uri)))
    names = [s.name for s in syms]
    assert names == ["Digit", "double", "add_one", "shout"]
    shout = syms[-1]
    assert [c.name for c in shout.children] == ["w", "k"]
    assert shout.kind == L.SymbolKind.Function and syms[0].kind == L.SymbolKind.Class


async def test_semantic_tokens(client: LanguageClient):
    uri = await open_doc(client, client.root / "demo.races", DEMO, version=7)
    legend = client.result.capabilities.semantic_tokens_provider.legend
    toks = await client.text_document_semantic_tokens_full_async(L.SemanticTokensParams(L.TextDocumentIdentifier(uri)))
    data = toks.data
    assert len(data) % 5 == 0 and data
    lines = DEMO.split("\n")
    decoded = {}
    line = col = 0
    for i in range(0, len(data), 5):
        dl, dc, n, typ, mods = data[i: i + 5]
        line += dl
        col = col + dc if dl == 0 else dc
        decoded[(line, col)] = (n, legend.token_types[typ], mods)

    def kind_at(needle, nth=0, offset=0):
        p = _pos(DEMO, needle, nth, offset, client.enc)
        return decoded.get((p.line, p.character), (None, None))[1]

    assert kind_at("env add_one") == "keyword"
    assert kind_at("add_one") == "function"
    assert kind_at("Digit") == "type"
    assert kind_at("w: Word") == "parameter"
    assert kind_at('"é🙂"') == "string"
    assert kind_at("2 * x") == "number"
    assert kind_at("tags") == "decorator"
    assert kind_at("numbers.Nat") == "namespace"
    assert kind_at("t = w") == "variable"
    # the string after non-ASCII text: its length is in client units
    p = _pos(DEMO, '"é🙂"', enc=client.enc)
    assert decoded[(p.line, p.character)][0] == expected_units('"é🙂"', 4, client.enc)
    # tokens never run past their line
    for (ln, c), (n, _, _) in decoded.items():
        assert c + n <= expected_units(lines[ln], len(lines[ln]), client.enc)


async def test_comment_token(client: LanguageClient):
    text = "# a comment with # and 🙂\n" + DEMO
    uri = await open_doc(client, client.root / "commented.races", text)
    legend = client.result.capabilities.semantic_tokens_provider.legend
    toks = await client.text_document_semantic_tokens_full_async(L.SemanticTokensParams(L.TextDocumentIdentifier(uri)))
    assert list(toks.data[:5]) == [0, 0, expected_units(text.split("\n")[0], len(text.split("\n")[0]), client.enc),
                             legend.token_types.index("comment"), 0]


async def test_quick_fix_did_you_mean(client: LanguageClient):
    text = DEMO.replace("return t * double(k)", "return t * doubel(k)").replace("w.upper()", "w.uper()")
    uri = await open_doc(client, client.root / "fix.races", text)
    diags = {d.code: d for d in client.diagnostics[uri]}
    assert {"E200", "E503"} <= set(diags)
    for code, want in (("E200", "double"), ("E503", "upper")):
        d = diags[code]
        actions = await client.text_document_code_action_async(L.CodeActionParams(
            text_document=L.TextDocumentIdentifier(uri), range=d.range,
            context=L.CodeActionContext(diagnostics=[d])))
        assert actions, code
        edit = actions[0].edit.changes[uri][0]
        assert edit.new_text == want and edit.range == d.range
        assert actions[0].kind == L.CodeActionKind.QuickFix


async def test_break_and_repair(client: LanguageClient):
    uri = await open_doc(client, client.root / "demo.races", DEMO, version=10)
    lines = DEMO.split("\n")
    ln = lines.index("    return n + 1")
    # break the header of shout and a body line of add_one
    change(client, uri, 11, (ln, len("    return n + 1")), (ln, len("    return n + 1")), " +")
    p = await wait_for(client, uri, lambda p: p.version == 11)
    assert any(d.code == "E100" and d.range.start.line == ln for d in p.diagnostics), p.diagnostics
    # hover still works on the broken buffer: on the broken line, and elsewhere
    h = await client.text_document_hover_async(L.HoverParams(L.TextDocumentIdentifier(uri), L.Position(ln, 12)))
    assert h is not None and "n: Int where 0 <= it <= 500" in h.contents.value
    h = await client.text_document_hover_async(L.HoverParams(L.TextDocumentIdentifier(uri),
                                                             _pos(DEMO, "double(k)", enc=client.enc)))
    assert h is not None and "def double" in h.contents.value
    sig = next(i for i, l in enumerate(lines) if l.startswith("env shout"))
    change(client, uri, 12, (sig, 9), (sig, 10), "")  # "env shout(w" -> "env shoutw" — header broken
    p = await wait_for(client, uri, lambda p: p.version == 12)
    assert any(d.range.start.line == sig for d in p.diagnostics)
    h = await client.text_document_hover_async(L.HoverParams(L.TextDocumentIdentifier(uri), L.Position(sig + 2, 4)))
    assert h is not None and "t: Str" in h.contents.value  # from the last analysis that parsed
    # repair both
    replace_all(client, uri, 13, DEMO)
    p = await wait_for(client, uri, lambda p: p.version == 13)
    assert not [d for d in p.diagnostics if d.severity == L.DiagnosticSeverity.Error]


async def test_edits_reach_importing_documents(client: LanguageClient):
    lib_text = 'def helper(x: Int) -> Int:\n    return x + 1\n'
    user_text = ('from mylib import helper\n\nenv use(n: Int where 0 <= it <= 9) -> Int:\n'
                 '    """Apply the helper to n."""\n    return helper(n)\n')
    lib = await open_doc(client, client.root / "mylib.races", lib_text)
    user = await open_doc(client, client.root / "user.races", user_text)
    assert not [d for d in client.diagnostics[user] if d.severity == L.DiagnosticSeverity.Error]
    # rename the helper in the (unsaved) library buffer: the importing document hears of it
    change(client, lib, 2, (0, 4), (0, 10), "helper2")
    p = await wait_for(client, user, lambda p: any(d.code == "E204" for d in p.diagnostics))
    d = next(d for d in p.diagnostics if d.code == "E204")
    assert d.range.start == L.Position(0, len("from mylib import ")) and "helper2" in d.message
    # closing the library buffer: the file on disk (with `helper`) counts again
    client.text_document_did_close(L.DidCloseTextDocumentParams(L.TextDocumentIdentifier(lib)))
    await wait_for(client, user, lambda p: not any(d.code == "E204" for d in p.diagnostics))
