"""The stream the server reads its client from: pygls's reader, with the limits it lacks.

pygls (2.1) reads a `Content-Length: N` header and then `stdin.read(N)` outside any error
handling: a header of 99999999999 ended the server with MemoryError, and one of 5,000
digits with int()'s ValueError. `BoundedStdin` is what `serve` gives `start_io` as its
stdin (the reader's public extension point): it passes through every header pygls can
parse whose length is at most `MAX_MESSAGE`, and turns any other `Content-Length` header
into one pygls ignores, then skips what follows up to the next `Content-Length:` (the body
of the refused message, whether or not the client sends it) so that the next message is
read as usual. Header lines are read at most `MAX_HEADER_LINE` bytes at a time, so a line
without end cannot fill the memory either. Everything else (malformed JSON, unknown
methods, wrong params) pygls already survives; see RacesProtocol in server.py.
"""

from __future__ import annotations

import logging
import re

log = logging.getLogger("racesl.lsp")

MAX_MESSAGE = 64 << 20  # bytes of one message body; documents past MAX_SOURCE_CHARS get E112 anyway
MAX_HEADER_LINE = 64 << 10  # a longer header line reaches pygls in pieces (it ignores each)
CONTENT_LENGTH = re.compile(rb"Content-Length: (\d+)\r\n")  # pygls's own pattern, matched whole
MARK = b"Content-Length: "
IGNORED = b"X-Racesl-Refused: too large\r\n"  # a header line pygls reads past


class BoundedStdin:
    """A binary stream for pygls: `readline()` and `read(n)` of `raw`, refusing messages
    over `max_message` bytes (see the module). `on_refused(text)` is called with a line
    saying why, for the client's log."""

    def __init__(self, raw, max_message: int = MAX_MESSAGE, on_refused=None):
        self.raw = raw
        self.max_message = max_message
        self.on_refused = on_refused
        self.refused = 0  # messages refused so far
        self._skipping = False

    def readline(self) -> bytes:
        if self._skipping:
            return self._next_header()
        return self._checked(self.raw.readline(MAX_HEADER_LINE))

    def read(self, n: int) -> bytes:
        return self.raw.read(min(n, self.max_message))  # (n is never larger: `_checked` saw to it)

    def _checked(self, line: bytes) -> bytes:
        m = CONTENT_LENGTH.fullmatch(line)
        if m is None:
            return line
        digits = m.group(1).lstrip(b"0") or b"0"
        if len(digits) <= len(str(self.max_message)) and int(digits) <= self.max_message:
            return b"Content-Length: %d\r\n" % int(digits)  # (without leading zeros: pygls's int() has a digit limit)
        self.refused += 1
        size = f"{int(digits):,} bytes" if len(digits) <= 30 else f"a {len(digits):,}-digit length"
        why = (f"racesl lsp: refused a message of {size}: the limit is {self.max_message:,}; "
               "skipping to the next Content-Length header")
        log.error("%s", why)
        if self.on_refused is not None:
            try:
                self.on_refused(why)
            except Exception:  # noqa: BLE001 — telling the client is a courtesy
                log.exception("racesl lsp: could not report a refused message")
        self._skipping = True
        return IGNORED

    def _next_header(self) -> bytes:
        """Skip to the next `Content-Length: ` (at any position: a body that never ended
        runs on into the next header), and return that header line, checked in its turn;
        b"" at the end of the stream."""
        tail = b""
        while True:
            chunk = self.raw.readline(MAX_HEADER_LINE)
            if not chunk:
                return b""
            data = tail + chunk
            i = data.find(MARK)
            if i >= 0:
                self._skipping = False
                line = data[i:]
                while not line.endswith(b"\n") and len(line) <= MAX_HEADER_LINE:
                    more = self.raw.readline(MAX_HEADER_LINE)
                    if not more:
                        break
                    line += more
                return self._checked(line)
            # the mark may straddle two pieces of one long line, never a line break
            tail = b"" if chunk.endswith(b"\n") else data[-(len(MARK) - 1):]
