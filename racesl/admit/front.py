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
    from racesl.library import ConstantError, Library

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
    own = imported(name, loader.sources)
    try:
        cand.own_lib = Library(Checked({m: cm for m, cm in checked.modules.items() if m in own}, [name], []),
                               lowered=lowered)
        cand.lib = extended_library(ctx.pool_lib(), checked, cand.own_lib)
    except ConstantError as e:  # a module constant that does not evaluate (E443): the module's fault
        return str(e)
    return _worked_examples(cand, ctx)


def extended_library(pool_lib, checked, own_lib):
    """The library of pool + candidate (`checked`), made without instrumenting the pool again:
    the pool's program (instrumented once per pool) and the candidate's own (the candidate and
    what it imports, a closed program: what the instrumenter infers of a function comes from
    the functions it calls) side by side. Each function keeps the namespace it was compiled
    in, so a pool environment runs exactly as in the pool's library and a candidate's as in
    its own. The per-candidate cost no longer grows with the pool (issue 47)."""
    from racesl.library import Library
    from racesl.runtime.execute import Program

    base, mine = pool_lib.program, own_lib.program
    prog = object.__new__(Program)
    prog.__dict__.update(base.__dict__)
    prog.namespace = {**base.namespace, **mine.namespace}
    prog._entries = {**base._entries, **mine._entries}
    prog._fns = {**base._fns, **mine._fns}
    prog.budgets = {**base.budgets, **mine.budgets}
    lib = Library(checked, lowered={**pool_lib.lowered, **own_lib.lowered}, program=prog)
    lib._mutators = _mutators(pool_lib) | _mutators(own_lib)  # (each closed: the union is the whole's)
    return lib


def _mutators(lib) -> frozenset:
    if lib._mutators is None:
        from racesl.lower.effects import mutating_functions

        lib._mutators = frozenset(mutating_functions(lib.module))
    return frozenset(lib._mutators)


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


def imported(name: str, sources: dict) -> set[str]:
    """`name` and every module it imports, directly or not."""
    seen, todo = set(), [name]
    while todo:
        m = todo.pop()
        if m in seen or m not in sources:
            continue
        seen.add(m)
        todo.extend(dep for dep, _ in sources[m].imports)
    return seen


def extended_graph(base, envs: list, classify, in_place: bool = False):
    """`base` (a SignatureGraph) with `envs` added: their nodes and every edge into or out of
    them, typed by `classify` as SignatureGraph does. The same graph as one built over all
    the environments, made from the candidate's edges alone: only the pool environments whose
    erased shapes meet the candidate's are classified against it. `in_place` (a candidate's
    forked child, whose copy of the pool's graph dies with it) changes `base` itself instead
    of a copy."""
    from racesl.graph.signature import SignatureGraph
    from racesl.types import types as T

    out = object.__new__(SignatureGraph)
    out.__dict__.update(base.__dict__)
    out.__dict__.pop("_admit_shapes", None)  # (the base's shape maps: the grown graph makes its own)
    g = base.g if in_place else base.g.copy()
    every = dict(base.envs)
    every.update({e.qualname: e for e in envs})
    out.envs = {q: every[q] for q in sorted(every)}
    by_in, by_out = _shape_maps(base)
    new = sorted(envs, key=lambda e: e.qualname)
    for e in new:
        g.add_node(e.qualname, module=e.module, input=str(e.input), output=str(e.output), terminal=e.terminal,
                   **({"source": True} if e.source else {}))
    consumers = {k: list(v) for k, v in by_in.items()}
    producers = {k: list(v) for k, v in by_out.items()}
    for e in new:
        if not e.source:
            consumers.setdefault(T.erase(e.input), []).append(e)
        if not e.terminal:
            producers.setdefault(T.erase(e.output), []).append(e)
    touched = {e.qualname for e in new}
    pairs = set()
    for e in new:
        if not e.terminal:
            pairs.update((e.qualname, b.qualname) for b in consumers.get(T.erase(e.output), []))
        if not e.source:
            pairs.update((a.qualname, e.qualname) for a in producers.get(T.erase(e.input), []))
    dropped = 0
    for a, b in sorted(pairs):
        kind = classify(every[a].output, every[b].input)
        if kind is None:
            dropped += 1
            continue
        g.add_edge(a, b, kind=kind)
        touched.add(a)
    out.g = g
    out.dropped = base.dropped + dropped
    succ = dict(base._succ)
    for q in touched:
        succ[q] = tuple((d, g.edges[q, d]["kind"]) for d in sorted(g.successors(q)))
    out._succ = succ
    return out


def _shape_maps(graph) -> tuple[dict, dict]:
    """(erased input type → consumers, erased output type → producers) of a graph's
    environments, as SignatureGraph pairs them; kept on the graph (built once per pool)."""
    from racesl.types import types as T

    maps = graph.__dict__.get("_admit_shapes")
    if maps is None:
        by_in: dict = {}
        by_out: dict = {}
        for e in graph.envs.values():
            if not e.source:
                by_in.setdefault(T.erase(e.input), []).append(e)
            if not e.terminal:
                by_out.setdefault(T.erase(e.output), []).append(e)
        maps = graph.__dict__["_admit_shapes"] = (by_in, by_out)
    return maps


def composes(cand: Candidate, ctx) -> str | None:
    """At least one typed edge between a candidate environment and a pool environment (either
    way): a module nothing can feed or consume adds tasks of size one only. A pool with no
    environments yet (the first module of a new pool) asks for an edge among its own. The
    graph is the pool's, built once, with the candidate's edges added (`extended_graph`)."""
    graph = extended_graph(ctx.pool_graph(), cand.envs, ctx.solver().cached.classify, in_place=ctx.in_child)
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
