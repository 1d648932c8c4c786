"""Generation from any OpenAI-compatible server (`vllm serve`, `transformers serve`), with the
standard library only.

Every request carries its temperature, seed and token budget explicitly. Connection errors,
timeouts, HTTP 429 and 5xx are retried with exponential backoff (no jitter: a rerun waits the
same way); other 4xx, malformed and oversized replies are not, since sending them again cannot
help.

A server is not trusted to be quick or small: each HTTP attempt has one deadline, `timeout`
seconds from connecting to the reply's last byte (a watchdog closes the socket when it passes,
so a server dripping a byte a second cannot stretch it), and a reply is cut off once it is
over `max_reply_bytes` (counted while reading, chunked or not). JSON text escapes may carry
lone surrogates; they stay in the text, and the admission's parse gate refuses them.

A request with a grammar sends it as vLLM's structured-output parameter, `"structured_outputs":
{"grammar": ...}` (vLLM >= 0.12; `grammar_field="guided_grammar"` sends the older top-level
`guided_grammar`). The grammar is llguidance's Lark dialect: serve with `vllm serve MODEL
--structured-outputs-config.backend guidance`. A server that ignores the parameter returns
unconstrained text, which the gates then judge like any other. A server that refuses it (an
HTTP 400 whose text names the field: OpenAI's own API, a strict proxy) is asked once more
without it, and the backend remembers (`grammar_refused` says why): every later request goes
without it, the replies note it, and `evolve` says so on stderr once.

**Stopping.** Ctrl-C (or any exception) in `generate` stops every request in flight at once:
their sockets are shut, a retry's backoff wakes on the stop flag, and the worker threads end
within moments instead of finishing their requests and retries (`interrupt()`).
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

from racesl.generation.base import Reply, Request, Status, failed, messages


class _Failure(Exception):
    """One failed attempt: whether it may be retried, and how it reads in a reply."""

    def __init__(self, detail: str, *, retry: bool, status: Status = "error", code: int | None = None):
        super().__init__(detail)
        self.detail, self.retry, self.status, self.code = detail, retry, status, code


GRAMMAR_FIELDS = ("structured_outputs", "guided_grammar")  # vLLM >= 0.12; before 0.12
MAX_REPLY_BYTES = 16 << 20  # a chat reply of tens of thousands of tokens is a few hundred KB
CHUNK = 65536


class _Deadline:
    """Shuts a connection's socket when `seconds` have passed: every blocked read on it then
    ends at once, however the server paces its bytes."""

    def __init__(self, conn: http.client.HTTPConnection, seconds: float):
        self.conn, self.fired = conn, False
        self.end = time.monotonic() + seconds
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        self.fired = True
        sock = self.conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def passed(self) -> bool:
        return self.fired or time.monotonic() >= self.end

    def cancel(self) -> None:
        self._timer.cancel()


def grammar_body(grammar: str, field: str = "structured_outputs") -> dict:
    """The request body's structured-output part for a grammar (vLLM's OpenAI-compatible server)."""
    return {"structured_outputs": {"grammar": grammar}} if field == "structured_outputs" else {field: grammar}


class OpenAIBackend:
    """Chat completions from `base_url` (ending in /v1).

    `timeout` bounds each attempt from connecting to the last byte; `max_reply_bytes` bounds
    a reply's body. `retries` is the number of retries after the first attempt; the waits are
    `backoff * 2**k` seconds. With `model=None` the server's first listed model is used
    (asked once, on first use). Up to `concurrency` requests are in flight at once; replies
    come back in request order.
    """

    def __init__(self, base_url: str, *, model: str | None = None, api_key: str | None = None,
                 timeout: float = 60.0, retries: int = 3, backoff: float = 0.5, concurrency: int = 4,
                 max_reply_bytes: int = MAX_REPLY_BYTES, grammar_field: str = "structured_outputs"):
        if grammar_field not in GRAMMAR_FIELDS:
            raise ValueError(f"grammar_field is one of {', '.join(GRAMMAR_FIELDS)}, not {grammar_field!r}")
        self.grammar_field = grammar_field
        self.base_url = base_url.rstrip("/")
        self.name = f"openai:{self.base_url}"
        self.model = model
        self.timeout = timeout
        self.max_reply_bytes = max(1, int(max_reply_bytes))
        self.retries = max(0, retries)
        self.backoff = backoff
        self.concurrency = max(1, concurrency)
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._lock = threading.Lock()
        self._closed = False
        self._stop = threading.Event()  # set by interrupt(): no new attempt, no more waiting
        self._live: set = set()  # connections in flight, shut by interrupt()
        self._live_lock = threading.Lock()  # (not _lock: _model_id holds that across a request)
        self.grammar_refused: str | None = None  # why the server refused the grammar field (then never sent)

    # -- HTTP -----------------------------------------------------------------------------
    def _once(self, method: str, path: str, body: dict | None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        url = urllib.parse.urlsplit(self.base_url + path)
        kind = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
        target = url.path + (f"?{url.query}" if url.query else "")
        timed_out = _Failure(f"timed out after {self.timeout:g} s", retry=True, status="timeout")
        try:
            conn = kind(url.hostname or "", url.port, timeout=self.timeout)
        except Exception as exc:  # noqa: BLE001 - a URL http.client cannot use
            raise _Failure(f"connection failed: {type(exc).__name__}: {exc}", retry=False) from None
        deadline = _Deadline(conn, self.timeout)
        with self._live_lock:
            self._live.add(conn)
        try:
            if self._stop.is_set():
                raise _Failure("interrupted", retry=False)
            conn.connect()
            if deadline.passed():  # (the watchdog may have fired before there was a socket to shut)
                raise TimeoutError
            conn.request(method, target, body=data, headers=self._headers)
            resp = conn.getresponse()
            if resp.status >= 400:
                text = self._read(resp, deadline, 200).decode("utf-8", "replace").strip()
                retry = resp.status == 429 or resp.status >= 500
                raise _Failure(f"HTTP {resp.status}" + (f": {text}" if text else ""), retry=retry,
                               code=resp.status)
            raw = self._read(resp, deadline, self.max_reply_bytes, cap=True)
        except _Failure:
            raise
        except Exception as exc:  # noqa: BLE001 - connection refused, reset, timed out, cut by the deadline
            if self._stop.is_set():
                raise _Failure("interrupted", retry=False) from None
            if deadline.passed() or isinstance(exc, TimeoutError):
                raise timed_out from None
            raise _Failure(f"connection failed: {type(exc).__name__}: {exc}", retry=True) from None
        finally:
            deadline.cancel()
            with self._live_lock:
                self._live.discard(conn)
            conn.close()
        if deadline.fired:
            raise timed_out
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):
            raise _Failure(f"reply is not JSON: {raw[:120]!r}", retry=False) from None

    def _read(self, resp, deadline: _Deadline, limit: int, *, cap: bool = False) -> bytes:
        """The body, read a piece at a time: at most `limit` bytes (beyond it, with `cap`, the
        reply is refused), and never past the deadline."""
        length = resp.getheader("Content-Length")
        if cap and length and length.strip().isdigit() and int(length) > limit:
            raise _Failure(f"reply of {int(length)} bytes is over the {limit}-byte limit", retry=False)
        parts, got = [], 0
        while True:
            if deadline.passed():
                raise TimeoutError
            piece = resp.read1(CHUNK)
            if not piece:
                if deadline.fired:
                    raise TimeoutError
                break
            parts.append(piece)
            got += len(piece)
            if got > limit:
                if cap:
                    raise _Failure(f"reply is over the {limit}-byte limit (cut off while reading)", retry=False)
                break
        return b"".join(parts)[:limit]

    def _call(self, method: str, path: str, body: dict | None) -> dict:
        """The reply's JSON, retrying what may pass on a second try; `_Failure` when it never does."""
        for attempt in range(self.retries + 1):
            try:
                return self._once(method, path, body)
            except _Failure as exc:
                if not exc.retry or attempt == self.retries:
                    if attempt:
                        exc.detail = f"{exc.detail} (after {attempt + 1} attempts)"
                    raise
                if self._stop.wait(self.backoff * 2 ** attempt):
                    raise _Failure("interrupted", retry=False) from None
        raise AssertionError("unreachable")

    def interrupt(self) -> None:
        """Stop every request in flight now: no new attempt or retry, and each open socket shut
        (its blocked read ends at once). `generate` calls it when it is interrupted."""
        self._stop.set()
        with self._live_lock:
            live = list(self._live)
        for conn in live:
            sock = conn.sock
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def _model_id(self) -> str:
        with self._lock:
            if self.model is None:
                reply = self._call("GET", "/models", None)
                data = reply.get("data") if isinstance(reply, dict) else None
                if not data or not isinstance(data[0], dict) or not isinstance(data[0].get("id"), str):
                    raise _Failure(f"GET {self.base_url}/models lists no model", retry=False)
                self.model = data[0]["id"]
            return self.model

    # -- one request ----------------------------------------------------------------------
    def _one(self, request: Request, model: str) -> Reply:
        began = time.perf_counter()
        body = {"model": model, "messages": messages(request), "temperature": request.temperature,
                "seed": request.seed, "max_tokens": request.max_tokens, "n": request.n}
        dropped = None
        if request.grammar and self.grammar_refused is None:
            body.update(grammar_body(request.grammar, self.grammar_field))
        elif request.grammar:
            dropped = self.grammar_refused
        try:
            try:
                reply = self._call("POST", "/chat/completions", body)
            except _Failure as exc:
                if not (request.grammar and dropped is None and self._refuses_grammar(exc)):
                    raise
                with self._lock:
                    self.grammar_refused = self.grammar_refused or exc.detail
                dropped = self.grammar_refused
                for k in GRAMMAR_FIELDS:
                    body.pop(k, None)
                reply = self._call("POST", "/chat/completions", body)
        except _Failure as exc:
            return failed(request, exc.detail, exc.status, time.perf_counter() - began)
        seconds = time.perf_counter() - began
        choices = reply.get("choices") if isinstance(reply, dict) else None
        if not isinstance(choices, list) or not choices:
            return failed(request, "reply has no choices", seconds=seconds)
        texts = [""] * request.n
        problems = []
        filled: set[int] = set()
        cut = sum(1 for c in choices if isinstance(c, dict) and c.get("finish_reason") == "length")
        for k, choice in enumerate(choices):
            index = choice.get("index", k) if isinstance(choice, dict) else k
            message = choice.get("message") if isinstance(choice, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            if not isinstance(index, int) or not 0 <= index < request.n:
                problems.append(f"choice index {index!r} out of range")
            elif index in filled:  # a second answer for one sample: the first stands, and one sample has none
                problems.append(f"choice index {index} appears twice")
            elif not isinstance(content, str):
                problems.append(f"choice {index} has no content")
            else:
                texts[index] = content
                filled.add(index)
        if len(choices) != request.n:
            problems.append(f"{len(choices)} choices for n={request.n}")
        if len(filled) < request.n:  # an unfilled sample is an error, never an empty completion that scores 0
            problems.append(f"no text for sample{'s' if request.n - len(filled) > 1 else ''} "
                            f"{', '.join(str(i) for i in range(request.n) if i not in filled)} of n={request.n}")
        note = f"{cut} of {request.n} cut at max_tokens ({request.max_tokens})" if cut else None
        if dropped is not None:
            note = "; ".join(x for x in (note, f"sent without the grammar: the server refused it ({dropped})") if x)
        return Reply(texts=tuple(texts), status="error" if problems else "ok",
                     detail="; ".join(problems) if problems else note, seconds=seconds)

    def _refuses_grammar(self, exc: _Failure) -> bool:
        """An HTTP 400 whose text names the grammar's field (in any case): the server does not take it."""
        text = exc.detail.lower()
        return exc.code == 400 and any(f in text for f in (self.grammar_field, "grammar"))

    # -- Backend --------------------------------------------------------------------------
    supports_grammar = True  # sent as the structured-output parameter; the server decodes under it
    remote = True  # a server of unknown kind: the grammar goes out only where asked ([generator] constrained)

    def generate(self, requests: list[Request]) -> list[Reply]:
        if self._closed:
            raise RuntimeError(f"{self.name} is closed")
        if not requests:
            return []
        self._stop.clear()
        try:
            model = self._model_id()
        except _Failure as exc:
            return [failed(r, f"no model: {exc.detail}", exc.status) for r in requests]
        if self.concurrency == 1 or len(requests) == 1:
            return [self._one(r, model) for r in requests]  # in this thread: Ctrl-C ends the read
        pool = ThreadPoolExecutor(max_workers=min(self.concurrency, len(requests)))
        try:
            futures = [pool.submit(self._one, r, model) for r in requests]
            return [f.result() for f in futures]
        except BaseException:  # Ctrl-C: stop the others now rather than wait for their replies and retries
            self.interrupt()
            raise
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        self._closed = True
