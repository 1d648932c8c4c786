"""Formatting a large document in a child process, so that the server answers meanwhile.

`racesc fmt`'s layout of a document of a million characters takes tens of seconds, all in
Python: run in the server, it would hold every other request up. A document over
INLINE_CHARS is formatted in a child (`python -c`, this interpreter and sys.path; the text
on stdin, the edits as JSON on stdout) that the server awaits asynchronously. The child is
killed when the request is superseded (an edit or a close of the document: its edits
would apply to text the client no longer has; the request gets ContentModified) or runs
past `timeout` (the request gets an error that says so and names `racesc fmt`). One child
per document at a time: a newer formatting request replaces the older one.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys

from lsprotocol import types as L

from racesl.lsp.children import ask_child, kill as _kill
from racesl.lsp.formatting import format_document

log = logging.getLogger("racesl.lsp")

INLINE_CHARS = 100_000  # (formats in well under a second: no child)
TIMEOUT = 20.0


class Superseded(Exception):
    """The document changed or closed while it was being formatted."""


class TooSlow(Exception):
    """The child ran past the time limit (it was killed)."""


def child_main() -> None:
    """The child's entry: {"text", "path", "enc"} on stdin, {"edits": [...] or null} on stdout."""
    req = json.loads(sys.stdin.buffer.read())
    edits = format_document(req["text"], req["path"], req["enc"])
    out = None if edits is None else [[e.range.start.line, e.range.start.character, e.range.end.line,
                                       e.range.end.character, e.new_text] for e in edits]
    sys.stdout.write(json.dumps({"edits": out}))
    sys.stdout.flush()
    os._exit(0)


class Formatter:
    """`await format(uri, text, path, enc)`; `cancel(uri)` on an edit or a close."""

    def __init__(self, timeout: float = TIMEOUT, inline_chars: int = INLINE_CHARS):
        self.timeout, self.inline_chars = timeout, inline_chars
        self._running: dict[str, asyncio.Future] = {}
        self._procs: set = set()

    def cancel(self, uri: str) -> None:
        fut = self._running.pop(uri, None)
        if fut is not None and not fut.done():
            fut.cancel()

    def close_all(self) -> None:
        for uri in list(self._running):
            self.cancel(uri)
        for proc in list(self._procs):
            _kill(proc)

    async def format(self, uri: str, text: str, path: str, enc: str) -> list[L.TextEdit] | None:
        if len(text) <= self.inline_chars:
            return format_document(text, path, enc)
        self.cancel(uri)  # (a newer request for the same document replaces the older)
        task = asyncio.ensure_future(self._child(text, path, enc))
        self._running[uri] = task
        try:
            return await task
        except asyncio.CancelledError:
            if asyncio.current_task().cancelling():  # the request itself was cancelled ($/cancelRequest)
                task.cancel()
                raise
            raise Superseded() from None
        finally:
            if self._running.get(uri) is task:
                del self._running[uri]

    async def _child(self, text: str, path: str, enc: str) -> list[L.TextEdit] | None:
        try:
            reply = await ask_child("racesl.lsp.format_jobs", {"text": text, "path": path, "enc": enc}, self.timeout,
                                    self._procs, f"formatting {path}")
        except asyncio.TimeoutError:
            raise TooSlow() from None
        if reply is None:
            return None
        edits = reply["edits"]
        if edits is None:
            return None
        return [L.TextEdit(L.Range(L.Position(a, b), L.Position(c, d)), t) for a, b, c, d, t in edits]
