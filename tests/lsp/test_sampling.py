"""The sampler on save (racesl.lsp.sampling), end to end through pytest-lsp: what only
`racesc check`'s sampling finds arrives after open and save with source "racesl sampler",
leaves at the next edit, and stays away once a fixed version is saved; and, in-process,
the versioning of `Sampling` (a newer start or an edit discards the older probe)."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("pytest_lsp", reason="pytest-lsp is not installed (pip install 'racesl[lsp,dev]')")

from lsprotocol import types as L  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402
import pytest_lsp  # noqa: E402

from racesl.lsp.sampling import SOURCE, Sampling, from_json, probe_document, to_json  # noqa: E402
from tests.lsp.conftest import (  # noqa: E402
    make_client, open_doc, replace_all, server_command, server_env, wait_for,
)

on_server = pytest.mark.asyncio(loop_scope="module")  # (one server for the module's client tests)

# checks without errors; only running it shows that 5..9 come back outside the return type
OVER = '''\
env over(x: Int where 0 <= it <= 9) -> Int where it < 5:
    """Return x unchanged."""
    return x
'''
OVER_FIXED = OVER.replace("return x\n", "return min(x, 4)\n")

# checks without errors; no input can be sampled: the refinement's helper loops
SLOW = '''\
def slow(x: Int) -> Bool:
    i = 0
    while i >= 0:
        i = i + 1
    return True

env f(n: Int where 0 <= it <= 5 and slow(it)) -> Int:
    """Add one to n."""
    return n + 1
'''


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(
    server_command=server_command(), client_factory=make_client, server_env=server_env()))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("ws-sampling")
    await lsp_client.initialize_session(L.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=root.as_uri(),
        workspace_folders=[L.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        initialization_options={"debounceMs": 10},
    ))
    lsp_client.root = root
    yield
    await lsp_client.shutdown_session()


def sampled(p) -> list[L.Diagnostic]:
    return [d for d in p.diagnostics if d.source == SOURCE]


async def next_publish(client, uri: str, after: int, predicate=lambda p: True, timeout: float = 60.0):
    """The first publishDiagnostics for `uri` received after the first `after` ones."""
    return await wait_for(client, uri, predicate, timeout, after=after)


def save(client, path, uri: str, text: str) -> int:
    """Write `text` to disk and send didSave; the number of publishes received before."""
    path.write_text(text, encoding="utf-8")
    n = len(client.published)
    client.text_document_did_save(L.DidSaveTextDocumentParams(L.TextDocumentIdentifier(uri)))
    return n


@on_server
async def test_contract_violation_found_only_by_sampling_is_shown(client: LanguageClient):
    path = client.root / "over.races"
    uri = await open_doc(client, path, OVER)
    first = client.published[-1]
    assert not [d for d in first.diagnostics if d.severity == L.DiagnosticSeverity.Error and d.source != SOURCE]
    p = await wait_for(client, uri, lambda p: sampled(p))  # the probe started on open
    assert sorted(d.code for d in sampled(p)) == ["E600", "W600"]  # W600: most samples fail
    d = next(d for d in sampled(p) if d.code == "E600")
    assert d.severity == L.DiagnosticSeverity.Error
    assert d.message.startswith("over(") and "outside Int where it < 5" in d.message
    assert d.range.start == L.Position(0, 4)  # the environment's name
    assert p.version == 1

    # an edit clears it (it described other text) ...
    replace_all(client, uri, 2, OVER + "\n")
    p = await wait_for(client, uri, lambda p: p.version == 2)
    assert sampled(p) == []
    # ... saving brings it back ...
    n = save(client, path, uri, OVER + "\n")
    p = await next_publish(client, uri, n)
    assert sorted(d.code for d in sampled(p)) == ["E600", "W600"] and p.version == 2
    # ... and once the fixed version is saved, it is gone
    replace_all(client, uri, 3, OVER_FIXED)
    p = await wait_for(client, uri, lambda p: p.version == 3)
    assert sampled(p) == []
    n = save(client, path, uri, OVER_FIXED)
    p = await next_publish(client, uri, n)  # the probe's answer: nothing
    assert p.version == 3 and sampled(p) == [] and list(p.diagnostics) == []


@on_server
async def test_unsampleable_refinement_on_save(client: LanguageClient):
    path = client.root / "slow.races"
    text = SLOW.replace("0 <= it <= 5 and slow(it)", "0 <= it <= 5")  # fine at first
    uri = await open_doc(client, path, text)
    n0 = len(client.published)
    replace_all(client, uri, 2, SLOW)
    p = await wait_for(client, uri, lambda p: p.version == 2)
    assert not [d for d in p.diagnostics if d.severity == L.DiagnosticSeverity.Error]
    n = save(client, path, uri, SLOW)
    assert n >= n0
    p = await next_publish(client, uri, n, lambda p: sampled(p))
    [d] = sampled(p)
    assert d.code == "E602"
    assert "ran out of fuel (a budget of 400 steps)" in d.message and "slow(it)" in d.message
    assert "hint: each refinement check gets 400 steps" in d.message
    assert d.data["code"] == "E602"
    # regular diagnostics keep their source
    assert all(x.source == "racesc" for x in p.diagnostics if x not in sampled(p))


@on_server
async def test_a_stale_probe_never_publishes(client: LanguageClient):
    """Save, then edit at once: the probe of the saved text is cancelled, and nothing the
    sampler says reaches the edited version."""
    path = client.root / "stale.races"
    uri = await open_doc(client, path, OVER_FIXED)
    replace_all(client, uri, 2, OVER)
    await wait_for(client, uri, lambda p: p.version == 2)
    n = save(client, path, uri, OVER)
    replace_all(client, uri, 3, OVER + "\n")
    await next_publish(client, uri, n, lambda p: p.version == 3)
    # a later save of the same text still probes (and only then does E600 appear)
    m = save(client, path, uri, OVER + "\n")
    p = await next_publish(client, uri, m, lambda p: sampled(p))
    assert p.version == 3
    assert not any(sampled(q) for q in client.published[n:m] if q.uri == uri)


# ---------------------------------------------------------------- in-process


def test_probe_document_matches_check_and_is_deterministic(tmp_path):
    path = tmp_path / "over.races"
    path.write_text(OVER, encoding="utf-8")
    a = probe_document(str(path), OVER)
    assert [d.code for d in a] == ["E600", "W600"] and {d.path for d in a} == {str(path)}
    assert probe_document(str(path), OVER) == a  # the same seed, the same samples
    assert probe_document(str(path), OVER_FIXED) == []
    assert probe_document(str(path), "env broken(x: Int) -> Int:\n    return y\n") == []  # check errors: nothing run
    assert [from_json(to_json(d)) for d in a] == a


@pytest.mark.asyncio(loop_scope="function")
async def test_sampling_versions(tmp_path):
    path = tmp_path / "over.races"
    path.write_text(OVER, encoding="utf-8")
    s = Sampling()
    done: list[str] = []
    s.start("u", str(path), OVER_FIXED, [], done.append)
    s.start("u", str(path), OVER, [], done.append)  # supersedes the first
    for _ in range(600):
        if done:
            break
        await asyncio.sleep(0.05)
    assert done == ["u"] and s.runs == 1
    assert [d.code for d in s.diagnostics_for("u", OVER)] == ["E600", "W600"]
    assert s.diagnostics_for("u", OVER_FIXED) == []  # keyed by the text probed
    assert s.invalidate("u") and s.diagnostics_for("u", OVER) == []
    s.start("u", str(path), OVER, [], done.append)
    await asyncio.sleep(0.2)
    assert not s.invalidate("u")  # cancelled before it finished: nothing to drop
    await asyncio.sleep(1.5)
    assert done == ["u"] and s.tasks == {} and s.results == {}
