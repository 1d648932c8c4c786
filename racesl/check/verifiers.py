"""`@verify(checker)`: the checker's form, and what its answer means.

A checker judges answers of an environment with more than one right answer. Two forms:

- `checker(input, answer) -> Bool`: right or wrong (True is reward 1);
- `checker(input, answer) -> Int where 0 <= it <= N`: a **graded** reward, value / N, with N
  the upper bound read from the refinement (racesl.types.refine), a whole number from 1 up.
  The language has no floats; a scale keeps the reward exact (a Fraction) and its range
  decided by the type, so no checker can return 1.5 or -1 without the check saying so.

A generator environment whose helper draws a **latent** value, `draw(rng, level) ->
Tuple[I, O, L]` (racesl.check.generators), gives that value to its checker as a third
argument: `checker(input, answer, latent)`. The latent is what was drawn but not shown
(EvoEnv's S(y, z, a)): the hidden word, the expression behind the target. It is recorded
with the task (its `extra["latents"]`, racesl.operators) and read back by the rewards.

Checked here (E406, located at the decorator's argument, with a hint naming the forms):
not a helper; another number of parameters than the environment's draw needs (two, or
three with a latent); a return type that is neither Bool nor a bounded Int scale (a plain
`-> Int` would make every answer but one wrong); a third parameter whose declared type is
not the latent's.

`grade(env, status, value)` (racesl.runtime.grades, re-exported here) is the one reading of
a checker's result, for every caller that runs one (the rewards, `racesc check`'s probe and
worked examples, compile's re-derivation gate, admit): a Fraction in [0, 1], or None when
the checker stopped or answered outside its declared form. `full(...)` is "right": grade 1.
Gates (a drawn answer, a worked example) ask for a full grade; rewards use the grade itself
(docs/rewards.md).
"""

from __future__ import annotations

from racesl.runtime.grades import ONE, ZERO, args, full, grade  # noqa: F401 - the checker's reading, here too
from racesl.syntax import ast as A
from racesl.text import plural
from racesl.types import refine as R
from racesl.types import types as T

_GRADED = "-> Int where 0 <= it <= N for a graded reward (value / N)"


def what(latent: bool) -> str:
    """The checker shape an environment needs, as messages name it."""
    return f"a checker helper(input, answer{', latent' if latent else ''}) -> Bool"


def scale_of(t: T.Type) -> int | None:
    """N of a graded checker's return type `Int where 0 <= it <= N` (the refinement's value
    bounds: at least 0, at most N, N >= 1), or None when `t` is no such type."""
    if T.shape(t) != T.INT:
        return None
    b = R.extract(T.preds(t))
    lo, hi = b.value.lo, b.value.hi
    if b.int_empty or lo is None or hi is None or lo < 0 or hi < 1:
        return None
    return hi


def checker_ref(ck, fn: A.FuncDef, d: A.Decorator, latent: T.Type | None) -> tuple[str, int | None] | None:
    """(pyname, scale) of the checker `@verify(...)` names on environment `fn`, scale None for
    a Bool checker; None after reporting E406. `latent`: the type of the latent value the
    environment's generator draws (the checker then takes it third), or None."""
    from racesl.check.generators import helper_symbol, short

    shape = what(latent is not None)
    e = d.args[0]
    sym = helper_symbol(ck, e)
    if sym is None or sym.kind != "helper":
        ck.err("E406", f"expected {shape}", e.span, "name a `def` helper of this module or an imported one")
        return None
    want = 3 if latent is not None else 2
    if sym.nparams != want:
        if latent is not None:
            hint = (f"the generator of '{fn.name}' draws a latent value ({T.erase(latent)}): the checker "
                    f"takes it third, def {short(e)}(x, answer, latent) -> Bool")
        elif sym.nparams == 3:
            hint = ("a checker takes a third value only when the environment's @generate helper draws one: "
                    "-> Tuple[I, O, L]")
        else:
            hint = None
        ck.err("E406", f"expected {shape}, but it takes {plural(sym.nparams or 0, 'parameter')}", e.span, hint)
        return None
    r = sym.returns
    scale = None
    if r is not None and T.erase(r) != T.BOOL:
        scale = scale_of(r)
        if scale is None:
            ck.err("E406", f"expected {shape}, but it is declared to return {_shown(r)}", e.span,
                   f"declare it `-> Bool` (True when the answer is right for the input), or {_GRADED}")
            return None
    if latent is not None:
        sig = ck.out.helpers.get(sym.qualname.rsplit(".", 1)[-1]) if sym.qualname.startswith(ck.name + ".") else None
        ptype = sig.params[2][1] if sig is not None and len(sig.params) == 3 else None
        if ptype is not None and not T.same_shape(ptype, latent):
            ck.err("E406", f"the checker '{short(e)}' takes its latent value as {T.erase(ptype)}, but the generator "
                   f"of '{fn.name}' draws {T.erase(latent)}", e.span,
                   f"declare its third parameter `latent: {T.erase(latent)}`")
            return None
    return sym.pyname, scale


def _shown(t: T.Type) -> str:
    return str(T.erase(t)) if not T.preds(t) else str(t)
