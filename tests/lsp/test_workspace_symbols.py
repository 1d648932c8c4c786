"""workspace/symbol end to end through pytest-lsp (as Neovim and as VS Code): environments,
helpers and types of workspace files, open documents and the stdlib, ranked exact >
prefix > substring > subsequence (the user's modules first within a rank), case-insensitive,
capped, with kinds, containers and locations that point at the names."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytest_lsp", reason="pytest-lsp is not installed (pip install 'racesl[lsp,dev]')")

from lsprotocol import types as L  # noqa: E402
from pytest_lsp import LanguageClient  # noqa: E402
import pytest_lsp  # noqa: E402

from racesl import resources  # noqa: E402
from racesl.lsp import workspace_symbols as WS  # noqa: E402
from tests.lsp.conftest import CLIENTS, expected_units, open_doc, server_config, start_session  # noqa: E402
from tests.lsp.edits import uri_path  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")


SHAPES = '''\
type Small = Int where 0 <= it <= 9

def add(a: Int, b: Int) -> Int:
    return a + b

def my_add(a: Int) -> Int:
    return add(a, 1)

def a_dd(a: Int) -> Int:
    return a

env add_one(n: Small) -> Int:
    """Add one to n."""
    return add(n, 1)
'''

UNSAVED = '''\
# é🙂
env  fresh_thing(n: Int where 0 <= it <= 9) -> Int:
    """Give back n."""
    return n
'''


@pytest_lsp.fixture(scope="module", params=CLIENTS, config=server_config())
async def client(request, lsp_client: LanguageClient, tmp_path_factory):
    await start_session(lsp_client, request.param, tmp_path_factory.mktemp(f"wsym-{request.param}"),
                        {"shapes.races": SHAPES}, sampling=False)
    yield
    await lsp_client.shutdown_session()


async def symbols(client, query: str) -> list[L.WorkspaceSymbol]:
    return await client.workspace_symbol_async(L.WorkspaceSymbolParams(query=query))


def independent_rank(name: str, query: str) -> int:
    n, q = name.lower(), query.lower()
    if n == q:
        return 0
    if n.startswith(q):
        return 1
    if q in n:
        return 2
    rest = n
    for c in q:
        k = rest.find(c)
        assert k >= 0, (name, query)
        rest = rest[k + 1:]
    return 3


def is_stdlib(uri: str) -> bool:
    return Path(uri_path(uri)).resolve().parent == resources.stdlib_dir().resolve()


async def test_advertised(client: LanguageClient):
    assert client.result.capabilities.workspace_symbol_provider


async def test_ranked_and_user_modules_first(client: LanguageClient):
    got = await symbols(client, "add")
    assert got and len(got) <= WS.MAX_RESULTS
    keys = [(independent_rank(s.name, "add"), is_stdlib(s.location.uri)) for s in got]
    assert keys == sorted(keys)  # by rank, then the user's modules before the stdlib
    mine = [s.name for s in got if s.container_name == "shapes"]
    assert mine == ["add", "add_one", "my_add", "a_dd"]
    assert got[0].name == "add" and got[0].kind == L.SymbolKind.Function
    assert any(s.container_name != "shapes" and is_stdlib(s.location.uri) for s in got)  # the stdlib is searched


async def test_case_kinds_and_locations(client: LanguageClient):
    got = await symbols(client, "ADD_ONE")
    assert got[0].name == "add_one" and got[0].container_name == "shapes"
    small = next(s for s in await symbols(client, "small") if s.container_name == "shapes")
    assert small.name == "Small" and small.kind == L.SymbolKind.Class
    lines = SHAPES.split("\n")
    for s in (got[0], small):
        assert uri_path(s.location.uri) == str(client.root / "shapes.races")
        r = s.location.range
        assert lines[r.start.line][r.start.character: r.end.character] == s.name
    fib = next(s for s in await symbols(client, "fibonacci") if s.name == "fibonacci")
    assert fib.container_name == "numbers" and fib.location.uri.endswith("/numbers.races")
    assert is_stdlib(fib.location.uri)
    text = (resources.stdlib_dir() / "numbers.races").read_text(encoding="utf-8").split("\n")
    assert text[fib.location.range.start.line].startswith("env fibonacci")


async def test_open_unsaved_document(client: LanguageClient):
    path = client.root / "draft.races"
    uri = await open_doc(client, path, UNSAVED)
    path.write_text("", encoding="utf-8")  # the buffer is what counts
    got = await symbols(client, "fresh_thing")
    assert [(s.name, s.container_name, s.location.uri) for s in got[:1]] == [("fresh_thing", "draft", uri)]
    line = UNSAVED.split("\n")[1]
    assert got[0].location.range.start == L.Position(1, expected_units(line, line.index("fresh"), client.enc))
    sub = await symbols(client, "frsthng")  # a subsequence
    assert any(s.name == "fresh_thing" for s in sub)


async def test_cap_and_no_match(client: LanguageClient):
    assert len(await symbols(client, "")) == WS.MAX_RESULTS  # the stdlib alone has more
    assert await symbols(client, "zzqqxxj") == []


async def test_rank():
    assert [WS.rank(n, "ab") for n in ("ab", "AbC", "cab", "a_b", "ba")] == [0, 1, 2, 3, None]


async def test_a_document_with_syntax_errors(client: LanguageClient):
    text = UNSAVED.replace("fresh_thing", "half_done") + "\nenv broken(n: Int -> Int:\n    return n\n"
    await open_doc(client, client.root / "halfway.races", text)
    got = await symbols(client, "half_done")
    assert got and got[0].name == "half_done" and got[0].container_name == "halfway"
    assert not [s for s in await symbols(client, "broken") if s.container_name == "halfway"]  # it does not parse
