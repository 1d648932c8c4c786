"""Helpers of the in-process feature tests: a View of a text without a client, and the
random edits the fuzz tests make."""

from __future__ import annotations

from pathlib import Path

from racesl.lsp import index as I
from racesl.lsp.analysis import Workspace
from racesl.lsp.context import View


def open_workspace(tmp_path: Path, text: str, name: str, version: int | None = None) -> tuple[Workspace, str]:
    """A workspace over tmp_path with `text` saved as `name`, opened and analysed; its uri."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    ws = Workspace(roots=[tmp_path])
    ws.open(path.as_uri(), text, version)
    ws.analyze(path.as_uri())
    return ws, path.as_uri()


def make_view(tmp_path: Path, text: str, name: str, enc: str = "utf-16", good: str | None = None,
              version: int | None = None) -> View:
    """A View of `text` saved as tmp_path/name; `good`: a text analysed first (the last
    analysis that parsed stays when `text` does not)."""
    ws, uri = open_workspace(tmp_path, good or text, name, version)
    if good is not None:
        ws.open(uri, text, version)  # (an edit: the last good analysis stays)
    a = ws.analyze(uri)
    assert good is None or ws.last_good[uri].text == good
    return View(ws, a, enc, I.Indexer())


def random_edit(rng, text: str, snippets: list[str]) -> str:
    """Delete a few characters (three times in ten) or insert a snippet, at a random place."""
    i = rng.randint(0, len(text))
    if rng.random() < 0.3 and text:
        return text[:i] + text[i + rng.randint(1, 6):]
    return text[:i] + rng.choice(snippets) + text[i:]
