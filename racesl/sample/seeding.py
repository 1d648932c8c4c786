"""Deterministic, independent random streams: one per (seed, key...).

`item_rng(seed, "numbers.fibonacci", "n", i)` is a `random.Random` whose state depends only
on its arguments (a sha256 of their typed encoding — never `hash()`, which is salted per
process), so item `i` of a seed is the same whatever else was drawn before it, in any process
and any Python run.
"""

from __future__ import annotations

import hashlib
import random

__all__ = ["item_rng", "derive_seed"]

_DOMAIN = b"racesl.sample.v1"


def _encode(part: int | str) -> bytes:
    if isinstance(part, bool) or not isinstance(part, (int, str)):
        raise TypeError(f"seed keys are ints or strs, got {type(part).__name__}")
    if isinstance(part, int):
        body = str(part).encode("ascii")
        tag = b"i"
    else:
        body = part.encode("utf-8", "surrogatepass")
        tag = b"s"
    return tag + len(body).to_bytes(8, "big") + body  # length-prefixed: no ambiguity


def derive_seed(seed: int, *key: int | str) -> int:
    """A 256-bit integer seed derived from `seed` and `key` (stable across processes)."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    h = hashlib.sha256(_DOMAIN)
    h.update(_encode(seed))
    for k in key:
        h.update(_encode(k))
    return int.from_bytes(h.digest(), "big")


def item_rng(seed: int, *key: int | str) -> random.Random:
    """A fresh `random.Random` for one item, seeded from sha256(seed, key...)."""
    return random.Random(derive_seed(seed, *key))
