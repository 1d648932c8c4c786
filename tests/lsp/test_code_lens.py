"""Code lens end to end through pytest-lsp (as Neovim and as VS Code): one lens per
environment, resolved to "composes after N · before M" with the command
racesl.showComposers [uri, position, locations]; the counts and locations must be those of
the signature graph of the same library (the workspace's files and the stdlib), built here
independently with check_paths and SignatureGraph."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytest_lsp", reason="pytest-lsp is not installed (pip install 'racesl[lsp,dev]')")

from lsprotocol import types as L  # noqa: E402
from pytest_lsp import LanguageClient  # noqa: E402
import pytest_lsp  # noqa: E402

from racesl import resources  # noqa: E402
from racesl.check import check_paths  # noqa: E402
from racesl.graph.signature import SignatureGraph  # noqa: E402
from tests.lsp.conftest import CLIENTS, open_doc, server_config, start_session  # noqa: E402
from tests.lsp.edits import uri_path  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")


TEMPS = '''\
newtype Celsius = Int where -50 <= it <= 50

def same(c: Celsius, answer: Celsius) -> Bool:
    return c == answer

env warm(c: Celsius) -> Celsius:
    """Warm c (é🙂)."""
    return c

env cool(c: Celsius) -> Celsius:
    """Cool c."""
    return c

env reading(n: Int where 0 <= it <= 9) -> Celsius:
    """The temperature of reading n, ten degrees a step."""
    return 10 * n - 40

env label(c: Celsius) -> Str:
    """Write c with its unit."""
    return f"{c} C"

@verify(same)
env settle(c: Celsius) -> Celsius:
    """Give back c."""
    return c
'''

SENSORS = '''\
from temps import Celsius

env sensor(n: Int where 0 <= it <= 3) -> Celsius:
    """Sensor n's temperature."""
    return 5 * n
'''


@pytest_lsp.fixture(scope="module", params=CLIENTS, config=server_config())
async def client(request, lsp_client: LanguageClient, tmp_path_factory):
    await start_session(lsp_client, request.param, tmp_path_factory.mktemp(f"lens-{request.param}"),
                        {"temps.races": TEMPS, "sensors.races": SENSORS}, sampling=False)
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def graph(tmp_path_factory) -> tuple[SignatureGraph, dict]:
    """The signature graph of the same files, computed without the server."""
    root = tmp_path_factory.mktemp("lens-graph")
    (root / "temps.races").write_text(TEMPS, encoding="utf-8")
    (root / "sensors.races").write_text(SENSORS, encoding="utf-8")
    stdlib = sorted(str(p) for p in resources.stdlib_dir().glob("*.races"))
    checked = check_paths([str(root / "temps.races"), str(root / "sensors.races")] + stdlib)
    assert checked.ok
    g = SignatureGraph(checked.envs())
    where = {q: (Path(e.path).name if Path(e.path).parent == root else str(Path(e.path).resolve()),
                 e.node.name_span.line - 1) for q, e in g.envs.items()}
    return g, where


async def lenses(client, uri: str) -> list[L.CodeLens]:
    return await client.text_document_code_lens_async(L.CodeLensParams(L.TextDocumentIdentifier(uri)))


async def resolve(client, lens: L.CodeLens) -> L.CodeLens:
    return await client.code_lens_resolve_async(lens)


def where_of(client, uri: str) -> str:
    """A workspace file by its name, a stdlib file by its resolved path (as `graph` has them)."""
    path = Path(uri_path(uri))
    return path.name if path.parent == client.root else str(path.resolve())


async def test_advertised(client: LanguageClient):
    assert client.result.capabilities.code_lens_provider.resolve_provider


async def test_one_lens_per_environment_resolved_like_the_graph(client: LanguageClient, graph):
    g, where = graph
    uri = await open_doc(client, client.root / "temps.races", TEMPS)
    got = await lenses(client, uri)
    lines = TEMPS.split("\n")
    envs = [ln.split("(")[0][4:] for ln in lines if ln.startswith("env ")]
    assert len(got) == len(envs) == 5
    for lens, name in zip(got, envs):
        line = next(i for i, ln in enumerate(lines) if ln.startswith(f"env {name}("))
        assert lens.range.start == L.Position(line, len("env ")) and lens.command is None  # resolved lazily
        done = await resolve(client, lens)
        q = f"temps.{name}"
        before, after = g.predecessors(q), g.successors(q)
        assert done.command.title == f"composes after {len(before)} · before {len(after)}", name
        assert done.command.command == "racesl.showComposers"
        doc_uri, position, locations = done.command.arguments
        assert doc_uri == uri and position == {"line": line, "character": len("env ")}
        want = {where[d] for d, _ in before} | {where[d] for d, _ in after}
        assert {(where_of(client, loc["uri"]), loc["range"]["start"]["line"]) for loc in locations} == want
        assert len(locations) == len(want)  # once each
    # by hand, for the environments that only the workspace feeds
    titles = {n: (await resolve(client, lens)).command.title for lens, n in zip(got, envs)}
    assert titles["warm"] == "composes after 4 · before 4"  # warm, cool, reading, sensor · warm, cool, label, settle
    assert titles["settle"] == "composes after 4 · before 0"  # terminal: it only ends chains


async def test_the_hover_agrees(client: LanguageClient, graph):
    g, _ = graph
    uri = await open_doc(client, client.root / "temps.races", TEMPS, version=2)
    line = TEMPS.split("\n").index("env reading(n: Int where 0 <= it <= 9) -> Celsius:")
    h = await client.text_document_hover_async(L.HoverParams(L.TextDocumentIdentifier(uri), L.Position(line, 6)))
    n_before = len(g.predecessors("temps.reading"))
    assert f"composes after {n_before} env" in h.contents.value
    lens = next(ln for ln in await lenses(client, uri) if ln.range.start.line == line)
    assert (await resolve(client, lens)).command.title.startswith(f"composes after {n_before} ·")


async def test_locations_cover_the_names(client: LanguageClient):
    text = "# é🙂\n" + TEMPS.replace("env label(", "env  label(")
    uri = await open_doc(client, client.root / "temps.races", text, version=3)
    lens = next(ln for ln in await lenses(client, uri) if ln.range.start.line == text.split("\n").index(
        "env  label(c: Celsius) -> Str:"))
    assert lens.range.start.character == len("env  ")
    warm = next(ln for ln in await lenses(client, uri) if ln.range.start.line == 6)
    locations = (await resolve(client, warm)).command.arguments[2]
    label = next(loc for loc in locations if loc["uri"] == uri and loc["range"]["start"]["character"] == 5)
    assert label["range"]["end"]["character"] - label["range"]["start"]["character"] == len("label")


async def test_broken_document_and_bad_data(client: LanguageClient):
    text = TEMPS + "\nenv broken(c: Celsius -> Int:\n    return 1\n"
    uri = await open_doc(client, client.root / "temps.races", text, version=4)
    got = await lenses(client, uri)
    assert len(got) == 5  # the environment that does not parse has none; the others keep theirs
    assert (await resolve(client, got[0])).command.command == "racesl.showComposers"
    for data in (None, {"uri": uri, "env": "nope"}, {"uri": 3}, "junk"):
        done = await resolve(client, L.CodeLens(L.Range(L.Position(0, 0), L.Position(0, 1)), data=data))
        assert done.command is not None and done.command.command == ""
    await open_doc(client, client.root / "temps.races", TEMPS, version=5)
