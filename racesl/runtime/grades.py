"""What a `@verify` checker's result means: the one reading, for every caller that runs one.

A checker (racesl.check.verifiers) is declared `-> Bool` (right or wrong) or
`-> Int where 0 <= it <= N` (a graded reward, value / N: `env.scale` is N). A generator
environment that draws a latent value gives it to its checker third (`env.latent` is its
type). Here, below every caller (the rewards, `racesc check`'s probe and worked examples,
compile's re-derivation gate, admit), is how their arguments are laid out and how their
result is read, so no caller compares `value is True` on its own and misses a grade.
"""

from __future__ import annotations

from fractions import Fraction

ONE = Fraction(1)
ZERO = Fraction(0)


def args(env, x, answer, latent=None) -> tuple:
    """The checker's arguments: (input, answer), with the latent third where the environment
    draws one."""
    return (x, answer, latent) if env.latent is not None else (x, answer)


def grade(env, status: str, value) -> Fraction | None:
    """The reward a checker's result gives, in [0, 1]: True 1, False 0, an Int k of a graded
    checker k / N. None when it stopped (`status` not "ok") or answered outside its form (an
    Int outside 0..N, a Bool from a graded checker, anything else)."""
    if status != "ok":
        return None
    if env.scale is None:
        return ONE if value is True else ZERO if value is False else None
    if type(value) is not int or not 0 <= value <= env.scale:
        return None
    return Fraction(value, env.scale)


def full(env, status: str, value) -> bool:
    """Does the checker's result say "right": grade 1?"""
    return grade(env, status, value) == ONE
