"""The generator prompt: seed environments chosen by the pool's type inventory, the language
excerpt, and the module to write.

The inventory counts, per erased type shape (racesl.types.types.erase: what composition
matches on), the pool environments that produce it (return it) and consume it (take it).
A shape with few producers or few consumers is where a new environment adds the most
composition edges, so the prompt asks for one around such a shape and shows 2–3 pool
environments next to it as examples. Every choice comes from
item_rng(seed, "evolve", step, i): the same pool, seed, step and index give the same text.

Each example is shown as a complete module (`module` line, the imports and type declarations
and helpers it uses, then the environment): the shape a candidate must have, which a small model
copies far better than a bare definition (benchmarks/bench_constrained.py measures both prompts;
`style="envs"` is the earlier one). Under a grammar (`constrained`) the reply is the module's text
alone, starting with its `module` line; otherwise one ```races block.
"""

from __future__ import annotations

import re
from pathlib import Path

import attrs

from racesl.evolve.excerpt import EXCERPT
from racesl.sample.seeding import item_rng

RARE = 3  # the target shape is drawn from this many rarest shapes
SNIPPET_CHARS = 1800  # an example's helpers are left out when it would be longer
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


def env_source(checked, env) -> str:
    """The environment's text (decorators included) with the module's type declarations and
    helpers it names, in module order; the helpers are dropped when that is too long."""
    from racesl.syntax import ast as A

    cm = checked.modules[env.module]
    node = env.node
    own = cm.text[node.span.start:node.span.end]
    used = _words(own)
    types, helpers = [], []
    for it in cm.ast.items:
        if it is node or getattr(it, "name", None) not in used:
            continue
        if isinstance(it, A.TypeDecl):
            types.append(cm.text[it.span.start:it.span.end])
        elif isinstance(it, A.FuncDef) and not it.is_env:
            helpers.append(cm.text[it.span.start:it.span.end])
    parts = types + helpers + [own]
    if sum(len(p) for p in parts) > SNIPPET_CHARS:
        parts = types + [own]
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
                 style: str = "modules") -> Prompt:
    """The prompt for candidate `i` of `step` over the pool `checked` (racesl.check.Checked);
    `constrained`: the reply is decoded under the generation grammar (no fence)."""
    if style not in STYLES:
        raise ValueError(f"style is one of {STYLES}, not {style!r}")
    envs = sorted(checked.envs(), key=lambda e: e.qualname)
    if not envs:
        raise ValueError("the pool has no environments to show the generator")
    rng = item_rng(seed, "evolve", step, i)
    shapes = [s for s in inventory(envs) if s.name not in SKIP_SHAPES] or inventory(envs)
    target = rng.choice(shapes[:RARE])
    k = rng.choice((2, 3))
    near = sorted(set(target.producers) | set(target.consumers))
    chosen = rng.sample(near, min(k, len(near)))
    if len(chosen) < k:
        rest = [e.qualname for e in envs if e.qualname not in chosen]
        chosen += rng.sample(rest, min(k - len(chosen), len(rest)))
    by_name = {e.qualname: e for e in envs}
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
    return build_prompt(checked, int(getattr(gen_cfg, "seed", 0) or 0), step, slot, constrained=bool(want)).text
