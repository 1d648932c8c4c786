"""One stage per package, and no import circles (issue 16).

Every `import` in racesl/*.py is read with `ast` — at module level and inside functions
alike (a lazy import is still a dependency, only a later one), `import x`, `from x import
y` and relative imports — and checked against the layering below:

(a) no circle among files; (b) no two units import each other; (c) each unit imports only
the units LAYERS allows it, all of them listed above it; (d) no file over MAX_LINES lines.

A *unit* is a package `racesl/<pkg>/` or a top-level module `racesl/<mod>.py`;
`racesl/__init__.py` (the version) is the unit "racesl". Importing `racesl.a.b` also runs
`racesl/a/__init__.py`, but that implicit edge is not counted (a package's `__init__`
re-exporting its own modules would otherwise be a circle with each of them).

Imports under `if TYPE_CHECKING:` are counted like any other (there are none today): a
type-only import still ties the two units together for a reader and for the type
checker, so it must go the same way as the others. Code inside string literals (the hash
seed probe's child script) is not read.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "racesl"
MAX_LINES = 1000
LONG_FILES: set[str] = set()  # files allowed over MAX_LINES: none

# Bottom to top: (unit, the units it may import). Every unit named must be listed above
# it, so the table is itself an order and no circle can pass. "*": any unit above it.
LAYERS: list[tuple[str, str]] = [
    # leaves: plain values and helpers that know nothing of the language
    ("racesl", ""),  # racesl/__init__.py: the version
    ("diagnostics", ""),  # Diagnostic, Span, Severity, the code table
    ("resources", ""),  # where the bundled grammar and stdlib are
    ("text", ""),  # wording helpers (plural, ...)
    ("output", ""),  # the output policy: what a command may write over
    ("userfiles", "output"),  # the one reader of files a user hands us (sidecars, results, configs)
    ("atomic", "output"),  # atomic_write: temporary file, then rename (under the output policy)
    ("cache", ""),  # caches bounded by the size of what they hold
    ("templates", ""),  # the operators' prompt templates and their fields
    ("generation", ""),  # text from a model: in process (transformers) or an OpenAI-compatible server
    # the language, front to back
    ("syntax", "diagnostics resources"),  # lexer, parser, AST, the AST → Python printer
    ("format", "diagnostics syntax"),  # racesc fmt: the canonical layout of a file
    ("types", "diagnostics syntax"),  # types and reading refinements into bounds
    ("solver", "racesl atomic diagnostics syntax types"),  # Z3: edges, pruning, int bounds
    ("runtime", "diagnostics text types"),  # fuel, guards, builtins, Program, sandbox
    ("check", "diagnostics resources text syntax types solver runtime"),  # load, resolve, check (@fuel: runtime.limits)
    ("lower", "diagnostics syntax types check runtime"),  # checked module → instrumented Python
    ("sample", "diagnostics text syntax types solver runtime"),  # input samplers
    ("library", "racesl diagnostics text cache types check runtime lower sample"),  # a compiled library
    ("sandbox_runner", "library lower runtime"),  # library runs in worker processes (--untrusted)
    ("catalogue", "resources diagnostics atomic text syntax types check runtime sample format"),  # descriptions' examples, the catalogue page
    ("probe", "diagnostics text syntax types runtime lower sample library catalogue"),  # check's sampling probe
    # composition
    ("graph", "diagnostics text types solver check"),  # the signature graph
    ("passing", "atomic runtime solver probe graph"),  # guarded edges that never passed in check's sampling
    ("search", "diagnostics output text cache templates types runtime check sample graph userfiles"),  # chains, filters, config
    ("records", "atomic output userfiles"),  # Task and the files tasks go to
    ("pool", "atomic resources"),  # the folder of admitted modules and its manifest
    ("operators", "*"),  # sequential, parallel, sort, select, branch, loop
    ("compile", "*"),  # compile_tasks: search + operators in batches over workers
    ("rewards", "*"),  # scoring a completion against a record
    ("audit", "*"),  # shortcut audits of compiled tasks
    ("curriculum", "*"),
    ("admit", "*"),  # the admission gates: is a candidate module fit for the pool
    # tools on top
    ("render", "*"),  # diagnostics for a terminal
    ("train", "*"),
    ("evolve", "*"),  # the pool grows itself: generator prompts, the loop, GRPO in two roles
    ("serve", "*"),  # the HTTP reward server: records by id, scoring workers, trainer shapes
    ("integrations", "*"),  # hubs: Hugging Face datasets, OpenEnv, NeMo Gym (each behind its extra)
    ("lsp", "*"),
    ("cli", "*"),
    ("__main__", "*"),
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


FILES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _resolve(name: str) -> str:
    """The racesl module file `name` lands in (a name inside a module: that module)."""
    while name not in FILES and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def _imports(module: str) -> list[tuple[str, int]]:
    """(imported racesl module, line) for every import statement in the file, nested or not."""
    path = FILES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for a in node.names:  # `from racesl.operators import templates`: the module itself
                sub = f"{source}.{a.name}"
                found.append((sub if sub in FILES else source, node.lineno))
    return [(_resolve(name), line) for name, line in found
            if name == "racesl" or name.startswith("racesl.")]


EDGES = list(dict.fromkeys((m, target, line) for m in FILES for target, line in _imports(m) if target != m))


def _where(module: str, line: int) -> str:
    return f"{FILES[module].relative_to(ROOT)}:{line}"


def test_the_table_is_an_order_and_names_every_unit():
    seen: list[str] = []
    for unit, allowed in LAYERS:
        assert unit not in seen, f"{unit} is listed twice in LAYERS"
        later = [u for u in allowed.split() if u != "*" and u not in seen]
        assert not later, f"LAYERS: {unit} may import {', '.join(later)}, which are not listed above it"
        seen.append(unit)
    units = {_unit(m) for m in FILES}
    missing = sorted(units - set(seen))
    assert not missing, f"units not placed in LAYERS (add them where they belong): {', '.join(missing)}"
    gone = sorted(set(seen) - units)
    assert not gone, f"LAYERS lists units that racesl/ no longer has: {', '.join(gone)}"


def test_no_import_circle_among_files():
    g = nx.DiGraph()
    lines: dict[tuple[str, str], int] = {}
    for a, b, line in EDGES:
        g.add_edge(a, b)
        lines.setdefault((a, b), line)
    circles = []
    for cycle in nx.simple_cycles(g):
        hops = [f"{_where(a, lines[a, b])} imports {b}" for a, b in zip(cycle, cycle[1:] + cycle[:1])]
        circles.append("\n    ".join(hops))
        if len(circles) == 10:
            break
    assert not circles, "import circles among files:\n  " + "\n  ".join(circles)


def test_no_two_units_import_each_other():
    by_pair: dict[tuple[str, str], list[str]] = defaultdict(list)
    for a, b, line in EDGES:
        if _unit(a) != _unit(b):
            by_pair[_unit(a), _unit(b)].append(f"{_where(a, line)} imports {b}")
    both = []
    for (u, v), where in sorted(by_pair.items()):
        if u < v and (v, u) in by_pair:
            both.append(f"{u} <-> {v}:\n    " + "\n    ".join(where[:3] + by_pair[v, u][:3]))
    assert not both, "units that import each other:\n  " + "\n  ".join(both)


def test_each_unit_imports_only_the_units_below_it():
    allowed: dict[str, set[str]] = {}
    seen: list[str] = []
    for unit, names in LAYERS:
        allowed[unit] = set(seen) if names.strip() == "*" else set(names.split())
        seen.append(unit)
    bad = []
    for a, b, line in EDGES:
        ua, ub = _unit(a), _unit(b)
        if ua != ub and ub not in allowed.get(ua, set()):
            may = ", ".join(sorted(allowed.get(ua, ()))) or "no other unit"
            bad.append(f"{_where(a, line)}: {ua} imports {b} ({ub}); {ua} may import: {may}")
    assert not bad, "imports against the layering (tests/test_layers.py, LAYERS):\n  " + "\n  ".join(bad)


def test_no_file_over_the_line_limit():
    long = []
    for path in FILES.values():
        rel = path.relative_to(ROOT).as_posix()
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_LINES and rel not in LONG_FILES:
            long.append(f"{rel}: {n} lines")
    assert not long, f"files over {MAX_LINES} lines (split them):\n  " + "\n  ".join(long)


def test_core_and_server_import_no_torch():
    """check, compile, score and serve must run where torch is not installed (the design card)."""
    import subprocess
    import sys

    code = ("import sys, racesl.check, racesl.library, racesl.compile, racesl.rewards, racesl.serve, "
            "racesl.cli.check, racesl.cli.compile, racesl.cli.score, racesl.cli.serve; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'transformers', 'trl')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout
