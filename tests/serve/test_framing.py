"""Refusals below the routes, from a raw socket: bad HTTP framing (request line, Content-Length,
chunking, before or after the headers), non-finite numbers, a client that leaves mid-body.
Every reply is a JSON body, and the server's log holds no traceback for any of them."""

from __future__ import annotations

import json
import socket
import time

import pytest

from racesl.serve import strict_json
from racesl.serve.framing import framing_detail
from tests.serve.conftest import serving

_CHUNKED = b"POST /score HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
FRAMINGS = {
    "request line": [b"GARBAGE\r\n\r\n"],
    "method": [b"G@T /score HTTP/1.1\r\nHost: x\r\n\r\n"],
    "version": [b"GET /health HTTP/9.9\r\nHost: x\r\n\r\n"],
    "content-length not a number": [b"POST /score HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}"],
    "negative content-length": [b"POST /score HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n{}"],
    "two content-lengths": [b"POST /score HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"],
    "length and chunked": [b"POST /score HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                           b"Content-Length: 3\r\n\r\n2\r\n{}\r\n0\r\n\r\n"],
    "unknown transfer-encoding": [b"POST /score HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n"],
    "bad chunk size": [_CHUNKED + b"zz\r\n{}\r\n0\r\n\r\n"],
    "bad chunk after a good one": [_CHUNKED + b"2\r\n{}\r\n", b"zz\r\nab\r\n0\r\n\r\n"],  # (a later packet)
    "header over 8 KB": [b"GET /health HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 20_000 + b"\r\n\r\n"],
}


def _exchange(url: str, parts: list[bytes], timeout: float = 10) -> bytes:
    """Send each part (a pause between), then read until the server closes."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        for k, part in enumerate(parts):
            if k:
                time.sleep(0.3)
            s.sendall(part)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out


def _json_reply(raw: bytes) -> tuple[int, dict]:
    head, _, body = raw.partition(b"\r\n\r\n")
    assert b"application/json" in head, raw[:300]
    return int(head.split()[1]), json.loads(body)


def _request(body: bytes) -> bytes:
    return (b"POST /score HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(body), body))


def test_every_refusal_is_json_and_no_traceback_is_logged(tasks_file, records):
    with serving([tasks_file], "--workers", 1) as server:
        for name, parts in FRAMINGS.items():
            code, reply = _json_reply(_exchange(server.url, parts))
            assert (code, reply["status"]) == (400, "bad_request"), name
            assert reply["detail"].startswith("bad HTTP request: "), (name, reply)
        for body in (b'{"id": 1e400, "completion": "x"}', b'{"id": -1e999, "completion": "x"}',
                     b'{"id": NaN, "completion": "x"}', b'{"id": "x", "completion": "a", "k": Infinity}',
                     b'[{"id": "x", "completion": "a", "k": -Infinity}]'):
            code, reply = _json_reply(_exchange(server.url, [_request(body)]))
            assert (code, reply["status"]) == (400, "bad_request") and "not JSON" in reply["detail"], body
        # a client that leaves halfway through its body
        host, port = server.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port))) as s:
            s.sendall(b"POST /score HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{}")
            s.shutdown(socket.SHUT_WR)
            assert s.recv(100) == b""
        code, reply = _json_reply(_exchange(server.url, [_request(json.dumps(
            {"id": records[0]["id"], "completion": "1e308"}).encode())]))
        assert code == 200 and reply["status"] != "ok"  # the server still answers
        code, err = server.stop()
    assert code == 0 and "Traceback" not in err and "Error handling" not in err, err


def test_replies_are_strict_json():
    assert strict_json.dumps({"x": 1.5}) == '{"x": 1.5}'
    for bad in (float("inf"), float("nan"), -float("inf")):
        with pytest.raises(ValueError):
            strict_json.dumps({"score": bad})
    for text in ("1e400", "-1e400", "NaN", "Infinity", "[-Infinity]", '{"a": 1E+999}'):
        with pytest.raises(ValueError):
            strict_json.loads(text)
    assert strict_json.loads('{"a": 1e308, "b": -0.0, "c": 10}') == {"a": 1e308, "b": -0.0, "c": 10}


def test_framing_detail_is_the_parsers_first_line():
    class E(Exception):
        message = "Invalid character in chunk size:\n\n  b'zz'\n    ^"
    assert framing_detail(E()) == "bad HTTP request: Invalid character in chunk size"
    assert framing_detail(None) == "bad HTTP request: unreadable"
