"""The generator prompt: seed environments chosen by the pool's type inventory, the language
excerpt, and the module to write.

The inventory counts, per erased type shape (racesl.types.types.erase: what composition
matches on), the pool environments that produce it (return it) and consume it (take it).
A shape with few producers or few consumers is where a new environment adds the most
composition edges, so rare shapes come up more often; but every shape the pool has (grids,
graphs, dates, …) is a target in turn: the targets follow a schedule, a seeded order of all
shapes (Bool excepted) with the RARE rarest ones twice, and candidate i of step s takes entry
s * per_step + i of it, so any `len(schedule)` consecutive prompts cover every shape. The prompt
shows 2–3 pool environments next to its target as examples. Every other choice comes from
item_rng(seed, "evolve", step, i): the same pool, seed, step and index give the same text.

Each example is shown as a complete module (`module` line, the imports, and every type
declaration and helper it uses, transitively, then the environment), so it type-checks on its
own beside the pool (tests/evolve/test_prompt.py checks them): the shape a candidate must have,
which a small model copies far better than a bare definition (benchmarks/bench_constrained.py
measures both prompts; `style="envs"` is the earlier one). An environment whose complete module
is over SNIPPET_CHARS is shown only when too few others are near the target. Under a grammar
(`constrained`) the reply is the module's text alone, starting with its `module` line; otherwise
one ```races block.
"""

from __future__ import annotations

import re
from pathlib import Path

import attrs

from racesl.evolve.excerpt import EXCERPT
from racesl.sample.seeding import item_rng

RARE = 3  # these rarest shapes come up twice in each round of the target schedule
SNIPPET_CHARS = 1800  # an example module longer than this is shown only when nothing shorter is near
# Bool: two values only — an environment taking it has at most two outputs (nontrivial
# rejects it) and one returning it is dropped by the compile's Bool filter
SKIP_SHAPES = ("Bool",)
SYSTEM = ("You write new environments in the .races language: small, pure, typed functions whose output "
          "can be checked exactly. Reply with one ```races block holding the whole module.")
SYSTEM_CONSTRAINED = ("You write new environments in the .races language: small, pure, typed functions whose "
                      "output can be checked exactly. Reply with the module's text only, starting with its "
                      "`module` line.")
STYLES = ("modules", "envs")


@attrs.frozen
class Shape:
    name: str  # str(erase(T)): "List[Int]", "graphs.Graph"
    producers: tuple[str, ...]  # qualnames of pool envs returning it
    consumers: tuple[str, ...]  # qualnames of pool envs taking it

    @property
    def rarity(self) -> tuple:
        return (min(len(self.producers), len(self.consumers)), len(self.producers) + len(self.consumers), self.name)


@attrs.frozen
class Prompt:
    text: str
    system: str
    module: str  # the module name asked for
    shape: str  # the target shape
    direction: str  # "return" | "take" | "take or return"
    seeds: tuple[str, ...]  # qualnames of the example environments shown


def inventory(envs) -> list[Shape]:
    """Every erased shape the pool's environments take or return, rarest first."""
    from racesl.types.types import erase

    prod: dict[str, list[str]] = {}
    cons: dict[str, list[str]] = {}
    for e in envs:
        prod.setdefault(str(erase(e.output)), []).append(e.qualname)
        cons.setdefault(str(erase(e.input)), []).append(e.qualname)
    names = sorted(set(prod) | set(cons))
    shapes = [Shape(n, tuple(sorted(prod.get(n, ()))), tuple(sorted(cons.get(n, ())))) for n in names]
    return sorted(shapes, key=lambda s: s.rarity)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


def _closure(cm, node) -> list:
    """The module's type declarations, constants and functions `node` needs, transitively (a
    helper's own helpers and types, a type's types, a constant's constants), in module order."""
    from racesl.syntax import ast as A

    items = [it for it in cm.ast.items if isinstance(it, (A.TypeDecl, A.ConstDef, A.FuncDef)) and it is not node]
    used = _words(cm.text[node.span.start:node.span.end])
    chosen: set[int] = set()
    grew = True
    while grew:
        grew = False
        for it in items:
            if id(it) not in chosen and it.name in used:
                chosen.add(id(it))
                used |= _words(cm.text[it.span.start:it.span.end])
                grew = True
    return [it for it in items if id(it) in chosen]


def env_source(checked, env) -> str:
    """The environment's text (decorators included) after every type declaration and function
    of its module it needs, transitively, in module order (types first): nothing it names is
    left undefined."""
    from racesl.syntax import ast as A

    cm = checked.modules[env.module]
    node = env.node
    need = _closure(cm, node)
    types = [cm.text[it.span.start:it.span.end] for it in need if isinstance(it, A.TypeDecl)]
    consts = [cm.text[it.span.start:it.span.end] for it in need if isinstance(it, A.ConstDef)]  # (in order)
    funcs = [cm.text[it.span.start:it.span.end] for it in need if isinstance(it, A.FuncDef)]
    parts = types + consts + funcs + [cm.text[node.span.start:node.span.end]]
    return "\n\n".join(p.rstrip() for p in parts)


def module_source(checked, env) -> str:
    """The environment as a complete module: its module's `module` line, the imports its text
    uses, then env_source (type declarations, helpers, the environment)."""
    from racesl.syntax import ast as A

    cm = checked.modules[env.module]
    body = env_source(checked, env)
    used = _words(body)
    head = [f"module {env.module}"]
    for it in cm.ast.items:
        if isinstance(it, A.FromImport) and any(n.name in used for n in it.names):
            names = ", ".join(n.name for n in it.names if n.name in used)
            head.append(f"from {it.module} import {names}")
        elif isinstance(it, A.Import) and it.module.split(".")[0] in used:
            head.append(f"import {it.module}")
    return "\n".join(head) + "\n\n" + body


def schedule(shapes: list[Shape], seed: int) -> list[str]:
    """The target shapes in turn: every shape once and the RARE rarest a second time, in an
    order drawn from `seed` (shapes: rarest first, as `inventory` gives them)."""
    order = [s.name for s in shapes] + [s.name for s in shapes[:RARE]]
    rng = item_rng(seed, "evolve", "schedule")
    rng.shuffle(order)
    return order


def _direction(s: Shape) -> str:
    if len(s.producers) < len(s.consumers):
        return "return"
    if len(s.consumers) < len(s.producers):
        return "take"
    return "take or return"


def _import_hint(shape: str) -> str:
    """How to name a nominal type of another module: `graphs.Graph` → `from graphs import Graph`."""
    names = re.findall(r"\b([a-z_][a-z0-9_]*)\.([A-Z][A-Za-z0-9_]*)", shape)
    if not names:
        return ""
    lines = sorted({f"from {m} import {t}" for m, t in names})
    return " Import its type at the top: " + "; ".join(f"`{x}`" for x in lines) + "."


def module_name(step: int, i: int) -> str:
    return f"evo_s{step}_c{i}"


def build_prompt(checked, seed: int, step: int, i: int, *, system: str | None = None, constrained: bool = False,
                 style: str = "modules", per_step: int = 1) -> Prompt:
    """The prompt for candidate `i` of `step` over the pool `checked` (racesl.check.Checked);
    `constrained`: the reply is decoded under the generation grammar (no fence); `per_step`: the
    candidates a step asks for (the target schedule's position is step * per_step + i)."""
    if style not in STYLES:
        raise ValueError(f"style is one of {STYLES}, not {style!r}")
    envs = sorted(checked.envs(), key=lambda e: e.qualname)
    if not envs:
        raise ValueError("the pool has no environments to show the generator")
    rng = item_rng(seed, "evolve", step, i)
    shapes = [s for s in inventory(envs) if s.name not in SKIP_SHAPES] or inventory(envs)
    turns = schedule(shapes, seed)
    name_of = turns[(step * max(1, per_step) + i) % len(turns)]
    target = next(s for s in shapes if s.name == name_of)
    k = rng.choice((2, 3))
    by_name = {e.qualname: e for e in envs}

    def fits(q: str) -> bool:
        return len(module_source(checked, by_name[q])) <= SNIPPET_CHARS

    near = sorted(set(target.producers) | set(target.consumers))
    short = [q for q in near if fits(q)]
    chosen = rng.sample(short, min(k, len(short)))
    if len(chosen) < k:  # too few short ones near the target: the longer near ones, then short others
        long_near = [q for q in near if q not in chosen]
        chosen += rng.sample(long_near, min(k - len(chosen), len(long_near)))
    if len(chosen) < k:
        rest = [e.qualname for e in envs if e.qualname not in chosen and fits(e.qualname)]
        chosen += rng.sample(rest, min(k - len(chosen), len(rest)))
    examples = []
    for q in chosen:
        e = by_name[q]
        if style == "modules":
            examples.append(f"# {q}: {e.signature()}\n```races\n{module_source(checked, e)}\n```")
        else:
            examples.append(f"# {q}: {e.signature()}  (module {e.module})\n```races\n{env_source(checked, e)}\n```")
    direction = _direction(target)
    name = module_name(step, i)
    reply = (f"Reply with the module's text only, starting with `module {name}`." if constrained
             else "Reply with one ```races block.")
    task = (f"Write one new module `{name}` (start it with `module {name}`) with 1–3 environments that "
            f"{direction} {target.name}. The pool has {len(target.producers)} environment(s) returning "
            f"{target.name} and {len(target.consumers)} taking it; yours must compute something none of the "
            f"examples computes, not a renamed copy.{_import_hint(target.name)} {reply}")
    shown = ("Some modules already in the pool, each complete:" if style == "modules"
             else "Some environments already in the pool:")
    text = ("Here is the .races language in brief.\n\n" + EXCERPT + "\n" + shown + "\n\n"
            + "\n\n".join(examples) + "\n\n" + task + "\n")
    default = SYSTEM_CONSTRAINED if constrained else SYSTEM
    return Prompt(text, system if system is not None else default, name, target.name, direction, tuple(chosen))


_CHECKED: dict = {}  # the last pool generator_prompt checked: (path, mtime) pairs → Checked


def _pool_checked(pool):
    from racesl.check import check_paths

    paths = [str(p) for p in pool.paths()]
    key = tuple((p, Path(p).stat().st_mtime_ns) for p in paths)
    if key not in _CHECKED:
        _CHECKED.clear()
        _CHECKED[key] = check_paths(paths, list(pool.include()))
    return _CHECKED[key]


def generator_prompt(pool, gen_cfg, step: int, slot: int) -> str:
    """The prompt text for (step, slot) over `pool` (a racesl.admit.context.Context, or a
    racesl.pool.Pool, checked once while its files stay the same), seeded by `gen_cfg.seed`:
    the `prompt(step, slot)` hook of racesl.evolve.grpo."""
    checked = pool.pool_checked() if hasattr(pool, "pool_checked") else _pool_checked(pool)
    want = getattr(gen_cfg, "constrained", False)
    if want is None:  # unset: on where llguidance is installed (racesl.evolve.grpo decides the same way)
        from racesl.generation.constrained import available

        want = available()
    per_step = int(getattr(gen_cfg, "candidates_per_step", 1) or 1)
    return build_prompt(checked, int(getattr(gen_cfg, "seed", 0) or 0), step, slot, constrained=bool(want),
                        per_step=per_step).text
