"""The pool: a folder of admitted modules plus a manifest of where each came from.

    POOL/
      manifest.json            version, seeds, step, entries (racesl.pool.manifest)
      <module>.races           the active admitted modules
      retired/<module>.races.retired   modules rotated out, kept (not read by `racesc compile`)

The seeds (by default the bundled stdlib) are named in the manifest, not copied; the pool's
library is seeds + active modules, and `racesc compile POOL stdlib` reads exactly that.

Crash safety (a writer killed anywhere loses no entry and shows no half-written module):
every file is written by `racesl.atomic.atomic_write` (temporary file, then rename), and
the writes are ordered so the manifest never names a file that is not there yet:

- `add`: the module file first, then the manifest. A crash in between leaves a module the
  manifest does not name; `Pool.open` adopts it (origin "recovered").
- `rotate`: the manifest (entries marked retired) first, then the moves to `retired/`;
  `Pool.open` finishes a move a crash interrupted.

(`atomic.written_together` does not fit: its commit point removes the old first file before
renaming the rest, so a crash there would leave a pool with no manifest at all.) One writer
at a time: two processes adding to one pool at once can lose a manifest update.
"""

from racesl.pool.manifest import ORIGINS, VERSION, Entry, PoolError
from racesl.pool.pool import STDLIB, Pool, count_envs

__all__ = ["ORIGINS", "STDLIB", "VERSION", "Entry", "Pool", "PoolError", "count_envs"]
