"""The language excerpt every generator prompt carries: what a model must know to write a
`.races` module that type-checks, and what the admission gates check, so a model is told the
rules it is judged by (docs/language.md is the full text; this stays under EXCERPT_CHARS so the
prompt leaves room for the example modules).

Nothing here is a second list: the builtins and methods are read from the one table the checker
uses (racesl.types.builtins), the dropped values from the compile's filter defaults
(racesl.search.config.Filters), the shares and counts from the gates' settings
(racesl.admit.context.AdmitConfig) and limits (racesl.admit.domain), the fuel bounds from the
checker's. Every ```races block of the excerpt type-checks (tests/evolve/test_prompt.py).
"""

from __future__ import annotations

EXCERPT_CHARS = 5000

_EXAMPLE = '''\
```races
module mymod                       # the module's name
from numbers import Nat            # optional: types or helpers of other modules

type Word = Str where 1 <= len(it) <= 12 and it.isalpha() and it.islower()

def rotate(xs: List[Int], k: Int) -> List[Int]:     # a helper: plain typed function
    return xs[k:] + xs[:k]

@tags("lists")
env rotate_by(xs: List[Int where 0 <= it <= 9] where 1 <= len(it) <= 8,
              k: Int where 1 <= it <= 5) -> List[Int]:
    """Move the first {k} elements of xs to its end, keeping their order. Example, with k = 2: [1, 2, 3] -> [3, 1, 2]."""
    return rotate(xs, k % len(xs))
```
'''

_FUEL = '''\
```races
module stepping

@fuel(20000)
env collatz_steps(n: Int where 1 <= it <= 500) -> Int:
    """Count the steps n -> n // 2 (n even) or 3 * n + 1 (n odd) until n is 1. Example: 6 -> 8."""
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps
```
'''

_GENERATE = '''\
```races
module hidden

type Letters = Str where 5 <= len(it) <= 6 and it.isalpha() and it.islower()

def draw(rng, level) -> Tuple[Letters, Str]:
    word = rng.choice(["tiger", "zebra", "monkey", "rabbit"])
    letters = list(word)
    while "".join(letters) == word:
        rng.shuffle(letters)
    return ("".join(letters), word)

@generate(draw)
env unscramble(s: Letters) -> Str:
    """Rearrange the letters of s into the English animal name that uses each letter once."""
```
'''


def _names(entries) -> str:
    return " ".join(e.name for e in entries)


def _methods() -> str:
    from racesl.types import builtins as table

    return "; ".join(f"{r}: {_names(table.methods(r))}" for r in ("Str", "List", "Dict", "Tuple"))


def _dropped(filters) -> str:
    kept = ", ".join(repr(v) for v in filters.drop_values)
    parts = [f"the values {kept}"] if filters.drop_values else []
    if filters.bool_values:
        parts.append("True/False")
    parts += [f"integers above {filters.max_int:,} (or below -{filters.max_int:,})",
              f"text over {filters.max_text:,} characters"]
    if filters.repeated_char:
        parts.append("text of one repeated character")
    return ", ".join(parts)


def module_rule() -> str:
    """How a module with one refused environment is judged: racesl.admit's rule, read from it
    (a module judged whole, or each environment on its own)."""
    import importlib

    try:  # present where a module's refused environments are left out (racesl.admit.run)
        importlib.import_module("racesl.admit.partial")
    except ImportError:
        return ("A module is judged whole: one refused environment refuses the module, so leave out any "
                "environment you are unsure of.")
    return ("Where a gate judges environments one by one (sampling, outputs, novelty, review), each is "
            "judged on its own: refused ones are left out and the module is admitted with the rest; a "
            "failure at the other gates refuses the whole module.")


def excerpt(cfg=None, filters=None) -> str:
    """The excerpt for the gates' settings `cfg` (racesl.admit.context.AdmitConfig) and the
    compile's `filters` (racesl.search.config.Filters); the defaults give EXCERPT."""
    from racesl.admit.context import AdmitConfig
    from racesl.admit.domain import MODE_LIMIT
    from racesl.runtime.limits import DEFAULT_FUEL, FUEL_CAP
    from racesl.search.config import Filters
    from racesl.types import builtins as table

    cfg = cfg if cfg is not None else AdmitConfig()
    filters = filters if filters is not None else Filters()
    builtins = " ".join(sorted(e.name for e in table.builtins()))
    return f'''\
A .races file is one module, Python-shaped, pure and typed:

{_EXAMPLE}
- `env name(x: T, setting: S ...) -> U:` the first parameter is the input (what chains pass
  along); further parameters are settings, and every one appears in the docstring as
  `{{setting}}`; no other braces there. The docstring is required: say exactly what to compute,
  with ties, empty and zero cases, so it can be answered without the code.
- Types: Int, Str, Bool, List[T], Tuple[A, B], Dict[K, V]; no floats, no None.
  Refinements `T where P` with `it` the value: `Int where 0 <= it <= 500`,
  `List[Int] where len(it) <= 10`. Keep inputs small (ints <= 500, lists <= 10).
- Bodies: assignment, if/elif/else, for, while, break, continue, return, assert (a failing
  assert drops that input), comprehensions, lambda for `key=`.
- Builtins, and no others: {builtins}.
- Methods, and no others ({len(table.ENTRIES) - len(table.builtins())} in all; sets have none: use | & - ^):
  {_methods()}.
- Not allowed: import inside bodies, `/` (use `//`), float literals, try/except/raise,
  with, yield, class, global, None, print, open, eval, attributes other than method calls,
  names starting with `_`, dunders.
- Fuel: each loop iteration costs a step; a run may take {DEFAULT_FUEL} steps unless
  `@fuel(N)` above the env raises it (N at most {FUEL_CAP:,}):

{_FUEL}
- `@generate(draw)`: where the answer cannot be computed from the input, `draw(rng, level)`
  draws an input with its answer (rng.randint, choice, sample, shuffle) and the env has
  no body:

{_GENERATE}
What the gates check, in order (each refusal says why):
- Worked examples run: a docstring's `Example: INPUT -> OUTPUT.` (with settings:
  `Example, with k = 2: INPUT -> OUTPUT.`) must be exactly what the body returns (E604).
- Settings are drawn independently of the input, each from its own declared type: the body
  must run on every combination; at least {cfg.min_ok:.0%} of {cfg.samples} sampled inputs must
  run to a value of the declared output type, the same in every run (no set order or hash).
- Outputs must vary: at least {cfg.min_distinct} distinct values, no one value on
  {MODE_LIMIT:.0%} of inputs or more, and at most {cfg.max_dropped:.0%} of them values the compile
  drops: {_dropped(filters)}. An environment returning Bool needs both outcomes.
- It composes: some environment takes or returns a type a pool environment returns or takes.
- Novelty is judged against the whole pool and its two-step compositions f(g(x)), on the
  same inputs and on each setting value: a renamed copy, a copy up to a constant offset or
  factor, one setting value of a pool environment, or a pool environment restricted to a
  smaller domain is refused.
- {module_rule()}
'''


EXCERPT = excerpt()
