"""The HTTP layer's own refusals, in JSON like every other reply of `racesc serve`.

aiohttp answers a request it cannot parse (a bad request line, a bad Content-Length, bad
chunking, a header too long) before any route or middleware runs, with a plain-text 400,
and logs it with a traceback. `JsonRunner` runs the application with a request handler
whose errors are `{"status", "detail"}` bodies: 400 `bad_request` for the client's
framing, logged as one debug line; 504 / 500 for the server's own (500 logged with its
traceback: a fault to fix; a client that went away is not one).

Bad framing inside a body (a broken chunk after the headers were fine) makes aiohttp's
parser drop the body without telling it, and the route reading it would wait until the
client leaves: the handler passes the parser's error to the body, so the read fails at
once with it (a 400, and the connection closed).
"""

from __future__ import annotations

import logging

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from racesl.serve import strict_json

_LOG = logging.getLogger("racesl.serve")
_CLIENTS = (HttpProcessingError, ConnectionError)  # a client's doing: never a traceback in the log
_STATUSES = {400: "bad_request", 413: "too_large", 431: "bad_request", 500: "error", 504: "timeout"}


def refusal(http: int, status: str, detail: str) -> web.Response:
    return web.json_response({"status": status, "detail": detail}, status=http, dumps=strict_json.dumps)


def framing_detail(exc) -> str:
    """The first line of aiohttp's parser message, e.g. 'bad HTTP request: Invalid
    character in chunk size'."""
    text = str(getattr(exc, "message", "") or exc or "").strip().splitlines()
    first = text[0].rstrip(":").strip() if text else "unreadable"
    return f"bad HTTP request: {first[:200]}"


class _JsonErrors(web.RequestHandler):
    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        request, queued = getattr(self, "_current_request", None), getattr(self, "_messages", None)
        if request is None or not queued:
            return
        error = getattr(queued[-1][0], "exc", None)  # (aiohttp queues a parse error as a message)
        if isinstance(error, HttpProcessingError) and not request.content.is_eof():
            request.content.set_exception(error)

    def log_exception(self, *args, **kw) -> None:
        if isinstance(kw.get("exc_info"), _CLIENTS):  # (the body read after a refusal fails again)
            self.log_debug(*args, **kw)
        else:
            super().log_exception(*args, **kw)

    def handle_error(self, request, status: int = 500, exc=None, message=None) -> web.StreamResponse:
        if isinstance(exc, ConnectionError):  # the client went away while we read its request
            _LOG.debug("racesc serve: %s left mid-request", request.remote)
        elif status >= 500 and status != 504:
            _LOG.error("racesc serve: error on a request from %s", request.remote, exc_info=exc)
        else:
            _LOG.debug("racesc serve: refused a request from %s: %s", request.remote, exc)
        if request.writer.output_size > 0:  # (as aiohttp's own: a reply has begun, the connection is lost)
            raise ConnectionError("a reply was already under way")
        if status == 504:
            detail = "the request took too long"
        elif status >= 500:
            detail = "the server failed on this request (its log says why)"
        else:
            detail = framing_detail(exc if exc is not None else message)
        resp = refusal(status, _STATUSES.get(status, "refused"), detail)
        resp.force_close()
        return resp


class _JsonServer(web.Server):
    def __call__(self) -> web.RequestHandler:
        return _JsonErrors(self, loop=self._loop, **self._kwargs)


class JsonRunner(web.AppRunner):
    """`web.AppRunner` whose connections answer framing errors in JSON."""

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        server.__class__ = _JsonServer  # the same server; only its request handlers' class differs
        return server
