"""Caches bounded by the size of what they hold, for processes that live long.

The language server lives as long as the editor and keeps ASTs of old document versions;
scoring lives as long as a training run and keeps what it read from answers and records.
Bounded by entry count alone, either held gigabytes (a document of one 2,000,000-character
item edited a few dozen times; 65,536 answers of 20,000 characters). Here each entry has a
cost, the characters of text it stands for (what is built from a text grows with it) plus
`ENTRY_COST`, and past the budget the least recently used entries go.

- `SizedLRU(budget, max_entries)`: a mapping with `get`/`put(key, value, chars)`.
- `Memo(budget, max_entries)`: a plain dict for the hottest loops (a hit is one C-level
  `get`), emptied whole once its entries' costs pass the budget: the compile's result and
  verdict memos, which must stay fast and must not grow with the number of tasks.
- `text_cache(budget, max_text)`: a decorator caching a function of one text in one; a
  text longer than `max_text` is not cached. A value read from a text takes at most about
  25 bytes per character of it (a list of empty lists: 4 characters per 64-byte list and
  its slot), so a cache of budget B stays under about 25·B bytes.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict

__all__ = ["ENTRY_COST", "Memo", "SizedLRU", "text_cache"]

ENTRY_COST = 64  # characters an entry counts for besides its text: dict slot, key and value objects


class SizedLRU:
    """{key: value}, each with a cost; at most `budget` in all and `max_entries` entries
    (None: any number). Not locked: `text_cache` locks around it."""

    def __init__(self, budget: int, max_entries: int | None = None):
        self.budget = budget
        self.max_entries = max_entries
        self._entries: OrderedDict = OrderedDict()  # key → (value, cost)
        self.cost = 0

    def get(self, key, default=None):
        hit = self._entries.get(key)
        if hit is None:
            return default
        self._entries.move_to_end(key)
        return hit[0]

    def put(self, key, value, chars: int) -> None:
        """Hold value under key, as standing for `chars` characters of text; then drop the
        least recently used entries past the bounds (never the one just put)."""
        old = self._entries.pop(key, None)
        if old is not None:
            self.cost -= old[1]
        cost = chars + ENTRY_COST
        self._entries[key] = (value, cost)
        self.cost += cost
        most = self.max_entries
        while len(self._entries) > 1 and (self.cost > self.budget or most is not None and len(self._entries) > most):
            _, (_, c) = self._entries.popitem(last=False)
            self.cost -= c

    def __getitem__(self, key):
        return self._entries[key][0]

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key) -> bool:
        return key in self._entries

    def clear(self) -> None:
        self._entries.clear()
        self.cost = 0


class Memo(dict):
    """A dict that is emptied, whole, when one more entry would pass `budget` (entries' costs:
    characters of text plus ENTRY_COST each) or `max_entries`. Emptying all at once instead
    of evicting the least recently used keeps reads a plain `dict.get`; what was dropped is
    recomputed on its next miss, so a memo of a pure function changes no result."""

    def __init__(self, budget: int, max_entries: int):
        super().__init__()
        self.budget, self.max_entries = budget, max_entries
        self.cost = 0

    def put(self, key, value, chars: int) -> None:
        cost = chars + ENTRY_COST
        if self.cost + cost > self.budget or len(self) >= self.max_entries:
            super().clear()
            self.cost = 0
        self[key] = value
        self.cost += cost

    def clear(self) -> None:
        super().clear()
        self.cost = 0


_MISS = object()


def text_cache(budget: int, max_text: int):
    """Decorate a function of one text with a `SizedLRU` of `budget` characters (see the
    module); texts over `max_text` characters, or whose entry alone would pass the budget,
    are computed every time. An exception is not cached (as with `lru_cache`). The wrapper
    has `cache_clear()`, `cache_cost()` (the characters held now, entries' overhead
    included) and `cache_len()`."""

    def decorate(fn):
        lru = SizedLRU(budget)
        lock = threading.Lock()
        largest = min(max_text, budget - ENTRY_COST)

        @functools.wraps(fn)
        def cached(text):
            with lock:
                value = lru.get(text, _MISS)
            if value is not _MISS:
                return value
            value = fn(text)
            if type(text) is str and len(text) <= largest:
                with lock:
                    if text not in lru:
                        lru.put(text, value, len(text))
            return value

        def cache_clear() -> None:
            with lock:
                lru.clear()

        cached.cache_clear = cache_clear
        cached.cache_cost = lambda: lru.cost
        cached.cache_len = lambda: len(lru)
        cached.budget, cached.max_text = budget, max_text
        return cached

    return decorate
