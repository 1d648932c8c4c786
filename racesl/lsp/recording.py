"""Tables that log what is read from them, and keys for types: what `replay.py` needs to
know whether a recorded check would read the same answers now."""

from __future__ import annotations

from racesl.types import types as T

# ---------------------------------------------------------------- type keys

_TKEYS: dict[int, tuple] = {}


def tkey(t) -> tuple:
    """A value that changes whenever anything a body checker may read from a type changes.

    Types are immutable, so keys are memoized by identity (the type is kept with its key).
    """
    if t is None:
        return ("none",)
    hit = _TKEYS.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    if isinstance(t, T.Refined):
        k = ("ref", tkey(t.base), tuple(p.text for p in t.preds))
    elif isinstance(t, T.NewT):
        k = ("new", t.name, tkey(t.underlying))
    elif isinstance(t, (T.ListT, T.SetT)):
        k = (type(t).__name__, tkey(t.elem))
    elif isinstance(t, T.TupleT):
        k = ("tuple",) + tuple(tkey(e) for e in t.elems)
    elif isinstance(t, T.DictT):
        k = ("dict", tkey(t.key), tkey(t.value))
    else:
        k = (type(t).__name__,)
    if len(_TKEYS) > 200_000:
        _TKEYS.clear()
    _TKEYS[id(t)] = (t, k)
    return k


# ---------------------------------------------------------------- recording tables


ALL = object()  # "read the whole table" (iteration, for suggestions)


class Reads:
    """The reads made by the call being recorded: {(table, key): state at the first read}.

    Only first reads matter: a call is deterministic given the state when it starts, and a
    later read of the same key sees either that state or what the call itself wrote.
    """

    __slots__ = ("log",)

    def __init__(self):
        self.log: dict | None = None


class RecDict(dict):
    """A dict that logs what is read from it while a `Reads` log is open."""

    def __init__(self, name: str, reads: Reads, state):
        super().__init__()
        self.table = name
        self.reads = reads
        self.state = state

    def _log(self, key) -> None:
        log = self.reads.log
        if log is not None and (self.table, key) not in log:
            log[(self.table, key)] = self.state_of(key)

    def state_of(self, key):
        if key is ALL:
            return tuple(sorted((k, self.state(v)) for k, v in dict.items(self)))
        return self.state(dict.get(self, key))

    def get(self, key, default=None):
        self._log(key)
        return dict.get(self, key, default)

    def __getitem__(self, key):
        self._log(key)
        return dict.__getitem__(self, key)

    def __contains__(self, key):
        self._log(key)
        return dict.__contains__(self, key)

    def __iter__(self):
        self._log(ALL)
        return dict.__iter__(self)

    def keys(self):
        self._log(ALL)
        return dict.keys(self)

    def values(self):
        self._log(ALL)
        return dict.values(self)

    def items(self):
        self._log(ALL)
        return dict.items(self)

    def __len__(self):
        self._log(ALL)
        return dict.__len__(self)


class RecSet(frozenset):
    """A frozenset that logs membership tests while a `Reads` log is open."""

    def __new__(cls, items, name: str, reads: Reads):
        obj = super().__new__(cls, items)
        obj.table = name
        obj.reads = reads
        return obj

    def state_of(self, key):
        if key is ALL:
            return frozenset(frozenset.__iter__(self))
        return frozenset.__contains__(self, key)

    def __contains__(self, key):
        log = self.reads.log
        if log is not None and (self.table, key) not in log:
            log[(self.table, key)] = frozenset.__contains__(self, key)
        return frozenset.__contains__(self, key)

    def __iter__(self):
        log = self.reads.log
        if log is not None and (self.table, ALL) not in log:
            log[(self.table, ALL)] = frozenset(frozenset.__iter__(self))
        return frozenset.__iter__(self)
