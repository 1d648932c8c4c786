""""Did you mean …?": the hints of E200 (a name) and E503 (a method), by meaning first.

A name Python has (`.remove()`, `isnumeric`, `map`) is no typo: its hint is what to write
instead by meaning (racesl.types.builtins.INSTEAD, next to the table of what is allowed),
else the list of what is allowed. Only a name Python does not have is read as a typo and
matched by spelling (`uper` → 'upper'), and the list again when nothing is close.
"""

from __future__ import annotations

import builtins as _py
import difflib
import random

from racesl.types import builtins as B

# the Python type behind each receiver the checker names (rng: the sampler's)
_PY_TYPES = {"Str": str, "List": list, "Dict": dict, "Tuple": tuple, "Set": set, "Int": int, "Bool": bool,
             "rng": random.Random}
_NO_METHODS = {"Set": "Set values have no methods: use the operators | & - ^ <= and `in`",
               "Int": "Int values have no methods", "Bool": "Bool values have no methods"}
SPELLING_CUTOFF = 0.75  # a closer match than this reads as a typo (`uper`, `apend`, `indx`)


def spelled_like(name: str, candidates, cutoff: float = SPELLING_CUTOFF) -> str | None:
    close = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=cutoff)
    return close[0] if close else None


def _python_has(receiver: str | None, name: str) -> bool:
    types = [_PY_TYPES[receiver]] if receiver in _PY_TYPES else list(_PY_TYPES.values())
    return any(hasattr(t, name) for t in types)


def _instead(receiver: str | None, name: str) -> B.Instead | None:
    if receiver is not None:
        return B.instead(receiver, name)
    for r in B.INSTEAD_RECEIVERS:  # a receiver of unknown type: the first receiver that has one
        e = B.instead(r, name)
        if e is not None:
            return e
    return None


def method_hint(receiver: str | None, name: str, allowed) -> str:
    """The hint for calling `.name()` on a `receiver` ("Str", "List", ..., None: of unknown
    type) that may call the methods `allowed`."""
    e = _instead(receiver, name)
    if e is not None:
        return e.hint
    if not _python_has(receiver, name):
        close = spelled_like(name, allowed)
        if close:
            return f"did you mean '{close}'?"
    if receiver in _NO_METHODS:
        return _NO_METHODS[receiver]
    if receiver is None:
        return "see the method list in the language reference (§4.4)"
    return f"{receiver} methods: {', '.join(sorted(allowed)) or 'none'}"


def name_hint(name: str, visible) -> str | None:
    """The hint for an unknown name: what to write instead of a Python builtin the language
    leaves out, else the builtins it has; for any other name, a visible name spelled like it."""
    e = B.instead(None, name)
    if e is not None:
        return e.hint
    if hasattr(_py, name) and not name.startswith("_"):
        allowed = ", ".join(sorted(x.name for x in B.builtins()))
        return f"not a builtin of the language; its builtins: {allowed} (the language reference, §4.3)"
    close = spelled_like(name, visible, 0.6)  # (a local's or a helper's name: spelling is all there is)
    return f"did you mean '{close}'?" if close else None
