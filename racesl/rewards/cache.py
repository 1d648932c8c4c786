"""A cache of one function of a text, bounded by the size of what it holds.

Scoring caches what it reads from texts (records repeat across completions, and so do
short answers), in processes that live as long as a training run. `functools.lru_cache`
bounds only the number of entries, so 65,536 answers of 20,000 characters held gigabytes.
`text_cache` bounds the characters of the cached texts instead: an entry costs its text's
length plus `ENTRY_COST` (for the entry itself), texts longer than `max_text` are not
cached at all, and the least recently used entries are dropped past `budget`. A value read
from a text takes at most about 25 bytes per character of it (a list of empty lists: 4
characters per 64-byte list and its slot), so a cache of budget B stays under about 25·B
bytes.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict

ENTRY_COST = 64  # characters an entry counts for besides its text: dict slot, key and value objects


def text_cache(budget: int, max_text: int):
    """Decorate a function of one text with an LRU cache of at most `budget` characters
    (see the module). The wrapper has `cache_clear()` and `cache_cost()` (the characters
    held now, entries' overhead included), and `cache_len()`."""

    def decorate(fn):
        entries: OrderedDict = OrderedDict()
        cost = [0]
        lock = threading.Lock()
        move = entries.move_to_end

        @functools.wraps(fn)
        def cached(text):
            try:
                value = entries[text]
            except KeyError:
                pass
            else:
                try:
                    move(text)
                except KeyError:  # evicted by another thread meanwhile
                    pass
                return value
            value = fn(text)  # (an exception is not cached, as with lru_cache)
            if type(text) is str and len(text) <= max_text:
                with lock:
                    if text not in entries:
                        entries[text] = value
                        cost[0] += len(text) + ENTRY_COST
                        while cost[0] > budget and entries:
                            old, _ = entries.popitem(last=False)
                            cost[0] -= len(old) + ENTRY_COST
            return value

        def cache_clear() -> None:
            with lock:
                entries.clear()
                cost[0] = 0

        cached.cache_clear = cache_clear
        cached.cache_cost = lambda: cost[0]
        cached.cache_len = lambda: len(entries)
        cached.budget, cached.max_text = budget, max_text
        return cached

    return decorate
