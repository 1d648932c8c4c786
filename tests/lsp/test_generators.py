"""The language server on a generator environment (`@generate`): hover names the generator
and says it only starts chains, the decorator completes and hovers with its shape, and
'composes after' lists nothing before a source."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("lsprotocol", reason="lsprotocol is not installed (pip install 'racesl[lsp]')")

from lsprotocol import types as L  # noqa: E402

from racesl.lsp import completion as CO  # noqa: E402
from racesl.lsp import hover as HO  # noqa: E402
from tests.lsp.conftest import position  # noqa: E402
from tests.lsp.views import make_view  # noqa: E402

SRC = '''\
import strings

def draw(rng, level) -> Tuple[strings.Word, strings.Word]:
    w = rng.choice(["apple", "tiger", "zebra", "honey"])
    return (w[::-1], w)

@generate(draw)
env unreverse(s: strings.Word) -> strings.Word:
    """Write the letters of s in reverse order."""
'''


def test_hover_shows_the_generator(tmp_path: Path):
    v = make_view(tmp_path, SRC, "gen.races", "utf-16")
    assert not [d for d in v.a.diagnostics() if d.is_error]
    h = HO.hover(v, position(SRC, "unreverse", 0, 1)).contents.value
    assert "generator (@generate(draw)): a source, it only starts chains" in h
    assert "composes after 0 envs (0 proved) · before " in h  # no edge enters a generator environment
    d = HO.hover(v, position(SRC, "generate", 0, 1)).contents.value
    assert "draw(rng, level) -> Tuple[I, O]" in d


def test_before_a_source_nothing_composes():
    from racesl.check import check_paths

    envs = check_paths(["stdlib"]).envs()
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "gen.races"
        p.write_text(SRC)
        checked = check_paths([p])
        src = checked.env("gen.unreverse")
    before, after = HO.composition_edges(envs + [src], src)
    assert before == [] and after  # strings.Word flows on into the stdlib


def test_completion_offers_generate(tmp_path: Path):
    text = SRC + "\n@"
    v = make_view(tmp_path, text, "gen.races", "utf-16")
    res = CO.complete(v, L.Position(text.count("\n"), 1))
    assert "generate" in {i.label for i in res.items}
