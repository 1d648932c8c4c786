"""Input samplers: values of a racesl type drawn from its refinements, reproducibly.

- `sampler_for(t) -> Sampler` (cached; `build_sampler(t)` for private counters);
  `Sampler.draw(rng, level, check)` returns a value of `t` or raises `NoSample`.
- what the predicates imply (ranges, moduli, lengths, alphabets, element bounds,
  distinctness, order) is read by `racesl.types.refine.extract`; the rest is left to rejection.
- `item_rng(seed, *key) -> random.Random`: one independent, reproducible stream per item.
"""

from racesl.sample.default import (
    ENUM_AFTER, ENUM_LIMIT, MAX_TRIES, NoSample, SampleStats, Sampler, build_sampler, draw,
    int_window, length_window, sampler_for,
)
from racesl.sample.seeding import derive_seed, item_rng

__all__ = [
    "NoSample", "SampleStats", "Sampler", "build_sampler", "draw", "sampler_for",
    "int_window", "length_window", "MAX_TRIES", "ENUM_AFTER", "ENUM_LIMIT",
    "derive_seed", "item_rng",
]
