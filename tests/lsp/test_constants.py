"""Module constants in the editor: hover, completion, go-to-definition and semantic tokens
know them (racesl.lsp.index's "constant" kind)."""

from __future__ import annotations

import pytest

pytest.importorskip("lsprotocol", reason="lsprotocol is not installed (pip install 'racesl[lsp]')")

from racesl.lsp import definition as DE  # noqa: E402
from racesl.lsp import hover as HO  # noqa: E402
from racesl.lsp.semantic_tokens import SemanticTokens  # noqa: E402
from tests.lsp.test_features import labels, pos, view_of  # noqa: E402

SRC = '''\
WORDS: List[Str] = "apple pear fig kiwi".split()
LIMIT: Int = len(WORDS) * 2

def pick(rng, level) -> Str:
    return rng.choice(WORDS)

@sample(w=pick)
env locate(w: Str where 1 <= len(it) <= 5) -> Int:
    """Return where w is in the word list."""
    return WORDS.index(w) + LIMIT if w in WORDS else LIMIT
'''


def test_hover_shows_a_constants_type_and_value(tmp_path):
    v = view_of(tmp_path, SRC, "consts.races")
    h = HO.hover(v, pos(SRC, "WORDS)")).contents.value
    assert "WORDS: List[Str] = 'apple pear fig kiwi'.split()" in h and "constant" in h
    h = HO.hover(v, pos(SRC, "LIMIT if")).contents.value
    assert "LIMIT: Int = len(WORDS) * 2" in h


def test_completion_offers_constants(tmp_path):
    v = view_of(tmp_path, SRC, "consts.races")
    got = labels(v, SRC, "def h(n: Int) -> Int:\n    return ")
    assert {"WORDS", "LIMIT", "pick"} <= got


def test_definition_goes_to_the_constant(tmp_path):
    v = view_of(tmp_path, SRC, "consts.races")
    d = DE.definition(v, pos(SRC, "WORDS.index"))
    assert d and d[0].range.start == pos(SRC, "WORDS: List")
    refs = DE.references(v, pos(SRC, "LIMIT: Int"), True)
    assert len(refs) == 3


def test_semantic_tokens_do_not_break_on_constants(tmp_path):
    v = view_of(tmp_path, SRC, "consts.races")
    assert SemanticTokens().full(v).data


def test_signature_help_inside_a_constants_value(tmp_path):
    from tests.lsp.test_signature_help import active
    from tests.lsp.test_signature_help import view_of as sig_view

    text = 'def twice(n: Int) -> Int:\n    return 2 * n\n\nN: Int = twice(3) + min(4, 5)\n'
    v = sig_view(tmp_path, text, "sigc.races")
    got = active(v, text, "twice(3", 6)
    assert got == ("def twice(n: Int) -> Int", "n: Int")
    got = active(v, text, "min(4, ", 7)
    assert got is not None and "min(" in got[0]
