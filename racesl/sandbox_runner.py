"""Running a library's environments in worker processes (`--untrusted`).

Generated environments are checked like any other, but a checker can have bugs and a
guard can miss a case: untrusted code also runs in workers with an address-space and CPU
limit, killed — not abandoned — when it passes the wall limit. Contract checks of the
returned values happen in the parent, on plain data — but the refinement predicates
they evaluate, like every @sample helper, are program code too: while a runner is open it
is the library's `aux` (see `Library.aux_call`), so those run in the workers as well.
"""

from __future__ import annotations

import os

from racesl.library import Library, Run
from racesl.lower.instrument import lower_to_source
from racesl.runtime.sandbox import WorkerPool


class SandboxRunner:
    def __init__(self, lib: Library, workers: int = 1, memory_mb: int = 512, wall: float = 2.0):
        self.lib = lib
        self.source = lower_to_source(lib.module, int_params=lib.param_facts)
        self.workers, self.memory_mb = workers, memory_mb
        self.pool = self._pool(wall)
        lib.aux = self  # the library's predicates and samplers run here from now on
        self._pid = os.getpid()

    def aux_batch(self, calls: list[tuple]) -> list:
        """Refinement and sampler calls for `Library.aux_call` (WorkerPool call tuples,
        each with its own wall limit)."""
        if os.getpid() != self._pid:  # a forked copy of the library: its pipes are the parent's
            raise RuntimeError("a SandboxRunner serves only the process that opened it: open one "
                               "in each forked process")
        return self.pool.run_batch(calls)

    def _pool(self, wall: float) -> WorkerPool:
        return WorkerPool(self.source, "<races>", workers=self.workers, memory_mb=self.memory_mb, wall=wall,
                          budgets=self.lib.budgets)  # (@fuel: each call raised to its function's budget)

    def _pool_for(self, wall: float) -> WorkerPool:
        """Workers enforce the wall limit they were started with; a new limit, new workers."""
        if self.pool.wall != wall:
            self.pool.close()
            self.pool = self._pool(wall)
        return self.pool

    def run(self, env, x, settings: tuple = (), *, fuel: int = 400, wall: float = 2.0) -> Run:
        [out] = self._pool_for(wall).run_batch([(env.pyname, (x,) + tuple(settings), fuel)])
        if out.status != "ok":
            return Run(None, out.status, out.steps, out.error)
        why = self.lib.conforms(out.value, env.output)
        if why is not None:
            return Run(out.value, "contract", out.steps, why)
        return Run(out.value, "ok", out.steps)

    def run_many(self, calls) -> list[Run]:
        """calls: (env, x, settings, fuel) tuples; one round trip per chunk of calls, and one
        batch for the refinement checks of all the outputs (`Library.conforms_many`)."""
        outs = self.pool.run_batch([(env.pyname, (x,) + tuple(st), fuel) for env, x, st, fuel in calls])
        done = [(env, out) for (env, _, _, _), out in zip(calls, outs) if out.status == "ok"]
        whys = iter(self.lib.conforms_many([(out.value, env.output) for env, out in done]))
        runs = []
        for out in outs:
            if out.status != "ok":
                runs.append(Run(None, out.status, out.steps, out.error))
                continue
            why = next(whys)
            runs.append(Run(out.value, "contract", out.steps, why) if why else Run(out.value, "ok", out.steps))
        return runs

    def close(self) -> None:
        self.pool.close()
        if self.lib.aux is self:
            self.lib.aux = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
