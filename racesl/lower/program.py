"""A lowered module made runnable: instrument it, compile it, hand it to the runtime.

    prog = load_program(lowered.module, "strings.races", int_params=lowered.param_facts)
    code = instrumented_code(module, "<races>", int_params=...)   # e.g. to marshal it

`int_params` maps a function to its parameters' `ParamFacts` (what the declared types
promise, see racesl.lower.instrument.facts); the mark spelling is accepted too.
"""

from __future__ import annotations

import ast
import types
from collections.abc import Mapping

from racesl.lower.instrument import ParamFacts, instrument
from racesl.runtime.execute import Program, compile_code

__all__ = ["load_program", "instrumented_code"]


def instrumented_code(module: ast.Module, filename: str, *,
                      int_params: Mapping[str, Mapping[str, ParamFacts] | frozenset[str]] = {}) -> types.CodeType:
    """Instrument `module` (see racesl.lower.instrument) and compile it."""
    return compile_code(instrument(module, int_params=int_params), filename)


def load_program(module: ast.Module, filename: str, *,
                 int_params: Mapping[str, Mapping[str, ParamFacts] | frozenset[str]] = {},
                 budgets: Mapping[str, int] | None = None) -> Program:
    """Instrument `module`, compile it, and wrap it in a `Program` (`budgets`: the `@fuel`
    budgets of its functions, racesl.lower.budgets)."""
    return Program(instrumented_code(module, filename, int_params=int_params), filename, budgets=budgets)
