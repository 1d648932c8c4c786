"""`[generator] constrained` in the evolve loop: the grammar goes out with every request, the
bare module that comes back is judged, a cut-off one is closed at its last complete line, and
asking for it where the backend cannot is one clear line."""

import os
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import pytest

from racesl.evolve.config import parse
from racesl.evolve.extract import close_prefix, module_text
from racesl.evolve.grammar import generation_grammar
from racesl.evolve.loop import Evolver, constrained, open_generator

from .scripted import ScriptedBackend

CORPUS = Path(__file__).parent / "corpus"
TERNARY = (CORPUS / "ternary.races").read_text(encoding="utf-8")


class GrammarBackend(ScriptedBackend):
    supports_grammar = True


def _cfg(tmp_path, **gen):
    return parse({"pool": {"dir": "pool"}, "generator": {"endpoint": "http://127.0.0.1:9/v1", "candidates_per_step": 2,
                                                          "model_gates": False, **gen}}, tmp_path)


def test_default_follows_the_backend_and_true_where_impossible_is_one_line(tmp_path):
    assert constrained(_cfg(tmp_path), GrammarBackend([])) is True
    assert constrained(_cfg(tmp_path), ScriptedBackend([])) is False
    assert constrained(_cfg(tmp_path, constrained=False), GrammarBackend([])) is False
    with pytest.raises(ValueError) as e:
        constrained(_cfg(tmp_path, constrained=True), ScriptedBackend([]))
    assert str(e.value).startswith("[generator] constrained = true, but scripted cannot decode under a grammar")
    assert "\n" not in str(e.value)


def test_endpoints_are_sent_the_grammar_field_of_the_config(tmp_path):
    backend = open_generator(_cfg(tmp_path, grammar_field="guided_grammar", constrained=True))
    assert backend.grammar_field == "guided_grammar" and backend.supports_grammar


def test_requests_carry_the_pinned_grammar_and_bare_modules_are_judged(tmp_path):
    module = TERNARY.replace("module ternary", "module evo_s0_c0")
    backend = GrammarBackend([module, "module evo_s0_c1\n\ndef f(x: Int) -> Int:\n    return x\n\ndef g("])
    ev = Evolver(_cfg(tmp_path), backend)
    try:
        rows = ev.step(0)
    finally:
        ev.close()
    reqs = backend.requests
    assert [r.grammar for r in reqs] == [generation_grammar("evo_s0_c0"), generation_grammar("evo_s0_c1")]
    assert all("Reply with the module's text only" in r.prompt for r in reqs)
    assert rows[0].gate not in ("extract", "parse"), rows[0]  # no fence needed: the completion is the module
    # the second was cut mid-item by a server: closed at its last complete line, it parses; it
    # stops at check (no environment), not at parse
    assert rows[1].gate == "check", rows[1]


def test_close_prefix_keeps_the_longest_parsing_line_prefix():
    whole = "module m\n\ndef f(x: Int) -> Int:\n    y = x + 1\n    return y\n"
    assert close_prefix(whole) == (whole, 0)
    cut = whole + "\nenv g(x: Int) -> Int:\n    \"\"\"Unfinished"
    head, dropped = close_prefix(cut)
    assert head == whole + "\n" and dropped == 2
    assert module_text("", True).text is None and "empty" in module_text("", True).reason
    # a server that ignored the grammar sent a fenced reply: read as usual
    assert module_text("Sure:\n```races\n" + whole + "```\n", True).text == whole


def test_generator_rows_of_grpo_decode_under_the_grammar(tmp_path):
    """Two-role GRPO with constrained generator rows: every candidate parses (a random model
    otherwise never gets past extract), so none stops at extract or parse."""
    pytest.importorskip("trl")
    from types import SimpleNamespace

    from racesl.admit.run import admit_text
    from racesl.evolve import grpo as G
    from racesl.train.tiny import save_tiny

    from .test_grpo import TRAIN, StdlibPool, fake_reward

    from racesl.admit.context import Context

    ctx = Context(StdlibPool())
    try:
        tiny = save_tiny(tmp_path / "tiny")
        train = {**TRAIN, "max_steps": 1, "max_completion_length": 40}
        tcfg = G.train_config(SimpleNamespace(path=None, train=train))
        built = G.build(tcfg, generator_prompt=lambda step, slot: "Write a module.", library=ctx.pool_lib,
                        admit=lambda text, file: admit_text(text, file, ctx), reward=fake_reward, model=str(tiny),
                        output_dir=str(tmp_path / "run"), constrained=True)
        summary = G.run(built, save=False)
    finally:
        ctx.close()
    f = summary["funnel"]
    assert f["candidates"] == 4 and f["extract"] == 0 and f["parse"] == 0, f


def _junk_reply(chars: int = 19_000) -> str:
    """A constrained-looking reply that never parses: a sound module, then an environment whose
    list never closes, one element a line, up to `chars` characters."""
    head = TERNARY.replace("module ternary", "module evo_s0_c0") + "\nenv g(x: Int) -> Int:\n    return [\n"
    lines, k = [head], 0
    while sum(map(len, lines)) < chars:
        lines.append(f"        {k} + x,\n")
        k += 1
    return "".join(lines)


def test_close_prefix_is_bounded_on_a_long_reply_that_never_parses():
    """One 19,000-character reply once took 112 s (400 parses of it in evolve's own process);
    the first error's line bounds the scan, and a time budget bounds the rest."""
    import time

    from racesl.evolve.extract import CLOSE_SECONDS

    junk = _junk_reply()
    assert 18_000 < len(junk) < 20_000
    began = time.perf_counter()
    head, dropped = close_prefix(junk)
    took = time.perf_counter() - began
    assert head.startswith("module evo_s0_c0") and "env g" not in head and dropped > 1000
    assert took < CLOSE_SECONDS + 5, took
    # a budget of nothing still ends at once, with the items before the first error or nothing
    began = time.perf_counter()
    head, _ = close_prefix(junk, budget=0.0)
    assert time.perf_counter() - began < 5 and "env g" not in head


def test_any_reply_gives_a_candidate_or_a_reason_in_bounded_time():
    """Hypothesis: whatever text a server sends, module_text returns a module text or one reason,
    within its budget, and a text it returns parses."""
    import time

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from racesl.diagnostics import has_errors
    from racesl.evolve.extract import CLOSE_SECONDS
    from racesl.syntax.parser import parse_module

    pieces = st.sampled_from(["module evo_s0_c0\n", "env f(x: Int) -> Int:\n", '    """Double x."""\n',
                              "    return (x +\n", "    return 2 * x\n", "def h(\n", "```races\n", "```\n",
                              "\n", "    ", "\t", "]", "((", '"""', "\ud800", "é", "x = 1\n"])

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(pieces, max_size=60), st.booleans())
    def run(parts, constrained):
        text = "".join(parts)
        began = time.perf_counter()
        ex = module_text(text, constrained)
        assert time.perf_counter() - began < CLOSE_SECONDS + 5
        assert (ex.text is None) != (ex.reason is None)
        if ex.text is not None and constrained and "```" not in text:
            assert not has_errors(parse_module(ex.text if ex.text.endswith("\n") else ex.text + "\n")[1])

    run()
