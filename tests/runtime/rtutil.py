"""Helpers for the runtime tests: compile plain-Python bodies (the checked subset) into
instrumented programs, and run them plainly for comparison."""

from __future__ import annotations

import ast
import textwrap

from racesl.lower.instrument import lower_to_source
from racesl.lower.program import load_program
from racesl.runtime import Program


def program(src: str, int_params=None, *, via_source: bool = False, filename: str = "t.races") -> Program:
    mod = ast.parse(textwrap.dedent(src))
    ip = int_params or {}
    if via_source:
        return Program.from_source(lower_to_source(mod, int_params=ip), filename)
    return load_program(mod, filename, int_params=ip)


def run(src: str, name: str, *args, fuel: int = 400, wall: float = 2.0, int_params=None,
        via_source: bool = False):
    return program(src, int_params, via_source=via_source).call(name, args, fuel=fuel, wall=wall)


def plain(src: str) -> dict:
    ns: dict = {}
    exec(compile(textwrap.dedent(src), "plain", "exec"), ns)
    return ns
