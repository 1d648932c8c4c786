"""A least-recently-used cache bounded by the size of what it holds, for the server's caches.

The server lives as long as the editor, and its caches keep ASTs and results of old
versions of a document alive. Bounded by entry count alone (cleared past 5,000 or 20,000
entries, 96 modules), a document of one 2,000,000-character item edited a few dozen times
kept that many versions of its AST. Each entry here has a cost, the characters of source
it stands for (its AST and results grow with them) plus `ENTRY_COST`; past `budget` (or
`max_entries`) the least recently used entries go.
"""

from __future__ import annotations

from collections import OrderedDict

ENTRY_COST = 64  # characters an entry counts for besides its source


class SizedLRU:
    """{key: value}, each with a cost; at most `budget` in all and `max_entries` entries."""

    def __init__(self, budget: int, max_entries: int):
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
        """Hold value under key, as standing for `chars` characters of source; then drop the
        least recently used entries past the bounds (never the one just put)."""
        old = self._entries.pop(key, None)
        if old is not None:
            self.cost -= old[1]
        cost = chars + ENTRY_COST
        self._entries[key] = (value, cost)
        self.cost += cost
        while len(self._entries) > 1 and (self.cost > self.budget or len(self._entries) > self.max_entries):
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
