"""Shared fixtures of the language-server tests.

pyproject's pytest settings are not ours to change, so asyncio is enabled per module with
`pytestmark = pytest.mark.asyncio(loop_scope="module")` (pytest-asyncio's strict mode) and
the server fixture is module-scoped: one server per module and client (~2 s each).
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CLIENTS = ["neovim", "visual-studio-code"]
ENC = {"neovim": "utf-8", "visual-studio-code": "utf-16"}  # the position encoding each negotiates
PUBLISH = "textDocument/publishDiagnostics"

DEMO = '''\
import numbers
from strings import Word

type Digit = Int where 0 <= it <= 9

def double(x: Int) -> Int:
    return 2 * x

@tags("demo")
env add_one(n: numbers.Nat) -> Int where 1 <= it <= 501:
    """Add one to n."""
    s = "é🙂"
    return n + 1

env shout(w: Word, k: Digit) -> Str:
    """Upper-case w, then repeat it {k} times."""
    t = w.upper()
    return t * double(k)
'''


def server_command() -> list[str]:
    return [sys.executable, "-m", "racesl", "lsp", "--debounce-ms", "10"]


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONHASHSEED"] = "0"  # no re-exec: start the server directly
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def expected_units(line: str, col: int, enc: str) -> int:
    """Code-point column → the client's units, computed independently of the server."""
    prefix = line[:col]
    if enc == "utf-8":
        return len(prefix.encode("utf-8"))
    if enc == "utf-16":
        return len(prefix.encode("utf-16-le")) // 2
    return len(prefix)


def position(text: str, needle: str, nth: int = 0, offset: int = 0, enc: str = "utf-32"):
    """LSP position of the `nth` occurrence of needle (+`offset` code points), in `enc` units."""
    from lsprotocol import types as L

    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    i += offset
    line = text.count("\n", 0, i)
    col = i - (text.rfind("\n", 0, i) + 1)
    return L.Position(line, expected_units(text.split("\n")[line], col, enc))


def server_config():
    """pytest-lsp's configuration: `racesc lsp` as a child process, our client class."""
    from pytest_lsp import ClientServerConfig

    return ClientServerConfig(server_command=server_command(), client_factory=make_client, server_env=server_env())


async def start_session(lsp_client, profile: str, root: Path, files: dict[str, str] | None = None, **options):
    """Initialize as the client `profile` with `root` (holding `files`, name → text) as the
    workspace folder; `options` join the initialization options (debounce 10 ms). The client
    keeps root, profile, enc and the initialize result."""
    from lsprotocol import types as L
    from pytest_lsp import client_capabilities

    for name, text in (files or {}).items():
        (root / name).write_text(text, encoding="utf-8")
    lsp_client.result = await lsp_client.initialize_session(L.InitializeParams(
        capabilities=client_capabilities(profile), root_uri=root.as_uri(),
        workspace_folders=[L.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        initialization_options={"debounceMs": 10, **options}))
    lsp_client.root, lsp_client.profile, lsp_client.enc = root, profile, ENC[profile]
    return lsp_client.result


def make_client():
    """pytest-lsp's test client, also keeping every publishDiagnostics (with its version)."""
    from pygls.protocol import default_converter
    from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, LanguageClient, register_lsp_features

    client = LanguageClient(converter_factory=default_converter)
    feats = {k: v for k, v in DEFAULT_CLIENT_FEATURES.items() if k != PUBLISH}
    register_lsp_features(client, feats)
    client.published = []

    @client.feature(PUBLISH)
    def _published(ls, params):  # (pygls passes the client as `ls`)
        ls.diagnostics[params.uri] = params.diagnostics
        ls.published.append(params)

    return client


async def wait_for(client, uri: str, predicate=lambda p: True, timeout: float = 20.0, after: int = 0):
    """The first publishDiagnostics for `uri` (already received or coming), past the first
    `after` received, that satisfies `predicate`."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    seen = after
    while True:
        for p in client.published[seen:]:
            if p.uri == uri and predicate(p):
                return p
        seen = max(seen, len(client.published))
        left = end - loop.time()
        if left <= 0:
            raise TimeoutError(f"no matching diagnostics for {uri}; last: {client.diagnostics.get(uri)}")
        try:
            await asyncio.wait_for(client.wait_for_notification(PUBLISH), left)
        except asyncio.TimeoutError:
            pass


async def open_doc(client, path: Path, text: str, version: int = 1):
    from lsprotocol import types as L

    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(L.DidOpenTextDocumentParams(
        L.TextDocumentItem(uri=uri, language_id="races", version=version, text=text)))
    await wait_for(client, uri, lambda p: p.version == version)
    return uri


def change(client, uri: str, version: int, start, end, text: str) -> None:
    from lsprotocol import types as L

    client.text_document_did_change(L.DidChangeTextDocumentParams(
        L.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [L.TextDocumentContentChangePartial(range=L.Range(L.Position(*start), L.Position(*end)), text=text)]))


def replace_all(client, uri: str, version: int, text: str) -> None:
    from lsprotocol import types as L

    client.text_document_did_change(L.DidChangeTextDocumentParams(
        L.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [L.TextDocumentContentChangeWholeDocument(text=text)]))


def _have(mod: str) -> bool:
    try:
        __import__(mod)
        return True
    except ImportError:
        return False


needs_lsp = pytest.mark.skipif(not (_have("pygls") and _have("pytest_lsp")),
                               reason="pygls and pytest-lsp are not installed (pip install 'racesl[lsp,dev]')")
