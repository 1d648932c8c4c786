"""What every gate reads besides its candidate: the pool, checked and lowered once, the
settings, and the model backend (None: the model gates do not run)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import attrs


@attrs.frozen
class AdmitConfig:
    """The gates' settings. Defaults follow EvoEnv where it names a number."""

    seed: int = 0
    samples: int = 40  # sampled inputs per environment (sample gate)
    min_ok: float = 0.7  # share of sampled inputs that must run to a value inside the declared type
    fuel: int = 400  # per run: the compile's default max_steps
    wall: float = 2.0  # seconds a run, in the sandbox workers
    memory_mb: int = 512  # address space of a sandbox worker beyond its start
    min_distinct: int = 3  # distinct outputs an environment must show (nontrivial)
    max_dropped: float = 0.75  # share of an environment's outputs the compile's value filters may drop (nontrivial)
    contract_tasks: int = 12  # tasks built on chains through the candidate (contract gate)
    probes: int = 24  # seeded probe inputs per input shape (novelty)
    review_votes: int = 3  # K: model reviews, any reject rejects (EvoEnv)
    calibration_instances: int = 8  # m: instances the solver tries (EvoEnv)
    target: float = 0.3  # â*: the success rate calibration aims at (EvoEnv)
    sigma: float = 0.2  # width of the calibration score exp(-(â - target)² / (2σ²))
    # per model reply. A reasoning model thinks before it answers, and a reply cut at the cap
    # has no verdict (a reject) or no <answer> (a miss): reviews of one short environment take
    # 1-3k tokens of thought, solving a 2-3 step composite task 2-6k, so the caps sit above both
    review_max_tokens: int = 4096  # per review reply
    solve_max_tokens: int = 8192  # per calibration (solver) reply
    # seconds one candidate may spend in the gates that run its code (parse ... novelty, in its
    # limited child, every retry of a partly refused module included); past it, it is refused
    # at the gate it was in. The stdlib's modules take 5-70 s each on a loaded 2-core machine
    time_budget: float = 240.0
    review_temperature: float = 0.7  # the K reviews differ by seed, so they must sample
    solve_temperature: float = 1.0  # the solver's rollout temperature: â estimates its success


@attrs.define
class Context:
    pool: Any  # racesl.pool.Pool
    config: AdmitConfig = AdmitConfig()
    backend: Any = None  # racesl.generation.Backend, or None
    _pool_sources: dict | None = None  # module name → racesl.check.loader.Source, parsed once
    _pool_checked: Any = None  # racesl.check.Checked of the pool alone
    _pool_lowered: dict | None = None  # module name → racesl.lower.module.Lowered
    _pool_lib: Any = None
    _solver: Any = None  # one Z3 solver with its persistent edge table, for every candidate
    novelty: Any = None  # racesl.admit.novelty's index of the pool, built on first use
    _pool_graph: Any = None  # racesl.graph.signature.SignatureGraph of the pool alone (composes extends it)
    in_child: bool = False  # set in a candidate's forked child: what it changes there dies with it
    tmp: Any = None  # tempfile.TemporaryDirectory holding candidates' files

    def workdir(self) -> Path:
        if self.tmp is None:
            self.tmp = tempfile.TemporaryDirectory(prefix="racesl-admit-")
        return Path(self.tmp.name)

    def include(self) -> list[Path]:
        return [self.workdir(), *self.pool.include()]

    def pool_checked(self):
        """The pool's modules, checked once (every candidate is checked beside them)."""
        if self._pool_checked is None:
            from racesl.check import check_loaded
            from racesl.check.checker import ModuleChecker
            from racesl.check.loader import Loader

            loader = Loader(list(self.pool.include()))
            self._pool_checked = check_loaded(loader, self.pool.paths(),
                                              lambda src, done: ModuleChecker(src, done, loader.broken).run())
            if not self._pool_checked.ok:
                bad = [d.headline() for d in self._pool_checked.diagnostics if d.is_error]
                raise ValueError("the pool does not check:\n" + "\n".join(bad[:10]))
            self._pool_sources = dict(loader.sources)
        return self._pool_checked

    def pool_sources(self) -> dict:
        self.pool_checked()
        return self._pool_sources

    def pool_lowered(self) -> dict:
        if self._pool_lowered is None:
            self._pool_lowered = dict(self.pool_lib().lowered)
        return self._pool_lowered

    def pool_lib(self):
        if self._pool_lib is None:
            from racesl.library import Library

            self._pool_lib = Library(self.pool_checked())
        return self._pool_lib

    def solver(self):
        """The Z3 solver whose `cached` classifier types every candidate's edges (as
        racesl.graph.signature.build_graph sets it up)."""
        if self._solver is None:
            from racesl.solver import Solver
            from racesl.solver.cache import CachedClassifier

            self._solver = Solver()
            self._solver.cached = CachedClassifier(self._solver)
        return self._solver

    def pool_envs(self) -> list:
        return self.pool_checked().envs()

    def warm(self) -> None:
        """Everything the gates read of the pool, built here before a candidate's child
        forks, so each child starts with it (and no child builds it again)."""
        import racesl.compile  # what every child imports, imported once here
        import racesl.rewards  # noqa: F401 - (its regular expressions alone took ~1 s a child)
        from racesl.admit import contract, novelty, running  # noqa: F401
        from racesl.admit.front import _mutators, _shape_maps

        self.pool_lowered()
        _mutators(self.pool_lib())  # (what each candidate's library reuses: racesl.admit.front)
        self.solver()
        _shape_maps(self.pool_graph())
        novelty.pool_index(self)

    def pool_graph(self):
        """The pool's signature graph, built once: each candidate's graph is this one with the
        candidate's edges added (racesl.admit.front.composes), never a new graph of the pool."""
        if self._pool_graph is None:
            from racesl.graph.signature import SignatureGraph

            self._pool_graph = SignatureGraph(list(self.pool_envs()), classify=self.solver().cached.classify)
        return self._pool_graph

    def admitted(self, out, *, write: bool = True, generator=None, step=None, origin="admitted") -> None:
        """Record an admitted candidate (a racesl.admit.run.Outcome): into the pool folder when
        it is writable, and into what the next candidates are compared with."""
        if not (write and self.pool.writable):
            return
        self.pool.add(out.module, out.text, origin=origin, generator=generator, step=step, scores=out.scores,
                      fingerprints=out.fingerprints, parents=out.parents, envs=out.envs)
        self.extend(out.module)

    def extend(self, name: str) -> None:
        """What was built from the pool, grown by the module `name` just admitted, instead of
        built again (issue 47: a rebuild grew with the pool after every admission): the pool's
        checked modules reused beside the new one's check, its program beside the new module's
        (racesl.admit.front.extended_library), its graph with the new edges added. The novelty
        index is drawn again, as from scratch (its probes depend on the whole pool, and a
        resumed run must meet the same ones), reusing every answer whose probes did not move.
        Anything unexpected falls back to `refresh`."""
        if self._pool_checked is None or self._pool_lib is None:
            return self.refresh()
        from racesl.admit.front import extended_graph, extended_library, imported
        from racesl.check import Checked, check_loaded
        from racesl.check.checker import ModuleChecker
        from racesl.check.loader import Loader
        from racesl.library import Library

        old, path = self._pool_checked, self.pool.root / f"{name}.races"
        loader = Loader(list(self.pool.include()))
        loader.sources.update(self._pool_sources)
        checked = check_loaded(loader, [path], lambda src, done: old.modules[src.name] if src.name in old.modules
                               else ModuleChecker(src, done, loader.broken).run())
        if not checked.ok or name not in checked.modules or set(checked.modules) != set(old.modules) | {name}:
            return self.refresh()
        checked = Checked(checked.modules, list(dict.fromkeys([*old.roots, name])), checked.diagnostics)
        own = imported(name, loader.sources)
        own_lib = Library(Checked({m: cm for m, cm in checked.modules.items() if m in own}, [name], []),
                          lowered=self.pool_lowered())
        lib = extended_library(self._pool_lib, checked, own_lib)
        graph = None if self._pool_graph is None else \
            extended_graph(self._pool_graph, list(checked.modules[name].envs.values()), self.solver().cached.classify,
                           in_place=True)
        previous = self.novelty
        self._pool_checked, self._pool_sources = checked, dict(loader.sources)
        self._pool_lib, self._pool_lowered, self._pool_graph = lib, dict(lib.lowered), graph
        self.novelty = None
        if previous is not None:
            from racesl.admit import novelty

            novelty.pool_index(self, previous=previous)

    def refresh(self) -> None:
        """Forget what was built from the pool (it changed)."""
        self._pool_sources = self._pool_checked = self._pool_lowered = self._pool_lib = None
        self.novelty = self._pool_graph = None

    def close(self) -> None:
        if self._solver is not None:
            self._solver.cached.save()
        if self.tmp is not None:
            self.tmp.cleanup()
            self.tmp = None
