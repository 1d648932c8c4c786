"""The entry points: a whole module instrumented (`instrument`), or printed as Python text
with its line map (`lower_to_source`).
"""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Iterable, Mapping
from contextlib import contextmanager
from itertools import count

from racesl.lower.instrument.build import _clone
from racesl.lower.instrument.facts import ParamFacts, as_facts
from racesl.lower.instrument.leaves import _leaf_functions
from racesl.lower.instrument.linemap import line_map
from racesl.lower.instrument.passing import Variants, keeping, row_safe
from racesl.lower.instrument.statements import _Fx
from racesl.runtime.abi import LINEMAP_TAG
from racesl.syntax.emit import unparse


@contextmanager
def _deep_trees():
    """The rewrite recurses over the tree (a few Python frames a level; no C stack in
    CPython 3.11): allow long `elif` chains and operator chains thousands deep."""
    old = sys.getrecursionlimit()
    if old < _TREE_RECURSION:
        sys.setrecursionlimit(_TREE_RECURSION)
    try:
        yield
    finally:
        if old < _TREE_RECURSION:
            sys.setrecursionlimit(old)


_TREE_RECURSION = 100_000


def _unparse(tree) -> str:
    """`ast.unparse` with wide ints in hex (racesl.syntax.emit.unparse): a decimal text past
    CPython's int-to-str limit would end the `--untrusted` startup in a ValueError."""
    return unparse(tree)


# The fast paths `instrument` may take (docs/fuel.md, "Fast paths and the reference meter"):
# each charges what the plain, per-step path charges, sooner or in fewer operations.
FAST_PATHS = frozenset({
    "counted",    # `for` charged its length on entry (shapes B and C)
    "fold_in",    # literal `in` tests paid with the loop's or comprehension's charge
    "range_len",  # `range(k)`'s length taken from k
    "ahead",      # a statement's first comprehension charged to the local counter (ahead.py)
    "leaf",       # ... and the leaf calls of its elements evaluated in place
    "join",       # ... and a join of short texts not measured
    "rows",       # ... and the rows of a nested comprehension charged with it
    "inline",     # builtin and `in` charges to the local counter, inline
    "short",      # ... without a size test for parameters declared short
    "words",      # no guard on arithmetic whose bounds keep it small (`_bits`, `_len_bound`)
    "passing",    # calls passing checked parameters on go to variants that trust them (passing.py)
})


def instrument(module: ast.Module, *,
               int_params: Mapping[str, Mapping[str, ParamFacts] | Iterable[str]] = {},
               optimize: bool | Iterable[str] = True) -> ast.Module:
    """A new module implementing fuel, size guards and the recursion bound (docs/fuel.md);
    `module` is not modified. `int_params[f]`: what the declared types of f's parameters
    promise, {parameter: ParamFacts} (racesl.lower.module.param_facts), or the same as marks
    (`{"n", "xs[]", "s#:20"}`: facts.py). `optimize=False` gives the reference meter: every
    construct takes the plain, per-step path (no FAST_PATHS) and reports the same steps; a
    collection of FAST_PATHS names takes only those (benchmarks/fuel_parts.py)."""
    if optimize is True:
        fast = FAST_PATHS
    elif optimize is False:
        fast = frozenset()
    else:
        fast = frozenset(optimize)
        if not fast <= FAST_PATHS:
            raise ValueError(f"unknown fast paths: {sorted(fast - FAST_PATHS)}")
    with _deep_trees():
        return _instrument(module, int_params, fast)


def _instrument(module, int_params, fast):
    mod = _clone(module)
    counter = count(1)
    body = []
    for fn in mod.body:
        if not isinstance(fn, ast.FunctionDef):
            raise ValueError(f"line {getattr(fn, 'lineno', '?')}: only function definitions "
                             "can be instrumented")
    funcs = frozenset(fn.name for fn in mod.body)
    leaves = _leaf_functions(mod.body, funcs)
    declared = {fn.name: as_facts(int_params.get(fn.name, ())) for fn in mod.body}
    variants = None
    if "passing" in fast:
        variants = Variants({fn.name: [a.arg for a in fn.args.args] for fn in mod.body}, declared,
                            keeping(mod.body), row_safe(mod.body, funcs))
    originals = {fn.name: _clone(fn) for fn in mod.body} if variants is not None else {}
    for fn in mod.body:
        facts = declared[fn.name]
        entry = _clone(fn)
        body.append(_Fx(fn, facts, counter, funcs, leaves=leaves, fast_paths=fast, variants=variants).run())
        body.append(_Fx(entry, facts, counter, funcs, entry=True, leaves=leaves, fast_paths=fast,
                        variants=variants).run())
    while variants is not None and variants.todo:  # (each may ask for more: a finite set of keys)
        name, facts, as_name = variants.todo.pop(0)
        fn = _clone(originals[name])
        fn.name = as_name
        body.append(_Fx(fn, facts, counter, funcs, leaves=leaves, fast_paths=fast, variants=variants,
                        trusted=True).run())
    mod.body = body
    return ast.fix_missing_locations(mod)


def lower_to_source(module: ast.Module, **kw) -> str:
    """The instrumented module as Python text (deterministic), ending in a
    `# races-linemap: {...}` comment that `Program.from_source` reads to report `.races`
    line numbers."""
    inst = instrument(module, **kw)
    with _deep_trees():
        src = _unparse(inst)
        lm = json.dumps(line_map(inst, src), separators=(",", ":"))
    return f"{src}\n{LINEMAP_TAG}{lm}\n"
