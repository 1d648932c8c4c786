"""Finding and parsing modules: the search path, imports, and import cycles.

Rule for cycles: imports form a DAG. A cycle is an error at the import that closes it,
naming the whole cycle; the modules still load, without the cyclic import, so the rest
of each file is still checked.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import attrs

from racesl import resources
from racesl.diagnostics import Diagnostic, Severity, Span
from racesl.syntax import ast as A
from racesl.syntax.parser import decode_source, parse_module


@attrs.define
class Source:
    name: str
    path: str
    text: str
    ast: A.Module
    diagnostics: list[Diagnostic]
    imports: list[tuple[str, A.Node]]  # (module name, the import node)


def module_imports(mod: A.Module) -> list[tuple[str, A.Node]]:
    return [(it.module, it) for it in mod.items if isinstance(it, (A.Import, A.FromImport))]


def search_path(importer: Path | None, include: list[Path]) -> list[Path]:
    dirs = []
    if importer is not None:
        dirs.append(importer.parent)
    dirs.extend(include)
    dirs.append(resources.stdlib_dir())
    return dirs


BUNDLED = "stdlib"  # the name of the bundled standard library wherever a path is expected


def _names_bundled(p: Path) -> bool:
    """A relative path whose first part is `stdlib`."""
    return not p.is_absolute() and p.parts[:1] == (BUNDLED,)


def locate(path: str | Path) -> Path:
    """`path` as given, or, for `stdlib` and `stdlib/MODULE[.races]` when no such local
    path exists, the bundled library's copy: a pip user's `racesc check stdlib` works from
    any folder, while a local folder named `stdlib` still wins."""
    p = Path(path)
    if p.exists() or not _names_bundled(p):
        return p
    found = resources.stdlib_dir().joinpath(*p.parts[1:])
    if not found.exists() and found.suffix != ".races":
        found = found.with_name(found.name + ".races")
    return found if found.exists() else p


def source_notes(paths: list[str | Path]) -> list[str]:
    """One line per path that named the standard library, saying which copy was read
    (none when the local folder is the bundled one, as in a source checkout)."""
    notes = []
    bundled = resources.stdlib_dir().resolve()
    for given in dict.fromkeys(map(str, paths)):
        p = Path(given)
        if not _names_bundled(p):
            continue
        if not p.exists():
            if locate(p) != p:
                notes.append(f"{given}: the bundled standard library ({bundled})")
        elif Path(BUNDLED).resolve() != bundled:
            notes.append(f"{given}: the local folder {Path(BUNDLED).resolve()}, not the bundled standard library")
    return notes


def irregular(path: str | Path) -> str | None:
    """What `path` is when it exists but is no regular file (links followed): reading a FIFO
    blocks forever and a device may never end, so no reader opens one. None otherwise."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return None
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def skipped_warning(path: Path, what: str) -> Diagnostic:
    return Diagnostic("W202", f"skipped {path}: {what}, not a regular file", Span(1, 1, 1, 1), str(path),
                      Severity.WARNING, hint="only regular .races files are read from a folder; remove or rename it")


def expand_paths(paths: list[str | Path], warnings: list[Diagnostic] | None = None) -> list[Path]:
    """Files as given (`stdlib` names the bundled library, see `locate`); directories →
    their regular `.races` files, sorted (deterministic order). A FIFO, socket or device
    named `*.races` in a folder is skipped, never opened, with a W202 warning in `warnings`."""
    out: list[Path] = []
    for p in map(locate, paths):
        if p.is_dir():
            for f in sorted(p.rglob("*.races")):
                what = irregular(f)
                if what is None:
                    out.append(f)
                elif what != "a folder" and warnings is not None:
                    warnings.append(skipped_warning(f, what))
        else:
            out.append(p)
    return out


def python_module_hint(mod: A.Module, modname: str, node) -> str:
    """What to use instead of a Python module: the builtins among the names the file takes
    from it (`math.gcd`, `from math import gcd`), and a helper for the others."""
    from racesl.check.names import BUILTINS

    used: list[str] = []
    if isinstance(node, A.FromImport):
        used = [n.name for n in node.names]
    else:
        for item in mod.items:
            for n in A.walk(item):
                if isinstance(n, A.Attribute) and isinstance(n.value, A.Name) and n.value.id == modname \
                        and n.attr not in used:
                    used.append(n.attr)
    have = [u for u in used if u in BUILTINS]
    lack = [u for u in used if u not in BUILTINS]
    parts = []
    if have:
        names = ", ".join(f"{u}(...)" for u in have)
        parts.append(f"{names} {'is a builtin' if len(have) == 1 else 'are builtins'}: call "
                     f"{'it' if len(have) == 1 else 'them'} without '{modname}.'")
    if lack:
        names = ", ".join(f"'{u}'" for u in lack)
        parts.append(f"{names} {'is not a builtin' if len(lack) == 1 else 'are not builtins'}: "
                     f"write {'it as a `def` helper' if len(lack) == 1 else 'them as `def` helpers'}")
    if modname.partition(".")[0] in ("random", "secrets"):
        parts = ["a body has no randomness; a sampler gets it through its `rng` parameter "
                 "(" + ", ".join(f"rng.{m}" for m in _rng_methods()) + ")"]
    if not parts:
        parts.append("bodies call the builtins (abs, divmod, pow, min, max, sum, sorted, ...) and `def` helpers")
    return "; ".join(parts) + "; remove the import"


class Loader:
    def __init__(self, include: list[Path] | None = None, overlay: dict[str, str] | None = None):
        self.include = [Path(p) for p in include or []]
        self.overlay = overlay or {}  # path → text (unsaved editor buffers)
        self.sources: dict[str, Source] = {}  # module name → source
        self.diagnostics: list[Diagnostic] = []

    def _read(self, path: Path) -> tuple[str, list[Diagnostic]]:
        key = str(path)
        if key in self.overlay:
            return self.overlay[key], []
        what = irregular(path)
        if what is not None:  # (never opened: a FIFO would block)
            raise OSError(0, f"{what}, not a regular file")
        return decode_source(path.read_bytes(), key)

    def read_module(self, path: Path) -> tuple[str, A.Module, list[Diagnostic]]:
        """Text, tree and diagnostics of one file (raises OSError). Extension point: the
        language server overrides this to read open buffers and cached parses."""
        text, diags = self._read(path)
        mod, more = parse_module(text, str(path))
        return text, mod, diags + more

    def load_file(self, path: Path) -> Source | None:
        name = path.stem
        if name in self.sources:
            existing = self.sources[name]
            if Path(existing.path).resolve() != path.resolve():
                self.diagnostics.append(Diagnostic(
                    "E201", f"two modules are named '{name}': {existing.path} and {path}",
                    Span(1, 1, 1, 1), str(path), hint="rename one of the files"))
            return existing
        try:
            text, mod, diags = self.read_module(path)
        except OSError as e:
            hint = (f"the bundled library's modules: {', '.join(sorted(q.stem for q in resources.stdlib_dir().glob('*.races')))}"
                    if _names_bundled(path) else "check the path; `stdlib` names the bundled library")
            self.diagnostics.append(Diagnostic("E202", f"cannot read {path}: {e.strerror}", Span(1, 1, 1, 1), str(path),
                                               hint=hint))
            return None
        src = Source(name, str(path), text, mod, diags, module_imports(mod))
        self.sources[name] = src
        for modname, node in src.imports:
            self._resolve_import(src, modname, node)
        return src

    def _resolve_import(self, importer: Source, modname: str, node) -> None:
        if modname in self.sources:
            return
        for d in search_path(Path(importer.path), self.include):
            cand = d / (modname.replace(".", "/") + ".races")
            if cand.exists() or str(cand) in self.overlay:
                self.load_file(cand)
                return
        if modname.partition(".")[0] in sys.stdlib_module_names:
            importer.diagnostics.append(Diagnostic(
                "E202", f"'{modname}' is a Python module; a .races file can import only .races modules",
                node.module_span, importer.path, hint=python_module_hint(importer.ast, modname, node)))
            return
        where = ", ".join(str(d) for d in search_path(Path(importer.path), self.include)[:3])
        importer.diagnostics.append(Diagnostic(
            "E202", f"module '{modname}' not found", node.module_span, importer.path,
            hint=f"looked for {modname}.races in: {where}; add a folder with -I"))

    def order(self) -> list[Source]:
        """Modules in dependency order (imports first); cycles reported and broken."""
        seen: dict[str, int] = {}  # 1 = visiting, 2 = done
        out: list[Source] = []
        self.broken: set[tuple[str, str]] = set()

        def visit(name: str, stack: list[str]) -> None:
            # iterative DFS would be nicer, but module graphs are shallow
            seen[name] = 1
            src = self.sources[name]
            for dep, node in src.imports:
                if dep not in self.sources:
                    continue
                if seen.get(dep) == 1:
                    path = stack + [name]
                    cyc = " -> ".join(path[path.index(dep):] + [dep])
                    src.diagnostics.append(Diagnostic(
                        "E203", f"import cycle: {cyc}", node.span, src.path,
                        hint="move what both modules need into a third module that imports neither"))
                    self.broken.add((name, dep))
                    continue
                if seen.get(dep) is None:
                    visit(dep, stack + [name])
            seen[name] = 2
            out.append(src)

        for name in sorted(self.sources):
            if name not in seen:
                visit(name, [])
        return out


def _rng_methods() -> tuple[str, ...]:
    """The sampler rng's methods, from the one table (racesl.types.builtins)."""
    from racesl.types import builtins as B

    return tuple(e.name for e in B.ENTRIES if e.receiver == "rng")
