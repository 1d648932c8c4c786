"""The gates that read the candidate without running it: parse, check, composes.

`check` checks the candidate beside the pool (the pool's modules parsed and checked once,
see Context), fixes up its module name — a `module` line that disagrees with the file,
or a name the pool already has, is renamed rather than rejected — and builds the library
of pool + candidate that the running gates use.
"""

from __future__ import annotations

import hashlib
import re

from racesl.admit.gates import Candidate
from racesl.syntax import ast as A

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_BAD_FILE = re.compile(r"[^A-Za-z0-9_]+")


def _first_error(diags, file: str) -> str:
    errors = [d for d in diags if d.is_error]
    d = errors[0]
    line = d.headline().replace(d.path, file, 1) if d.path.endswith(".races") else d.headline()
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return line + (f" — {d.hint}" if d.hint else "") + more


def _not_utf8(text: str) -> tuple[int, int, str] | None:
    """(line, column, the code point) of the first character UTF-8 cannot encode (a lone
    surrogate, which a JSON reply's escapes can carry), or None: every later gate writes or
    hashes the text as UTF-8, so it stops here, at parse."""
    try:
        text.encode("utf-8")
        return None
    except UnicodeEncodeError as e:
        before = text[:e.start]
        return before.count("\n") + 1, e.start - (before.rfind("\n") + 1) + 1, f"U+{ord(text[e.start]):04X}"


def parse(cand: Candidate, ctx) -> str | None:
    from racesl.syntax.parser import parse_module

    bad = _not_utf8(cand.text)
    if bad is not None:
        cand.scores["parse"] = {"errors": 1, "items": 0}
        return (f"{cand.file}:{bad[0]}:{bad[1]}: the text is not valid UTF-8 (a lone surrogate {bad[2]}) — "
                "write the module in plain Unicode text")
    tree, diags = parse_module(cand.text, cand.file)
    errors = [d for d in diags if d.is_error]
    cand.scores["parse"] = {"errors": len(errors), "items": len(tree.items)}
    if errors:
        return _first_error(errors, cand.file)
    cand.tree = tree
    return None


def module_name(cand: Candidate, taken: set[str]) -> str:
    """The name the candidate gets in the pool: its `module` line, else its file's stem,
    else one made from its text; `_2`, `_3`, ... appended while the pool has it."""
    base = cand.tree.name if cand.tree is not None and cand.tree.name else None
    if base is None:
        stem = cand.file.rsplit("/", 1)[-1].removesuffix(".races")
        stem = _BAD_FILE.sub("_", stem).strip("_").lower()
        base = stem if stem and _NAME.match(stem) and not stem[0].isdigit() else ""
    if not base or not _NAME.match(base) or base.startswith("_"):
        base = "gen_" + hashlib.sha256(cand.text.encode("utf-8", "replace")).hexdigest()[:8]
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    return name


def _renamed(text: str, tree: A.Module, name: str) -> str:
    """The text with its `module` line (if any) declaring `name`."""
    decl = next((it for it in tree.items if isinstance(it, A.ModuleDecl)), None)
    if decl is None or decl.name == name:
        return text
    s = decl.span
    return text[:s.start] + f"module {name}" + text[s.end:]


def check(cand: Candidate, ctx) -> str | None:
    from racesl.check import Checked, check_loaded
    from racesl.check.checker import ModuleChecker
    from racesl.check.loader import Loader
    from racesl.library import Library

    pool_checked = ctx.pool_checked()
    name = module_name(cand, set(ctx.pool_sources()))
    fixed = name != (cand.tree.name or cand.file.rsplit("/", 1)[-1].removesuffix(".races"))
    cand.text = _renamed(cand.text, cand.tree, name)
    cand.module = name
    path = ctx.workdir() / f"{name}.races"
    path.write_text(cand.text, encoding="utf-8")
    loader = Loader(ctx.include())
    loader.sources.update(ctx.pool_sources())
    reuse = pool_checked.modules

    def check_one(src, done):
        if src.name in reuse and src.name != name:
            return reuse[src.name]
        return ModuleChecker(src, done, loader.broken).run()

    checked = check_loaded(loader, [path], check_one)
    mine = [d for d in checked.diagnostics if d.path == str(path)]
    cand.scores["check"] = {"errors": sum(d.is_error for d in mine), "module": name, "renamed": fixed}
    if not checked.ok:
        return _first_error([d for d in checked.diagnostics if d.is_error], cand.file)
    module = checked.modules[name]
    cand.envs = list(module.envs.values())
    cand.scores["check"]["envs"] = len(cand.envs)
    if not cand.envs:
        return "the module defines no environment: write at least one `env name(x: T) -> U:` with a description"
    cand.checked = checked
    lowered = ctx.pool_lowered()
    cand.lib = Library(checked, lowered=lowered)
    own = _imported(name, loader.sources)
    cand.own_lib = Library(Checked({m: cm for m, cm in checked.modules.items() if m in own}, [name], []),
                           lowered=lowered)
    return _worked_examples(cand, ctx)


def _worked_examples(cand: Candidate, ctx) -> str | None:
    """`racesc check`'s E604: a description's example the body disagrees with (prompts show
    it). Run here, in the candidate's limited child, with the sample gate's fuel and wall."""
    from racesl.catalogue.diagnose import refusals
    from racesl.runtime.watchdog import WATCHDOG

    cfg = ctx.config
    lib = cand.own_lib

    def runner(env, x, settings=()):
        return lib.run(env, x, settings, fuel=cfg.fuel, wall=cfg.wall)

    with WATCHDOG.session():
        wrong = refusals(lib, cand.envs, runner)
    cand.scores["check"]["examples_wrong"] = len(wrong)
    return _first_error(wrong, cand.file) if wrong else None


def _imported(name: str, sources: dict) -> set[str]:
    """`name` and every module it imports, directly or not."""
    seen, todo = set(), [name]
    while todo:
        m = todo.pop()
        if m in seen or m not in sources:
            continue
        seen.add(m)
        todo.extend(dep for dep, _ in sources[m].imports)
    return seen


def composes(cand: Candidate, ctx) -> str | None:
    """At least one typed edge between a candidate environment and a pool environment (either
    way): a module nothing can feed or consume adds tasks of size one only. A pool with no
    environments yet (the first module of a new pool) asks for an edge among its own."""
    from racesl.graph.signature import SignatureGraph

    graph = SignatureGraph(list(ctx.pool_envs()) + cand.envs, classify=ctx.solver().cached.classify)
    cand.graph = graph
    mine = {e.qualname for e in cand.envs}
    into, out_of = set(), set()
    for q in mine:
        out_of.update(d for d, _ in graph.successors(q) if d not in mine)
        into.update(s for s, _ in graph.predecessors(q) if s not in mine)
    inner = sum(d in mine for q in mine for d, _ in graph.successors(q))
    cand.scores["composes"] = {"into": len(into), "out_of": len(out_of), "inner": inner}
    cand.parents = tuple(sorted(into | out_of))
    if not into and not out_of and not (inner and not ctx.pool_envs()):
        shapes = ", ".join(sorted({f"{e.name}: {e.input} -> {e.output}" for e in cand.envs}))
        return (f"no pool environment produces or consumes its types ({shapes}); "
                "take or return a type the pool uses (see `racesc graph`)")
    return None
