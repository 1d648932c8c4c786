"""`Pool`: open, read, add to and rotate a pool folder (see the package docstring for the
layout and the crash-safety argument)."""

from __future__ import annotations

import os
import re
import stat
import types
from fractions import Fraction
from pathlib import Path

import attrs

from racesl import resources
from racesl.atomic import atomic_write, target
from racesl.pool import manifest as M
from racesl.pool.manifest import MANIFEST, Entry, PoolError

STDLIB = "stdlib"  # the bundled library, wherever a seed or a pool is named
RETIRED = "retired"
ENV_LINE = re.compile(r"^\s*env\s+(\w+)", re.MULTILINE)  # how seed environments are counted (no checking needed)
IMPORT_LINE = re.compile(r"^\s*(?:import\s+(\w+)|from\s+(\w+)\s+import\b)", re.MULTILINE)


def imports_of(text: str) -> set[str]:
    """The modules a module's text imports (its `import m` and `from m import ...` lines)."""
    return {a or b for a, b in IMPORT_LINE.findall(text)}


def _regular(p: Path) -> bool:
    """A regular file (after symlinks): never a FIFO, socket or device, which would block or
    never end when read."""
    try:
        return stat.S_ISREG(os.stat(p).st_mode)
    except OSError:
        return False


def _inside(root: Path, p: Path) -> bool:
    """`p`, with every symlink on its way followed, lies inside `root`."""
    try:
        p.resolve().relative_to(root.resolve())
        return True
    except (ValueError, OSError, RuntimeError):
        return False


def count_envs(text: str) -> int:
    return len(ENV_LINE.findall(text))


def _step_value(what: str, step) -> int:
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise PoolError(f"{what} must be a non-negative integer, not {step!r}")
    return step


class Pool:
    """A pool folder, or (`root` None) the bundled stdlib alone, read-only."""

    def __init__(self, root: Path | None, seeds: tuple[str, ...], step: int = 0, entries=()):
        self._root, self._seeds, self._step = root, tuple(seeds), step
        self._entries: list[Entry] = sorted(entries, key=M.order_key)
        self._seed_envs: int | None = None
        self.warnings: list[str] = []  # files of the folder skipped on opening (not regular, or linking out)

    def __repr__(self) -> str:
        return f"Pool({str(self._root) if self._root else STDLIB!r}, step={self._step}, active={len(self.active())})"

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, spec: str | Path, *, seeds=(STDLIB,), create: bool = True) -> Pool:
        """`"stdlib"` (the string): the bundled library as a read-only pool. Otherwise a folder:
        its manifest is read (the `seeds` given are then ignored: the manifest's win), or, when
        it has none and `create`, a new pool with `seeds` is made there. A writable pool is
        repaired on opening (`_recover`)."""
        if isinstance(spec, str) and spec == STDLIB:
            return cls(None, (STDLIB,))
        root = Path(spec)
        if root.exists() and not root.is_dir():
            raise PoolError(f"{root} is a file, not a pool folder: name a folder (it is created when missing)")
        if root.resolve() == resources.stdlib_dir().resolve():
            raise PoolError(f"{root} is the bundled standard library: name it as `stdlib` (read-only), "
                            "or give another folder to admit modules into")
        path = root / MANIFEST
        if path.exists() or path.is_symlink():
            pool = cls(root, *M.read(path))
            pool._check_paths(path)
            pool._check_seeds(path)
        elif not create:
            raise PoolError(f"{root} holds no pool ({MANIFEST} missing): create it with `racesc admit --pool {root}`")
        else:
            if isinstance(seeds, (str, Path)):
                seeds = (seeds,)
            root.mkdir(parents=True, exist_ok=True)
            pool = cls(root, tuple(_seed_spec(s, root) for s in seeds))
            pool._save()
        pool._recover()
        return pool

    def _check_paths(self, where: Path) -> None:
        """Every file the manifest names stays inside the pool folder once symlinks are followed
        (the names themselves are checked when read: racesl.pool.manifest.file_problem), and
        every active one is a regular file: a pool never writes, moves or reads outside itself."""
        for e in self._entries:
            p = self._root / e.file
            if not _inside(self._root, p):
                raise PoolError(f"{where}: entry {e.module!r} names {e.file!r}, which leads outside the pool folder "
                                "(a symlink out); remove the link, or the entry")
            if not e.retired and (p.exists() or p.is_symlink()) and not _regular(p):
                raise PoolError(f"{where}: entry {e.module!r} names {e.file!r}, which is not a regular file; "
                                "replace it with the module's .races file, or remove the entry")
        if not _inside(self._root, self._root / RETIRED):
            raise PoolError(f"{self._root / RETIRED} leads outside the pool folder (a symlink out); "
                            "make it a plain folder")

    def _check_seeds(self, where: Path) -> None:
        for s in self._seeds:
            p = self._seed_path(s)
            if not p.exists():
                raise PoolError(f"{where}: seed {s!r} ({p}) is missing; restore it, or edit \"seeds\" in the manifest")

    def _recover(self) -> None:
        """Make the folder and the manifest agree again after an interrupted write, losing nothing:

        - a retired entry whose module still lies at the top (a rotation interrupted between
          its manifest and its moves): the move is finished;
        - a top-level `.races` file no active entry names (an `add` interrupted between its
          module and its manifest, or a file put there by hand): adopted as origin
          "recovered", step the pool's, no scores or fingerprints, its `env` lines as envs;
        - an active entry whose file is gone: PoolError (nothing here can bring it back)."""
        root = self._root
        active = {e.file: e for e in self._entries if not e.retired}
        for e in self._entries:
            src = root / f"{e.module}.races"
            if e.retired and not (root / e.file).exists() and src.name not in active and _regular(src) \
                    and _inside(root, src) \
                    and M.sha256(src.read_text(encoding="utf-8", errors="replace")) == e.sha256:
                (root / e.file).parent.mkdir(parents=True, exist_ok=True)
                _move(src, root / e.file)
        gone = sorted(f for f in active if not (root / f).is_file())
        if gone:
            raise PoolError(f"{root / MANIFEST} names active module file(s) that are missing: {', '.join(gone)}; "
                            "restore them, or mark their entries retired in the manifest")
        adopted = []
        names = {e.module for e in active.values()}
        for p in sorted(root.glob("*.races")):
            if p.name in active:
                continue
            if not _regular(p) or not _inside(root, p):
                why = "links outside the pool folder" if _regular(p) else "is not a regular file"
                self.warnings.append(f"{p}: skipped: {why}")
                continue
            if not M.MODULE_NAME.fullmatch(p.stem) or p.stem in names:
                raise PoolError(f"{p}: a module file the pool cannot name ({p.stem!r}); rename or remove it")
            text = p.read_text(encoding="utf-8", errors="replace")
            adopted.append(Entry(p.stem, p.name, M.sha256(text), "recovered", step=self._step,
                                 envs=tuple(f"{p.stem}.{n}" for n in ENV_LINE.findall(text))))
        if adopted:
            self._entries = sorted(self._entries + adopted, key=M.order_key)
            self._save()

    # ------------------------------------------------------------------ reading

    @property
    def root(self) -> Path | None:
        return self._root

    @property
    def writable(self) -> bool:
        return self._root is not None

    @property
    def seeds(self) -> tuple[str, ...]:
        return self._seeds

    @property
    def step(self) -> int:
        return self._step

    @step.setter
    def step(self, value: int) -> None:
        self.advance(value)

    @property
    def entries(self) -> types.MappingProxyType:
        """module → Entry: the active one, else the module's latest retired record (all of
        them: `history()`)."""
        return types.MappingProxyType({e.module: e for e in self._entries})  # (active sort last)

    def history(self) -> tuple[Entry, ...]:
        """Every entry, retired ones included, in manifest order."""
        return tuple(self._entries)

    def active(self) -> list[Entry]:
        return [e for e in self._entries if not e.retired]

    def _seed_path(self, s: str) -> Path:
        if s == STDLIB:
            return resources.stdlib_dir()
        p = Path(s)
        return p if p.is_absolute() or self._root is None else self._root / p

    def seed_paths(self) -> list[Path]:
        """The seeds' `.races` files: each seed in manifest order, a folder's files sorted
        (all of them, as `racesc compile FOLDER` reads it)."""
        out: list[Path] = []
        for s in self._seeds:
            p = self._seed_path(s)
            out.extend(sorted(p.rglob("*.races")) if p.is_dir() else [p])
        return list(dict.fromkeys(out))

    def admitted_paths(self) -> list[Path]:
        """The active admitted modules' files (sorted by module)."""
        return [self._root / e.file for e in self.active()] if self._root is not None else []

    def paths(self) -> list[Path]:
        return self.seed_paths() + self.admitted_paths()

    def include(self) -> list[Path]:
        """The module search path: the pool folder, then each seed's folder."""
        dirs = [self._root] if self._root is not None else []
        for s in self._seeds:
            p = self._seed_path(s)
            dirs.append(p if p.is_dir() else p.parent)
        return list(dict.fromkeys(dirs))

    def module_names(self) -> set[str]:
        return {p.stem for p in self.paths()}

    def seed_env_count(self) -> int:
        """`env NAME` lines in the seed files (counted once per Pool: the seeds do not change)."""
        if self._seed_envs is None:
            self._seed_envs = sum(count_envs(p.read_text(encoding="utf-8", errors="replace"))
                                  for p in self.seed_paths())
        return self._seed_envs

    def summary(self) -> dict:
        active = self.active()
        seed_envs, active_envs = self.seed_env_count(), sum(len(e.envs) for e in active)
        origins: dict[str, int] = {}
        for e in active:
            origins[e.origin] = origins.get(e.origin, 0) + 1
        total = seed_envs + active_envs
        return {"seed_modules": len(self.seed_paths()), "seed_envs": seed_envs, "active": len(active),
                "active_envs": active_envs, "retired": len(self._entries) - len(active),
                "by_origin": dict(sorted(origins.items())), "step": self._step,
                "seed_share": round(seed_envs / total, 4) if total else 1.0}

    # ------------------------------------------------------------------ changing

    def _need_writable(self) -> None:
        if self._root is None:
            raise PoolError("the `stdlib` pool is read-only: give a folder (`--pool DIR`) to admit modules into")

    def add(self, module: str, text: str, *, origin: str, generator: str | None = None, step: int | None = None,
            scores: dict | None = None, fingerprints: dict | None = None, parents=(), envs=()) -> Entry:
        """Admit `text` as `<module>.races`. The module file lands first (atomically), then the
        manifest naming it; a crash between the two is repaired by the next `open`."""
        self._need_writable()
        if not isinstance(text, str):
            raise PoolError(f"the module text must be a str, not {type(text).__name__}")
        if not isinstance(module, str) or not M.MODULE_NAME.fullmatch(module):
            raise PoolError(f"{module!r} is not a module name (letters, digits and _, not starting with a digit)")
        if module in {p.stem for p in self.seed_paths()}:
            raise PoolError(f"'{module}' is the name of a seed module; admit it under another name")
        if any(e.module == module for e in self.active()):
            raise PoolError(f"the pool already has an active module '{module}'; admit it under another name")
        if origin not in ("admitted", "generated"):
            raise PoolError(f"origin must be 'admitted' (racesc admit) or 'generated' (racesc evolve), not {origin!r}")
        M.check_json("scores", scores or {})
        M.check_json("fingerprints", fingerprints or {})
        try:
            entry = Entry(module, f"{module}.races", M.sha256(text), origin, generator,
                          self._step if step is None else _step_value("step", step), dict(scores or {}),
                          dict(fingerprints or {}), parents, envs)
        except (TypeError, ValueError) as e:
            raise PoolError(f"cannot admit '{module}': {e}") from None
        entries = sorted(self._entries + [entry], key=M.order_key)
        blob = M.dumps(self._seeds, self._step, entries)  # (fails here, before any write, if it cannot)

        def put(tmp):
            Path(tmp).write_text(text, encoding="utf-8")

        target(self._root / MANIFEST)  # (the output policy: refused before the module file is written)
        atomic_write(self._root / entry.file, put)
        M.write(self._root / MANIFEST, blob)
        self._entries = entries
        return entry

    def advance(self, step: int) -> None:
        """Set the step counter (persisted). It only moves forward."""
        self._need_writable()
        _step_value("step", step)
        if step < self._step:
            raise PoolError(f"the pool is at step {self._step}: its step counter does not go back (to {step})")
        if step != self._step:
            self._step = step
            self._save()

    def rotate(self, step: int, *, max_age: int | None = None, seed_floor: float = 0.2,
               seed_envs=None) -> list[Entry]:
        """Retire admitted modules: (a) those admitted more than `max_age` steps before `step`
        (None or 0: no age limit), then (b) oldest first (by step, then module), modules with
        environments until the seeds' environments are at least `seed_floor` of all active
        ones (EvoEnv keeps its original seeds at 20% of the pool or more). Seeds are never
        retired. Seed environments are `env NAME` lines in the seed files, unless `seed_envs`
        (an int, or a callable giving one) says otherwise; with none, (b) retires every
        module that has environments. Returns the retired entries, in the order chosen.

        The manifest marks them retired first, then their files move to `retired/` as
        `<module>.races.retired` (a name `racesc compile POOL`, which reads every `*.races`
        beneath the folder, skips); `open` finishes moves a crash interrupted."""
        self._need_writable()
        if not _inside(self._root, self._root / RETIRED):
            raise PoolError(f"{self._root / RETIRED} leads outside the pool folder (a symlink out); "
                            "make it a plain folder")
        _step_value("step", step)
        if max_age is not None:
            _step_value("max_age", max_age)
        if isinstance(seed_floor, bool) or not isinstance(seed_floor, (int, float)) or not 0 <= seed_floor <= 1:
            raise PoolError(f"seed_floor must be a fraction from 0 to 1, not {seed_floor!r}")
        if seed_envs is None:
            seeds = self.seed_env_count()
        else:
            seeds = _step_value("seed_envs", seed_envs() if callable(seed_envs) else seed_envs)
        floor = Fraction(repr(float(seed_floor)))  # 0.2 is 1/5 exactly: 2 of 10 meets it
        order = sorted(self.active(), key=lambda e: (e.step, e.module))
        chosen: dict[str, str] = {}
        if max_age:
            for e in order:
                if step - e.step > max_age:
                    chosen[e.module] = f"older than {max_age} steps (admitted at step {e.step})"
        importers = self._importers()
        self._with_importers(chosen, importers)
        total = seeds + sum(len(e.envs) for e in order if e.module not in chosen)
        for e in order:
            if seeds >= floor * total:
                break
            if e.module not in chosen and e.envs:
                before = set(chosen)
                chosen[e.module] = (f"the seeds' {seeds} environments were below {float(floor):.0%} "
                                    f"of the pool's {total}")
                self._with_importers(chosen, importers)
                total -= sum(len(x.envs) for x in order if x.module in chosen and x.module not in before)
        if not chosen:
            return []
        taken = {e.file for e in self._entries}
        moved: dict[str, Entry] = {}
        for e in self.active():
            if e.module in chosen:
                moved[e.module] = attrs.evolve(e, file=_retired_name(self._root, e.module, taken), retired=True,
                                               retired_step=step, reason=chosen[e.module])
                taken.add(moved[e.module].file)
        kept = [e if e.retired else moved.get(e.module, e) for e in self._entries]
        self._entries = sorted(kept, key=M.order_key)
        self._save()  # the intent first: a crash before the moves below is finished by open()
        for e in moved.values():
            dst = self._root / e.file
            dst.parent.mkdir(parents=True, exist_ok=True)
            src = self._root / f"{e.module}.races"
            if src.exists():
                _move(src, dst)
        return [moved[m] for m in chosen]

    def _importers(self) -> dict[str, set[str]]:
        """module → the active modules whose text imports it."""
        out: dict[str, set[str]] = {}
        for e in self.active():
            p = self._root / e.file
            text = p.read_text(encoding="utf-8", errors="replace") if _regular(p) else ""
            for m in imports_of(text):
                out.setdefault(m, set()).add(e.module)
        return out

    @staticmethod
    def _with_importers(chosen: dict[str, str], importers: dict[str, set[str]]) -> None:
        """Add to `chosen` every active module that imports a chosen one, directly or not:
        rotation never leaves an active module importing a retired one (the pool would no
        longer check)."""
        todo = list(chosen)
        while todo:
            m = todo.pop()
            for user in sorted(importers.get(m, ())):
                if user not in chosen:
                    chosen[user] = f"imports {m}, retired at the same step"
                    todo.append(user)

    def _save(self) -> None:
        M.write(self._root / MANIFEST, M.dumps(self._seeds, self._step, self._entries))


def _move(src: Path, dst: Path) -> None:
    os.replace(src, dst)  # (one rename: the file is at one place or the other)


def _retired_name(root: Path, module: str, taken: set[str]) -> str:
    """`retired/<module>.races.retired`, or `<module>.N.races.retired` when a module of that
    name was retired before."""
    n = 1
    while True:
        name = f"{RETIRED}/{module}.races.retired" if n == 1 else f"{RETIRED}/{module}.{n}.races.retired"
        if name not in taken and not (root / name).exists():
            return name
        n += 1


def _seed_spec(s, root: Path) -> str:
    """A seed as the manifest keeps it: `stdlib`; an absolute path as given; a relative one
    (relative to the working folder here) rewritten relative to the pool folder, so the
    manifest means the same from any working folder."""
    s = str(s)
    if s == STDLIB:
        return s
    p = Path(s)
    if not p.exists():
        raise PoolError(f"seed {s!r}: no such file or folder (seeds are `stdlib`, .races files or folders of them)")
    if p.resolve() == root.resolve():
        raise PoolError(f"seed {s!r} is the pool folder itself; seeds live elsewhere")
    if p.is_absolute():
        return p.as_posix()
    return Path(os.path.relpath(p.resolve(), root.resolve())).as_posix()
