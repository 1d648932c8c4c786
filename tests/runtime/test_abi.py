"""The names emitted code calls the runtime by (racesl.runtime.abi) are the runtime's."""

from __future__ import annotations

from racesl.runtime import abi
from racesl.runtime.builtins import RUNTIME

CONVENTION = {abi.BOX, abi.DEPTH, abi.LOC, abi.WALL, abi.METER, abi.ENTRY, abi.PREFIX}


def test_every_runtime_name_of_the_abi_is_bound():
    names = {v for k, v in vars(abi).items() if k.isupper() and isinstance(v, str) and v.startswith(abi.PREFIX)}
    families = ([abi.plain(n) for n in abi.PLAIN]
                + [abi.method(m) for m in ("join", "sort", "replace", "zfill", "extend", "insert")])
    missing = sorted((names - CONVENTION | set(families)) - set(RUNTIME))
    assert not missing, missing


def test_every_bound_name_has_the_prefix():
    assert all(k.startswith(abi.PREFIX) for k in RUNTIME)
