"""An OpenAI-compatible server on 127.0.0.1 with scripted replies, for testing clients offline.

    with OpenAIStub(lambda body: "hello") as stub:
        OpenAIBackend(stub.url)          # stub.url: http://127.0.0.1:PORT/v1
        stub.requests                    # the chat request bodies received, in arrival order

`script` is a callable(request_json) -> reply, or a list of replies consumed in order (one
per chat request, retries included). A reply is a string (every one of the n choices gets
it), `Texts(...)` (one text per choice), `Fail(status)`, `Slow(seconds, reply)` or
`Raw(body)` (sent as is, e.g. malformed JSON).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from attrs import frozen


@frozen
class Texts:
    texts: tuple[str, ...]


@frozen
class Fail:
    status: int = 503
    message: str = "scripted failure"


@frozen
class Slow:
    seconds: float
    reply: object = "slow"


@frozen
class Raw:
    body: str
    status: int = 200


ScriptReply = str | Texts | Fail | Slow | Raw
Script = Callable[[dict], ScriptReply] | list


class OpenAIStub:
    def __init__(self, script: Script, *, models: tuple[str, ...] | Fail = ("stub-model",)):
        self.script = script
        self.models = models
        self.requests: list[dict] = []  # chat completion bodies
        self.log: list[tuple[str, str, dict]] = []  # (method, path, headers) of every request
        self._queue = list(script) if isinstance(script, list) else None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "the stub is not running"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def _next(self, body: dict) -> ScriptReply:
        if self._queue is None:
            return self.script(body)  # type: ignore[operator]
        with self._lock:
            return self._queue.pop(0) if self._queue else Fail(500, "stub script exhausted")

    def _handler(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _send(self, status: int, payload) -> None:
                data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (timed out) and closed the socket
                    pass

            def _error(self, status: int, message: str) -> None:
                self._send(status, {"error": {"message": message, "type": "stub", "code": status}})

            def do_GET(self):
                with stub._lock:
                    stub.log.append(("GET", self.path, dict(self.headers)))
                if self.path.rstrip("/") != "/v1/models":
                    return self._error(404, f"no route {self.path}")
                if isinstance(stub.models, Fail):
                    return self._error(stub.models.status, stub.models.message)
                self._send(200, {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "stub"}
                                                            for m in stub.models]})

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with stub._lock:
                    stub.log.append(("POST", self.path, dict(self.headers)))
                if self.path.rstrip("/") != "/v1/chat/completions":
                    return self._error(404, f"no route {self.path}")
                try:
                    body = json.loads(raw)
                except ValueError:
                    return self._error(400, "request body is not JSON")
                with stub._lock:
                    stub.requests.append(body)
                try:
                    reply = stub._next(body)
                except Exception as exc:  # noqa: BLE001 - a broken script is a 500, not a hang
                    return self._error(500, f"script raised {type(exc).__name__}: {exc}")
                while isinstance(reply, Slow):
                    if stub._stop.wait(reply.seconds):
                        return
                    reply = reply.reply
                if isinstance(reply, Fail):
                    return self._error(reply.status, reply.message)
                if isinstance(reply, Raw):
                    return self._send(reply.status, reply.body)
                n = int(body.get("n") or 1)
                texts = reply.texts if isinstance(reply, Texts) else (str(reply),) * n
                with stub._lock:
                    number = len(stub.requests)
                self._send(200, {
                    "id": f"chatcmpl-stub-{number}", "object": "chat.completion", "created": 0,
                    "model": body.get("model"),
                    "choices": [{"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
                                for i, t in enumerate(texts)],
                    "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
                })

        return Handler

    def __enter__(self):
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        assert self._server is not None and self._thread is not None
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@pytest.fixture
def openai_stub():
    """A factory: `openai_stub(script, **kw)` starts a stub, stopped when the test ends."""
    started: list[OpenAIStub] = []

    def start(script: Script, **kw) -> OpenAIStub:
        stub = OpenAIStub(script, **kw).__enter__()
        started.append(stub)
        return stub

    yield start
    for stub in started:
        stub.__exit__(None, None, None)
