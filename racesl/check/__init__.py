"""Checking: load modules along the search path, then check each in dependency order."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import attrs

from racesl.check.checker import ModuleChecker
from racesl.check.loader import Loader, expand_paths, source_notes
from racesl.check.model import CheckedModule, EnvSig, HelperSig
from racesl.diagnostics import Diagnostic, has_errors


@attrs.define
class Checked:
    modules: dict[str, CheckedModule]  # dependency order
    roots: list[str]  # the modules named on the command line
    diagnostics: list[Diagnostic]
    notes: list[str] = attrs.field(factory=list)  # which copy a path named `stdlib` read

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)

    def envs(self, only_roots: bool = False) -> list[EnvSig]:
        mods = self.roots if only_roots else list(self.modules)
        return [e for m in mods if m in self.modules for e in self.modules[m].envs.values()]

    def env(self, qualname: str) -> EnvSig | None:
        mod, _, name = qualname.rpartition(".")
        m = self.modules.get(mod)
        return None if m is None else m.envs.get(name)


def check_paths(paths: list[str | Path], include: list[str | Path] = (), overlay: dict[str, str] | None = None) -> Checked:
    loader = Loader([Path(p) for p in include], overlay)
    checked = check_loaded(loader, expand_paths(list(paths), loader.diagnostics),
                           lambda src, checked: ModuleChecker(src, checked, loader.broken).run())
    checked.notes = source_notes(list(paths))
    return checked


def check_loaded(loader: Loader, paths, check_one: Callable[[Any, dict[str, CheckedModule]], CheckedModule]) -> Checked:
    """Load `paths` (and what they import) with `loader`, then check every module in
    dependency order with `check_one(source, checked_so_far)`. The language server passes
    its own loader and a `check_one` that replays unchanged modules."""
    roots = []
    for p in paths:
        src = loader.load_file(Path(p))
        if src is not None:
            roots.append(src.name)
    checked: dict[str, CheckedModule] = {}
    diags = list(loader.diagnostics)
    for src in loader.order():
        cm = check_one(src, checked)
        checked[src.name] = cm
        diags.extend(cm.diagnostics)
    return Checked(checked, list(dict.fromkeys(roots)), sorted(diags, key=Diagnostic.sort_key))
