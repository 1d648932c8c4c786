"""The aiohttp application of `racesc serve`, and the loop that runs it.

Routes: `POST /score` (native), `POST /openrlhf` and `/get_reward` (OpenRLHF), `POST /slime`
(slime), `GET /health`. Every reply is strict JSON (strict_json: no NaN or Infinity either
way), refusals included: 400 `bad_request` (not JSON, not the endpoint's shape, or bad
HTTP framing: framing), 413 `too_large` (over the request size bound, which aiohttp
enforces while reading), 404 / 405, and 500 `error` for a fault of the server's own
(never expected: scoring faults are statuses of a 200 reply). A client's mistake or
disconnection is never logged with a traceback. SIGTERM or SIGINT stops taking
connections, lets the requests in flight finish, then stops the workers.
"""

from __future__ import annotations

import asyncio
import logging
import signal

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from racesl.serve import shapes, strict_json
from racesl.serve.framing import JsonRunner, framing_detail, refusal
from racesl.serve.workers import Pool

_LOG = logging.getLogger("racesl.serve")
POOL = web.AppKey("pool", Pool)
STATS = web.AppKey("stats", dict)
INDEX = web.AppKey("index", object)


class _Refused(Exception):
    def __init__(self, http: int, status: str, detail: str, close: bool = False):
        super().__init__(detail)
        self.http, self.status, self.detail, self.close = http, status, detail, close


def _reply(body) -> web.Response:
    return web.json_response(body, dumps=strict_json.dumps)


async def _json(request: web.Request):
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise _Refused(413, "too_large", f"the request is over {request.app[STATS]['max_bytes']} bytes "
                                         f"(racesc serve --max-request-mb)") from None
    except HttpProcessingError as e:  # the body's framing (chunks, length) broke while reading
        raise _Refused(400, "bad_request", framing_detail(e), close=True) from None
    try:
        return strict_json.loads(raw)
    except RecursionError:
        raise _Refused(400, "bad_request", "not JSON: nested too deeply") from None
    except ValueError as e:  # (JSONDecodeError, bad UTF-8, NaN, 1e400, an int past the digit limit)
        raise _Refused(400, "bad_request", f"not JSON: {str(e)[:200]}") from None


async def _scored(request: web.Request, items: list) -> list:
    stats = request.app[STATS]
    verdicts = await request.app[POOL].score(items)
    stats["requests"] += 1
    stats["completions"] += len(items)
    return verdicts


async def score(request: web.Request) -> web.Response:
    items, single = shapes.native_items(await _json(request))
    verdicts = await _scored(request, items)
    return _reply(shapes.native_reply(items, verdicts, single))


async def openrlhf(request: web.Request) -> web.Response:
    items = shapes.openrlhf_items(await _json(request), request.app[INDEX])
    return _reply(shapes.openrlhf_reply(await _scored(request, items)))


async def slime(request: web.Request) -> web.Response:
    items = shapes.slime_items(await _json(request))
    return _reply(shapes.slime_reply(await _scored(request, items)))


async def health(request: web.Request) -> web.Response:
    pool, stats = request.app[POOL], request.app[STATS]
    pool.reap()
    return _reply({
        "status": "ok", "tasks": len(request.app[INDEX]),
        "workers": {"size": pool.size, "alive": pool.alive(), "pids": pool.pids, "replaced": pool.replaced},
        "requests": stats["requests"], "completions": stats["completions"]})


@web.middleware
async def _replies_in_json(request: web.Request, handler):
    try:
        return await handler(request)
    except _Refused as e:
        resp = refusal(e.http, e.status, e.detail)
        if e.close:  # the rest of the stream cannot be read as requests
            resp.force_close()
        return resp
    except shapes.BadRequest as e:
        return refusal(400, "bad_request", str(e))
    except web.HTTPException as e:
        if e.status < 400:
            raise
        return refusal(e.status, {404: "not_found", 405: "bad_method"}.get(e.status, "refused"), e.reason)
    except ConnectionError:  # the client went away: aiohttp drops the connection quietly
        raise
    except Exception:  # noqa: BLE001 - a fault of ours: logged, answered, and the server stays up
        _LOG.exception("racesc serve: unexpected error on %s", request.path)
        return refusal(500, "error", "the server failed on this request (its log says why)")


def make_app(index, pool: Pool, max_bytes: int) -> web.Application:
    app = web.Application(client_max_size=max_bytes, middlewares=[_replies_in_json])
    app[POOL], app[INDEX] = pool, index
    app[STATS] = {"requests": 0, "completions": 0, "max_bytes": max_bytes}
    app.add_routes([web.post("/score", score), web.post("/openrlhf", openrlhf), web.post("/get_reward", openrlhf),
                    web.post("/slime", slime), web.get("/health", health)])
    return app


async def _serve(index, host: str, port: int, workers: int, timeout: float, max_bytes: int, memory_mb: int,
                 announce) -> None:
    pool = Pool(index, workers, timeout=timeout, memory_mb=memory_mb)
    pool.start()  # before the site: no request can arrive ahead of the workers
    runner = JsonRunner(make_app(index, pool, max_bytes), access_log=None, shutdown_timeout=timeout + 5)
    try:
        await runner.setup()
        site = web.TCPSite(runner, host, port, backlog=1024)
        await site.start()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        announce(runner.addresses, pool)
        await stop.wait()
    finally:
        await runner.cleanup()  # stops listening, waits for the requests in flight
        pool.close()


def serve(index, *, host: str = "127.0.0.1", port: int = 8000, workers: int = 2, timeout: float = 10.0,
          max_bytes: int = 8 << 20, memory_mb: int = 2048, announce=lambda addresses, pool: None) -> None:
    """Serve `index` until SIGINT or SIGTERM. `announce(addresses, pool)` is called once the
    socket listens (addresses as aiohttp gives them: (host, port, ...) tuples)."""
    asyncio.run(_serve(index, host, port, workers, timeout, max_bytes, memory_mb, announce))
