"""Grammar-constrained decoding in process (racesl.generation.constrained) with a tiny random
model: every sample parses, a sample cut at max_tokens is cut back to a complete module, and
free rows in the same batch are untouched."""

import re

import pytest

from racesl.diagnostics import has_errors
from racesl.evolve.grammar import generation_grammar
from racesl.generation import Request, TransformersBackend
from racesl.syntax.parser import parse_module

MODULE = "evo_s0_c0"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from racesl.train.tiny import save_tiny

    path = save_tiny(tmp_path_factory.mktemp("tiny"))
    backend = TransformersBackend(str(path))
    yield backend
    backend.close()


def pinned(text: str) -> bool:
    return re.match(rf"module +{MODULE}\b", text) is not None


def parses(text: str) -> bool:
    return not has_errors(parse_module(text if text.endswith("\n") else text + "\n")[1])


def test_samples_always_parse_and_cuts_are_honest(tiny):
    grammar = generation_grammar(MODULE)
    assert tiny.supports_grammar
    for budget, temperature in ((24, 1.0), (96, 1.5)):
        replies = tiny.generate([Request("write a module", temperature=temperature, seed=s, max_tokens=budget,
                                         grammar=grammar) for s in range(20)])
        for r in replies:
            [text] = r.texts
            assert r.ok and pinned(text), (r, text[:80])
            assert parses(text), text
            if r.detail:  # it ran out of tokens: cut back to the last point the grammar could end
                assert r.detail.startswith(f"cut at max_tokens ({budget}): kept the first"), r.detail
        assert any(r.detail for r in replies)  # the budgets are short: some did run out


def test_the_cut_is_a_prefix_of_what_was_generated(tiny):
    """The same seed with a larger budget generates the same first tokens; the cut text is a
    prefix of that longer text, not a rewrite of it."""
    grammar = generation_grammar(MODULE)
    short, long = tiny.generate([Request("m", temperature=1.2, seed=3, max_tokens=n, grammar=grammar)
                                 for n in (40, 200)])
    assert long.texts[0].startswith(short.texts[0])


def test_free_rows_in_a_mixed_batch_are_unchanged(tiny):
    free = Request("hello", temperature=1.0, seed=5, max_tokens=16)
    alone = tiny.generate([free])[0].texts
    mixed = tiny.generate([Request("hello", temperature=1.0, seed=6, max_tokens=16,
                                   grammar=generation_grammar(MODULE)), free])
    assert mixed[1].texts == alone
    assert pinned(mixed[0].texts[0])


def test_random_walks_over_the_grammar_parse():
    """Soundness beyond what a model picks: 40 random walks, weighted towards structure
    (brackets, line breaks, operators), ended where the grammar accepts."""
    import llguidance
    import llguidance.hf
    import torch

    from racesl.train.tiny import make_tokenizer

    tok = make_tokenizer()
    ll = llguidance.hf.from_tokenizer(tok)
    vocab = len(tok)
    pieces = [tok.decode([i]) for i in range(vocab)]
    weight = torch.tensor([5.0 if "\n" in p else 3.0 if any(c in p for c in ":()[]{},=<>+-*%") else
                           0.01 if p.strip().isalnum() and len(p.strip()) > 2 else 0.3 for p in pieces])
    compiled = llguidance.LLMatcher.grammar_from_lark(generation_grammar(MODULE))
    bits = torch.arange(32, dtype=torch.int32)
    for seed in range(40):
        rng = torch.Generator().manual_seed(seed)
        m = llguidance.LLMatcher(ll, compiled, log_level=0)
        mask = torch.full(((vocab + 31) // 32,), -1, dtype=torch.int32)
        ids, complete = [], 0
        for _ in range(250):
            m.unsafe_compute_mask_ptr(mask.data_ptr(), mask.numel() * 4)
            allowed = ((mask[:, None] >> bits) & 1).bool().reshape(-1)[:vocab]
            w = weight * allowed
            w[tok.eos_token_id] = 0.0
            t = int(torch.multinomial(w, 1, generator=rng))
            assert m.consume_token(t), m.get_error()
            ids.append(t)
            if m.is_accepting():
                complete = len(ids)
        text = tok.decode(ids[:complete])
        assert pinned(text) and parses(text), (seed, text)


def test_without_llguidance_a_grammar_request_is_an_error_reply(tiny, monkeypatch):
    import racesl.generation.constrained as C

    def missing(*a, **k):
        raise C.ConstrainedUnavailable(f"constrained decoding needs llguidance: {C.INSTALL}")

    monkeypatch.setattr(C, "ll_tokenizer", missing)
    [r] = tiny.generate([Request("x", max_tokens=4, grammar=generation_grammar(MODULE))])
    assert r.status == "error" and "needs llguidance" in r.detail
