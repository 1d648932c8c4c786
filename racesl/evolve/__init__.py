"""`racesc evolve`: the pool grows itself (EvoEnv on racesl).

Each step asks a generator model for new `.races` modules (prompt.py: seed environments
picked by the pool's type inventory, a language excerpt, the module to write), takes the
`.races` block out of each completion (extract.py), runs it through the admission gates
(racesl.admit), adds what passes to the pool, rotates the pool, and rewards the generator
by the gate it reached (reward.py). loop.py holds the loop; `--train` (grpo.py) trains one
policy in both roles on the same pieces.
"""

from racesl.evolve.config import EvolveConfig, load
from racesl.evolve.loop import Evolver, EvolveSummary, evolve

__all__ = ["EvolveConfig", "EvolveSummary", "Evolver", "evolve", "load"]
