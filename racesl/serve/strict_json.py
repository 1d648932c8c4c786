"""JSON as RFC 8259 has it, both ways: no NaN, no Infinity, in requests or in replies.

Python's `json` reads `NaN`, `Infinity` and `-Infinity`, and turns a number too large for a
float (`1e400`) into `inf`, which it then writes back as `Infinity`: a reply no strict
client can read. A request with any of them is refused (ValueError, a 400); a reply is
written with `allow_nan=False`, so a non-finite number in one is a fault of the server's
own (a 500), never a malformed 200.
"""

from __future__ import annotations

import functools
import json

from racesl.userfiles import finite, no_constant


def loads(raw: bytes | str):
    """The JSON value of `raw`; ValueError for anything RFC 8259 refuses or a float cannot
    hold (RecursionError for nesting too deep)."""
    return json.loads(raw, parse_constant=no_constant, parse_float=finite)


dumps = functools.partial(json.dumps, allow_nan=False)
