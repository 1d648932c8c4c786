"""Generation from any OpenAI-compatible server (`vllm serve`, `transformers serve`), with the
standard library only.

Every request carries its temperature, seed and token budget explicitly. Connection errors,
timeouts, HTTP 429 and 5xx are retried with exponential backoff (no jitter: a rerun waits the
same way); other 4xx and malformed replies are not, since sending them again cannot help.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from racesl.generation.base import Reply, Request, Status, failed, messages


class _Failure(Exception):
    """One failed attempt: whether it may be retried, and how it reads in a reply."""

    def __init__(self, detail: str, *, retry: bool, status: Status = "error"):
        super().__init__(detail)
        self.detail, self.retry, self.status = detail, retry, status


def _is_timeout(exc: BaseException) -> bool:
    return isinstance(exc, TimeoutError) or (isinstance(exc, urllib.error.URLError)
                                            and isinstance(exc.reason, TimeoutError))


class OpenAIBackend:
    """Chat completions from `base_url` (ending in /v1).

    `retries` is the number of retries after the first attempt; the waits are
    `backoff * 2**k` seconds. With `model=None` the server's first listed model is used
    (asked once, on first use). Up to `concurrency` requests are in flight at once; replies
    come back in request order.
    """

    def __init__(self, base_url: str, *, model: str | None = None, api_key: str | None = None,
                 timeout: float = 60.0, retries: int = 3, backoff: float = 0.5, concurrency: int = 4):
        self.base_url = base_url.rstrip("/")
        self.name = f"openai:{self.base_url}"
        self.model = model
        self.timeout = timeout
        self.retries = max(0, retries)
        self.backoff = backoff
        self.concurrency = max(1, concurrency)
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._lock = threading.Lock()
        self._closed = False

    # -- HTTP -----------------------------------------------------------------------------
    def _once(self, method: str, path: str, body: dict | None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base_url + path, data=data, method=method, headers=self._headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            text = exc.read().decode("utf-8", "replace")[:200].strip()
            retry = exc.code == 429 or exc.code >= 500
            raise _Failure(f"HTTP {exc.code}" + (f": {text}" if text else ""), retry=retry) from None
        except Exception as exc:  # noqa: BLE001 - connection refused, reset, timed out...
            if _is_timeout(exc):
                raise _Failure(f"timed out after {self.timeout:g} s", retry=True, status="timeout") from None
            reason = getattr(exc, "reason", exc)
            raise _Failure(f"connection failed: {type(reason).__name__}: {reason}", retry=True) from None
        try:
            return json.loads(raw)
        except ValueError:
            raise _Failure(f"reply is not JSON: {raw[:120]!r}", retry=False) from None

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
                time.sleep(self.backoff * 2 ** attempt)
        raise AssertionError("unreachable")

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
        try:
            reply = self._call("POST", "/chat/completions", body)
        except _Failure as exc:
            return failed(request, exc.detail, exc.status, time.perf_counter() - began)
        seconds = time.perf_counter() - began
        choices = reply.get("choices") if isinstance(reply, dict) else None
        if not isinstance(choices, list) or not choices:
            return failed(request, "reply has no choices", seconds=seconds)
        texts = [""] * request.n
        problems = []
        for k, choice in enumerate(choices):
            index = choice.get("index", k) if isinstance(choice, dict) else k
            message = choice.get("message") if isinstance(choice, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            if not isinstance(index, int) or not 0 <= index < request.n:
                problems.append(f"choice index {index!r} out of range")
            elif not isinstance(content, str):
                problems.append(f"choice {index} has no content")
            else:
                texts[index] = content
        if len(choices) != request.n:
            problems.append(f"{len(choices)} choices for n={request.n}")
        return Reply(texts=tuple(texts), status="error" if problems else "ok",
                     detail="; ".join(problems) if problems else None, seconds=seconds)

    # -- Backend --------------------------------------------------------------------------
    def generate(self, requests: list[Request]) -> list[Reply]:
        if self._closed:
            raise RuntimeError(f"{self.name} is closed")
        if not requests:
            return []
        try:
            model = self._model_id()
        except _Failure as exc:
            return [failed(r, f"no model: {exc.detail}", exc.status) for r in requests]
        if self.concurrency == 1 or len(requests) == 1:
            return [self._one(r, model) for r in requests]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(requests))) as pool:
            return list(pool.map(lambda r: self._one(r, model), requests))

    def close(self) -> None:
        self._closed = True
