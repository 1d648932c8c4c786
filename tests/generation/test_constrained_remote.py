"""The grammar through an endpoint: vLLM's structured-output parameter arrives at the server
(tests/support/openai_stub.py), and a reply cut at max_tokens says so."""

import json

import pytest

from racesl.generation import OpenAIBackend, Request
from tests.support.openai_stub import Raw

FAST = {"backoff": 0.01, "timeout": 5.0}
GRAMMAR = 'start: "module m"\n'


def test_grammar_is_sent_as_structured_outputs(openai_stub):
    stub = openai_stub(lambda body: "module m")
    backend = OpenAIBackend(stub.url, **FAST)
    assert backend.supports_grammar
    [r] = backend.generate([Request("hi", max_tokens=9, grammar=GRAMMAR)])
    assert r.ok and r.texts == ("module m",)
    [body] = stub.requests
    assert body["structured_outputs"] == {"grammar": GRAMMAR}
    assert "guided_grammar" not in body
    backend.generate([Request("no grammar")])
    assert "structured_outputs" not in stub.requests[-1]  # only where asked for


def test_older_servers_get_guided_grammar(openai_stub):
    stub = openai_stub(lambda body: "module m")
    OpenAIBackend(stub.url, grammar_field="guided_grammar", **FAST).generate([Request("hi", grammar=GRAMMAR)])
    [body] = stub.requests
    assert body["guided_grammar"] == GRAMMAR and "structured_outputs" not in body
    with pytest.raises(ValueError, match="grammar_field"):
        OpenAIBackend(stub.url, grammar_field="guided_json")


def test_a_reply_cut_at_max_tokens_says_so(openai_stub):
    reply = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "module m\n\ndef f("},
                          "finish_reason": "length"}]}
    stub = openai_stub(lambda body: Raw(json.dumps(reply)))
    [r] = OpenAIBackend(stub.url, **FAST).generate([Request("hi", max_tokens=7, grammar=GRAMMAR)])
    assert r.ok and r.detail == "1 of 1 cut at max_tokens (7)"
