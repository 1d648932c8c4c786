"""`OpenAIBackend` against the scripted stub server in tests/support/openai_stub.py."""

import time

import pytest

from racesl.generation import Backend, OpenAIBackend, Reply, Request, open_backend
from tests.support.openai_stub import Fail, OpenAIStub, Raw, Slow, Texts

FAST = {"backoff": 0.01, "timeout": 5.0}


def echo(body):
    return "echo:" + body["messages"][-1]["content"]


def test_round_trip_and_request_body(openai_stub):
    stub = openai_stub(echo)
    backend = OpenAIBackend(stub.url, api_key="k-123", **FAST)
    assert isinstance(backend, Backend)
    [reply] = backend.generate([Request("hi", system="be brief", temperature=0.7, seed=11, max_tokens=33)])
    assert reply == Reply(texts=("echo:hi",), status="ok", detail=None, seconds=reply.seconds)
    assert backend.model == "stub-model"
    [body] = stub.requests
    assert body == {"model": "stub-model", "temperature": 0.7, "seed": 11, "max_tokens": 33, "n": 1,
                    "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]}
    # Defaults are sent explicitly too, never left to the server.
    backend.generate([Request("x")])
    assert {k: stub.requests[-1][k] for k in ("temperature", "seed", "max_tokens", "n")} == \
        {"temperature": 0.0, "seed": 0, "max_tokens": 256, "n": 1}
    assert [m for m, path, _ in stub.log].count("GET") == 1  # the model list is asked once
    assert all(h.get("Authorization") == "Bearer k-123" for _, _, h in stub.log)


def test_named_model_skips_the_listing_and_n_choices(openai_stub):
    stub = openai_stub(lambda body: Texts(tuple(f"s{i}" for i in range(body["n"]))))
    [reply] = OpenAIBackend(stub.url, model="m1", **FAST).generate([Request("q", n=3)])
    assert reply.texts == ("s0", "s1", "s2") and reply.ok
    assert stub.requests[0]["model"] == "m1" and stub.requests[0]["n"] == 3
    assert all(method == "POST" for method, _, _ in stub.log)


def test_503_then_success_is_retried(openai_stub):
    stub = openai_stub([Fail(503), Fail(429), "fine"])
    [reply] = OpenAIBackend(stub.url, model="m", retries=3, **FAST).generate([Request("q")])
    assert reply.ok and reply.texts == ("fine",)
    assert len(stub.requests) == 3


def test_gives_up_after_retries_naming_the_status(openai_stub):
    stub = openai_stub(lambda body: Fail(502, "bad gateway"))
    [reply] = OpenAIBackend(stub.url, model="m", retries=2, **FAST).generate([Request("q", n=2)])
    assert reply.status == "error" and reply.texts == ("", "")
    assert "HTTP 502" in reply.detail and "3 attempts" in reply.detail
    assert len(stub.requests) == 3


def test_slow_reply_is_retried_then_times_out(openai_stub):
    stub = openai_stub(lambda body: Slow(3.0, "late"))
    began = time.perf_counter()
    [reply] = OpenAIBackend(stub.url, model="m", timeout=0.3, retries=1, backoff=0.01).generate([Request("q")])
    assert reply.status == "timeout" and reply.texts == ("",)
    assert "timed out" in reply.detail and "2 attempts" in reply.detail
    assert len(stub.requests) == 2
    assert time.perf_counter() - began < 2.5


def test_slow_then_fast_recovers(openai_stub):
    stub = openai_stub([Slow(3.0, "late"), "on time"])
    [reply] = OpenAIBackend(stub.url, model="m", timeout=0.3, retries=1, backoff=0.01).generate([Request("q")])
    assert reply.ok and reply.texts == ("on time",)


def test_400_is_not_retried(openai_stub):
    stub = openai_stub([Fail(400, "max_tokens too large"), "never sent"])
    [reply] = OpenAIBackend(stub.url, model="m", retries=3, **FAST).generate([Request("q")])
    assert reply.status == "error" and "HTTP 400" in reply.detail and "max_tokens too large" in reply.detail
    assert len(stub.requests) == 1


@pytest.mark.parametrize("raw, words", [
    (Raw("{not json"), "not JSON"),
    (Raw('{"id": "x"}'), "no choices"),
    (Raw('{"choices": []}'), "no choices"),
    (Raw('{"choices": [{"index": 0, "message": {"role": "assistant"}}]}'), "no content"),
])
def test_malformed_reply_is_an_error(openai_stub, raw, words):
    stub = openai_stub([raw, "never sent"])
    [reply] = OpenAIBackend(stub.url, model="m", **FAST).generate([Request("q")])
    assert reply.status == "error" and words in reply.detail and reply.texts == ("",)
    assert len(stub.requests) == 1


def test_fewer_choices_than_n_is_an_error(openai_stub):
    stub = openai_stub(lambda body: Texts(("only",)))
    [reply] = OpenAIBackend(stub.url, model="m", **FAST).generate([Request("q", n=2)])
    assert reply.status == "error" and reply.texts == ("only", "") and "1 choices for n=2" in reply.detail


def test_order_preserved_under_concurrency(openai_stub):
    # Early prompts answer last, so completion order is the reverse of request order.
    def script(body):
        k = int(body["messages"][-1]["content"])
        return Slow(0.02 * (8 - k), f"answer {k}")

    stub = openai_stub(script)
    replies = OpenAIBackend(stub.url, model="m", concurrency=8, **FAST).generate([Request(str(k)) for k in range(8)])
    assert [r.texts for r in replies] == [(f"answer {k}",) for k in range(8)]
    assert len(stub.requests) == 8
    arrived = [int(b["messages"][-1]["content"]) for b in stub.requests]
    assert sorted(arrived) == list(range(8))


def test_model_listing_failure_is_an_error_reply(openai_stub):
    for models, words in ((Fail(500, "down"), "HTTP 500"), ((), "lists no model")):
        stub = openai_stub(echo, models=models)
        replies = OpenAIBackend(stub.url, retries=1, **FAST).generate([Request("a"), Request("b", n=2)])
        assert [r.status for r in replies] == ["error", "error"] and replies[1].texts == ("", "")
        assert all(words in r.detail for r in replies)
        assert stub.requests == []


def test_connection_refused_is_an_error_reply():
    with OpenAIStub(echo) as stub:
        url = stub.url
    [reply] = OpenAIBackend(url, model="m", retries=1, **FAST).generate([Request("q")])
    assert reply.status == "error" and "connection failed" in reply.detail


def test_empty_and_closed(openai_stub):
    backend = OpenAIBackend(openai_stub(echo).url, **FAST)
    assert backend.generate([]) == []
    backend.close()
    with pytest.raises(RuntimeError, match="closed"):
        backend.generate([Request("q")])


def test_request_validation():
    for bad in ({"n": 0}, {"max_tokens": 0}, {"temperature": -0.1}):
        with pytest.raises(ValueError):
            Request("q", **bad)


def test_open_backend(openai_stub):
    assert open_backend(None, None) is None
    with pytest.raises(ValueError, match="not both"):
        open_backend("some/dir", "http://127.0.0.1:1/v1")
    with pytest.raises(ValueError, match="http"):
        open_backend(None, "127.0.0.1:8000/v1")
    stub = openai_stub(echo)
    backend = open_backend(None, stub.url, served_model="named", timeout=5.0)
    assert isinstance(backend, OpenAIBackend) and backend.model == "named"
    assert backend.generate([Request("z")])[0].texts == ("echo:z",)
