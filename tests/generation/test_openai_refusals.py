"""OpenAIBackend against servers that refuse or stall: a strict server that answers a field it
does not know with a 400 (the grammar is then sent no more, said once, and the replies note
it), and requests in flight that `interrupt()` ends at once, retries and backoffs included."""

from __future__ import annotations

import threading
import time

from racesl.generation import OpenAIBackend, Request
from tests.support.openai_stub import Fail, Slow

# what OpenAI's own chat API takes of the fields the backend sends
KNOWN = {"model", "messages", "temperature", "seed", "max_tokens", "n"}


def strict(reply: str, known=KNOWN):
    """A server that refuses any field it does not know, as OpenAI's API does."""
    def script(body):
        extra = sorted(set(body) - known)
        if extra:
            return Fail(400, f"Unrecognized request argument supplied: {extra[0]}")
        return reply
    return script


def test_a_refused_grammar_is_dropped_once_and_remembered(openai_stub):
    stub = openai_stub(strict("module m\n"))
    backend = OpenAIBackend(stub.url, model="m", retries=0, concurrency=1)
    replies = backend.generate([Request("q", seed=i, grammar="start: 'x'") for i in range(3)])
    assert all(r.ok and r.texts == ("module m\n",) for r in replies)
    assert "structured_outputs" in backend.grammar_refused and "400" in backend.grammar_refused
    assert all("sent without the grammar" in r.detail for r in replies)
    # the first request was sent twice (with, then without); the later ones only without
    fields = [("structured_outputs" in b) for b in stub.requests]
    assert fields == [True, False, False, False]


def test_the_older_field_name_is_recognised_too(openai_stub):
    stub = openai_stub(strict("ok"))
    backend = OpenAIBackend(stub.url, model="m", retries=0, grammar_field="guided_grammar")
    reply, = backend.generate([Request("q", grammar="start: 'x'")])
    assert reply.ok and "guided_grammar" in backend.grammar_refused


def test_another_400_is_not_retried_and_the_grammar_is_kept(openai_stub):
    stub = openai_stub(strict("ok", known=KNOWN - {"seed"}))  # a server that refuses `seed`
    backend = OpenAIBackend(stub.url, model="m", retries=2)
    reply, = backend.generate([Request("q", grammar="start: 'x'")])
    assert not reply.ok and "HTTP 400" in reply.detail and "seed" in reply.detail
    assert backend.grammar_refused is None and len(stub.requests) == 1  # a 400 is not retried


def test_interrupt_ends_requests_in_flight_at_once(openai_stub):
    stub = openai_stub(lambda body: Slow(60, "late"))
    backend = OpenAIBackend(stub.url, model="m", timeout=120, retries=3, concurrency=4)
    out: list = []
    worker = threading.Thread(target=lambda: out.extend(backend.generate([Request("q", seed=i) for i in range(4)])))
    worker.start()
    deadline = time.monotonic() + 30
    while len(stub.requests) < 4 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(stub.requests) == 4
    began = time.monotonic()
    backend.interrupt()
    worker.join(10)
    assert not worker.is_alive() and time.monotonic() - began < 3.0
    assert [r.status for r in out] == ["error"] * 4 and all(r.detail == "interrupted" for r in out)
    assert len(stub.requests) == 4  # no retry went out


def test_interrupt_wakes_a_retry_backoff(openai_stub):
    stub = openai_stub(lambda body: Fail(503, "busy"))
    backend = OpenAIBackend(stub.url, model="m", retries=5, backoff=30.0, concurrency=1)
    out: list = []
    worker = threading.Thread(target=lambda: out.extend(backend.generate([Request("q")])))
    worker.start()
    deadline = time.monotonic() + 30
    while not stub.requests and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.2)  # now in its 30 s backoff
    began = time.monotonic()
    backend.interrupt()
    worker.join(10)
    assert not worker.is_alive() and time.monotonic() - began < 3.0
    assert out[0].detail == "interrupted" and len(stub.requests) == 1
    # the backend works again for the next call
    stub.script = lambda body: "fine"
    assert backend.generate([Request("q")])[0].texts == ("fine",)


def test_which_refusals_name_the_grammar():
    """Hypothesis: a 400 whose text names the field (any wording around it) drops the grammar;
    another status, or a 400 that names something else, never does."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from racesl.generation.remote import _Failure

    backend = OpenAIBackend("http://127.0.0.1:9/v1", model="m")
    text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
    around = st.tuples(text, text).filter(  # no wording that names the field by itself
        lambda p: not any(w in (p[0] + p[1]).lower() for w in ("grammar", "structured_outputs")))

    @settings(max_examples=60, deadline=None)
    @given(around, st.sampled_from([400, 404, 422, 429, 500]),
           st.sampled_from(["structured_outputs", "Structured_Outputs", "STRUCTURED_OUTPUTS", "grammar"]))
    def run(pair, code, field):
        before, after = pair
        named = _Failure(f"HTTP {code}: {before}{field}{after}", retry=False, code=code)
        other = _Failure(f"HTTP {code}: {before}{after}", retry=False, code=code)
        assert backend._refuses_grammar(named) == (code == 400)
        assert not backend._refuses_grammar(other)

    run()
