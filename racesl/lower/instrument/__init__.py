"""Fuel and size-guard instrumentation of lowered bodies (an AST → AST rewrite).

The rules the rewritten code follows — calling convention, fuel sharing, charges, guards —
are specified in docs/fuel.md. The parts:

- facts.py: what parameters' declared types let the rewrite trust (`ParamFacts`);
- scope.py: the inference (numbers, int widths, strs, sized values, length bounds);
- syntax.py, build.py: questions about the input tree; the nodes the rewrite emits;
- expressions.py (with guards.py, charges.py, comprehensions.py): one expression;
- statements.py (with loops.py, ahead.py, leaves.py): one function and its entry variant;
- rewrite.py, linemap.py: a whole module, and its Python text with the line map.

The names shared with the runtime (BOX, ENTRY, ... and every `_races_*` callable) are in
racesl.runtime.abi; BOX, DEPTH and LINEMAP_TAG are re-exported here for the tests.
"""

from racesl.lower.instrument.facts import WORD_BITS, ParamFacts, facts_to_marks
from racesl.lower.instrument.linemap import line_map
from racesl.lower.instrument.rewrite import FAST_PATHS, instrument, lower_to_source
from racesl.runtime.abi import BOX, DEPTH, LINEMAP_TAG

__all__ = ["instrument", "FAST_PATHS", "lower_to_source", "line_map", "ParamFacts", "facts_to_marks", "WORD_BITS",
           "LINEMAP_TAG", "BOX", "DEPTH"]
