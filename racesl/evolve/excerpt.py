"""The language excerpt every generator prompt carries: what a model must know to write a
`.races` module that type-checks (docs/language.md is the full text; this stays short,
under 2,500 characters, so the prompt leaves room for the seed environments)."""

EXCERPT = '''\
A .races file is one module, Python-shaped, pure and typed:

```races
module mymod                       # the module's name
from numbers import Nat            # optional: types or helpers of other modules

type Word = Str where 1 <= len(it) <= 12 and it.isalpha() and it.islower()

def rotate(xs: List[Int], k: Int) -> List[Int]:     # a helper: plain typed function
    return xs[k:] + xs[:k]

@tags("lists")
env rotate_by(xs: List[Int where 0 <= it <= 9] where 1 <= len(it) <= 8,
              k: Int where 1 <= it <= 5) -> List[Int]:
    """Move the first {k} elements of xs to its end, keeping their order."""
    return rotate(xs, k % len(xs))
```

- `env name(x: T, setting: S ...) -> U:` the first parameter is the input (what chains pass
  along); further parameters are settings, sampled per task, and every one appears in the
  docstring as `{setting}`; no other braces there. The docstring is required: say exactly
  what to compute, with ties, empty and zero cases, so it can be answered without the code.
- Types: Int, Str, Bool, List[T], Tuple[A, B], Dict[K, V]; no floats, no None.
  Refinements `T where P` with `it` the value: `Int where 0 <= it <= 500`,
  `List[Int] where len(it) <= 10`. Keep inputs small (ints <= 500, lists <= 10).
- Bodies: assignment, if/elif/else, for, while (each iteration costs fuel: 400 steps per
  run unless `@fuel(N)` above the env gives it up to 1,000,000), break, continue, return, assert (a failing assert drops that input), comprehensions,
  lambda for `key=`. Builtins: abs all any bin bool chr divmod enumerate hex int len list
  max min ord pow range reversed sorted str sum tuple zip set dict; common str, list and
  dict methods.
- Not allowed: import inside bodies, `/` (use `//`), float literals, try/except/raise,
  with, yield, class, global, None, print, open, eval, attributes other than method calls,
  names starting with `_`, dunders. Loops must end quickly.
- Outputs must vary with the input: not a constant, not only 0/1 or True/False, and
  computed the same in every run (no dependence on set order or hash).
'''
