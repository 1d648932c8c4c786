"""`racesc lsp` survives any message (issue 17, long-lived processes). Each test drives the
real server over stdio as a subprocess, writing raw bytes to its stdin (a huge
Content-Length header, garbage JSON, ...), then sends a valid `initialize` request (or,
once initialized, another request) and asserts that a valid response arrives: the server
survived, and it still reads the messages that follow the hostile one."""

from __future__ import annotations

import io
import json
import queue
import subprocess
import threading
import time

import pytest

pytest.importorskip("pygls", reason="pygls is not installed (pip install 'racesl[lsp]')")

from racesl.lsp.transport import IGNORED, MARK, MAX_HEADER_LINE, BoundedStdin  # noqa: E402
from tests.lsp.conftest import REPO, server_command, server_env  # noqa: E402

WAIT = 20  # seconds for any one answer (a cold start takes ~2 s)
URI = "file:///hostile/x.races"


def frame(body) -> bytes:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def request(rid: int, method: str, params) -> bytes:
    return frame({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})


def notify(method: str, params) -> bytes:
    return frame({"jsonrpc": "2.0", "method": method, "params": params})


INITIALIZE = {"processId": None, "rootUri": None, "capabilities": {}, "initializationOptions": {"sampling": False}}


class Server:
    """The server as a subprocess, and the messages it sends, parsed from its stdout by a thread."""

    def __init__(self):
        self.proc = subprocess.Popen(server_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=server_env(), cwd=REPO)
        self.messages: queue.Queue = queue.Queue()
        self.seen: list[dict] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                if line.startswith(b"Content-Length:"):
                    length = int(line.split(b":")[1])
                elif line in (b"\r\n", b"\n") and length is not None:
                    break
            self.messages.put(json.loads(out.read(length)))

    def send(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def wait_for(self, pred, timeout: float = WAIT) -> dict:
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            assert left > 0, f"no such message within {timeout} s; got {[m.get('method') or m.get('id') for m in self.seen]}"
            try:
                m = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            assert m is not None, f"the server exited: {self.stderr()}"
            self.seen.append(m)
            if pred(m):
                return m

    def response(self, rid: int) -> dict:
        return self.wait_for(lambda m: m.get("id") == rid and "method" not in m)

    def initialize(self, rid: int = 1) -> dict:
        self.send(request(rid, "initialize", INITIALIZE))
        r = self.response(rid)
        assert "capabilities" in r["result"], r
        return r

    def stderr(self) -> str:
        self.proc.kill()
        return self.proc.stderr.read().decode("utf-8", "replace")[-2000:]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            f.close()


@pytest.fixture
def server():
    s = Server()
    yield s
    s.close()


HOSTILE = {
    "huge_content_length": b"Content-Length: 99999999999\r\n\r\n{}",
    "huge_content_length_with_a_body": b"Content-Length: 99999999999\r\n\r\n"
                                       + json.dumps({"jsonrpc": "2.0", "id": 5, "method": "shutdown"}).encode(),
    "content_length_of_5000_digits": b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n{}",
    "content_length_of_5000_zeros": b"Content-Length: " + b"0" * 5000 + b"2\r\n\r\n{}",
    "content_length_over_the_limit": b"Content-Length: %d\r\n\r\n" % ((64 << 20) + 1),
    "garbage_json": frame(b"{not json"),
    "deeply_nested_json": frame(b"[" * 100_000),
    "not_utf8": frame(b'{"jsonrpc": "2.0", "method": "\xff\xfe"}'),
    "not_an_object": frame(b"[1, 2]"),
    "a_bare_number": frame(b"17"),
    "no_jsonrpc": frame({"id": 3, "method": "initialize"}),
    "empty_body": b"Content-Length: 0\r\n\r\n",
    "a_long_header_line": b"X" * (3 * MAX_HEADER_LINE) + b"\r\n\r\n",
    "headers_only": b"Content-Type: x\r\n\r\n\r\n\r\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_survives_a_hostile_message_then_initializes(server, name):
    server.send(HOSTILE[name])
    server.initialize(rid=101)
    if name.startswith(("huge_content_length", "content_length_")) and "zeros" not in name:  # the client is told why
        logs = [m for m in server.seen if m.get("method") == "window/logMessage"]
        assert logs and "refused a message" in logs[0]["params"]["message"]


def test_unknown_methods_and_wrong_params_get_error_responses(server):
    server.initialize()
    server.send(notify("initialized", {}))
    server.send(request(2, "no/such/method", {}))
    assert server.response(2)["error"]["code"] == -32601
    server.send(request(3, "textDocument/hover", {"textDocument": 5, "position": "here"}))
    r = server.response(3)  # pygls alone drops it: the client would wait forever
    assert r["error"]["code"] == -32602 and "textDocument/hover" in r["error"]["message"]
    server.send(notify("textDocument/didOpen", {"textDocument": {"uri": URI, "text": 5}}))  # dropped, logged
    server.send(request(4, "textDocument/documentSymbol", {"textDocument": {"uri": URI}}))
    assert server.response(4)["result"] == []


def test_edits_of_unopened_documents_and_bad_positions(server):
    server.initialize()
    server.send(notify("initialized", {}))
    change = {"textDocument": {"uri": URI, "version": 2},
              "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                                  "text": "x"}]}
    server.send(notify("textDocument/didChange", change))  # never opened
    server.send(request(2, "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 0}}))
    assert server.response(2)["result"] is None
    server.send(notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "races", "version": 1,
                                                                 "text": "def f(x: Int) -> Int:\n    return x\n"}}))
    far = {"start": {"line": 10 ** 9, "character": 10 ** 9}, "end": {"line": -1, "character": 2 ** 31}}
    server.send(notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2},
                                                  "contentChanges": [{"range": far, "text": "\x00\ud800"}]}))
    server.send(request(3, "textDocument/hover", {"textDocument": {"uri": URI},
                                                  "position": {"line": 10 ** 9, "character": 10 ** 9}}))
    assert "result" in server.response(3)


def test_a_huge_document_gets_the_file_too_large_diagnostic(server):
    server.initialize()
    server.send(notify("initialized", {}))
    text = "x = 1\n" * 500_000  # 3,000,000 characters: over MAX_SOURCE_CHARS
    server.send(notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "races", "version": 1,
                                                                 "text": text}}))
    d = server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    assert [x["code"] for x in d["params"]["diagnostics"]] == ["E112"]
    assert "3,000,000 characters" in d["params"]["diagnostics"][0]["message"]
    server.send(request(2, "textDocument/semanticTokens/full", {"textDocument": {"uri": URI}}))
    assert "result" in server.response(2)


def test_blank_lines_in_brackets_do_not_stall_the_server(server):
    """40 KB of blank lines inside an open bracket once took the lexer (and with it the
    server's only thread) more than 30 s; each edit there re-lexes them."""
    server.initialize()
    server.send(notify("initialized", {}))
    text = "def f(x: Int) -> Int:\n    return (x +\n" + "\n" * 40_000 + ")\n"
    server.send(notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "races", "version": 1,
                                                                 "text": text}}))
    t = time.monotonic()
    for v in range(2, 12):  # typing inside the bracket
        pos = {"line": 1000 + v, "character": 0}
        server.send(notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": v},
                                                      "contentChanges": [{"range": {"start": pos, "end": pos},
                                                                          "text": "1"}]}))
    server.send(request(2, "textDocument/documentSymbol", {"textDocument": {"uri": URI}}))
    server.response(2)
    assert time.monotonic() - t < 10


# ------------------------------------------------------------ the reader, in-process

def _reader(data: bytes, limit: int = 100):
    refused = []
    return BoundedStdin(io.BufferedReader(io.BytesIO(data)), max_message=limit, on_refused=refused.append), refused


def test_reader_passes_messages_within_the_limit():
    padded = b"Content-Length: " + b"0" * 5000 + b"3\r\n"  # leading zeros: still 3, written plainly for pygls
    r, refused = _reader(b"Content-Length: 2\r\n\r\n{}" + padded + b"\r\n[1]")
    assert r.readline() == b"Content-Length: 2\r\n" and r.readline() == b"\r\n" and r.read(2) == b"{}"
    assert r.readline() == b"Content-Length: 3\r\n" and r.readline() == b"\r\n" and r.read(3) == b"[1]"
    assert r.readline() == b"" and refused == [] and r.refused == 0


def test_reader_skips_a_refused_message_to_the_next_header():
    body = b"x" * 500
    r, refused = _reader(b"Content-Length: 500\r\nContent-Type: a\r\n\r\n" + body + b"Content-Length: 2\r\n\r\n{}")
    assert r.readline() == IGNORED  # pygls reads past it: no length, so no body is read
    assert r.readline() == b"Content-Length: 2\r\n"  # the refused body and headers skipped
    assert r.readline() == b"\r\n" and r.read(2) == b"{}"
    assert r.refused == 1 and "500 bytes" in refused[0] and "limit is 100" in refused[0]


def test_reader_finds_a_header_split_across_pieces_of_a_long_line():
    junk = b"y" * (MAX_HEADER_LINE - 5)  # the mark straddles the first piece's end
    r, _ = _reader(b"Content-Length: 1000\r\n" + junk + MARK + b"2\r\n\r\n{}")
    assert r.readline() == IGNORED
    assert r.readline() == b"Content-Length: 2\r\n" and r.readline() == b"\r\n" and r.read(2) == b"{}"


def test_reader_refuses_again_and_ends_at_the_end_of_the_stream():
    r, refused = _reader(b"Content-Length: 101\r\n\r\nzzz" + b"Content-Length: " + b"9" * 5000 + b"\r\n\r\nzz")
    assert r.readline() == IGNORED and r.readline() == IGNORED  # the second is refused in its turn
    assert r.readline() == b"" and len(refused) == 2 and "5,000-digit" in refused[1]


# ------------------------------------------------------------ the server's caches

def test_editing_a_huge_item_keeps_the_check_caches_within_their_budget(tmp_path, monkeypatch):
    """Each edit of a document made of one big item is a new AST; the driver's caches kept
    96 of them (by count). Bounded by characters, they keep what the budget allows."""
    from racesl.lsp import driver
    from racesl.lsp.analysis import Workspace

    monkeypatch.setattr(driver, "MODULES_BUDGET", 40_000)
    body = "".join(f"    x{k} = {k}\n" for k in range(1500))
    text = "def f(n: Int) -> Int:\n" + body + "    return n\n"
    assert 20_000 < len(text) < 40_000
    ws = Workspace()
    path = tmp_path / "big.races"
    uri = path.as_uri()
    ws.open(uri, text)
    for k in range(4):
        ws.docs[uri].text = text.replace("return n", f"return n + {k}")
        ws.analyze(uri)
        assert ws.driver._modules.cost <= 40_000 and ws.driver._caches.cost <= 40_000
    assert len(ws.driver._modules) == 1  # (an entry-bounded cache held all 4 versions)
