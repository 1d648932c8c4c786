"""Where the fuel overhead goes: the stdlib bodies with parts of the instrumentation cut out.

A diagnostic beside `bench_fuel.py`, not a figure with a goal. It compiles the library's
instrumented module again with one part of the instrumentation removed from the emitted
code (UNSOUND: such a copy runs without that protection; it is only ever timed here, never
used), and times every variant beside the plain body in the same interleaved blocks as
`bench_fuel.py` (`measure_env`). Per variant: the median over environments of
variant / plain. A part whose removal barely moves the median costs little overall, however
often it appears.

Parts (each a pattern of the emitted code; see racesl/lower/instrument/ and docs/fuel.md):
  session  `if not _races_wd.depth: return _races_enter_slow(...)` at an entry's top
  meter    `_races_meter[0] = ...` before an entry returns
  ticks    `if not _races_f: raise FuelOut` / `_races_f -= 1` (while loops, slow copies)
  mul      the range tests around `*` and `**` of numbers (`x * y if -S < y < S else g(x, y)`)
  post     the size test after `+` (`t if type(t) not in SEQ or len(t) <= MAX else post(t)`)
  charges  the tests of charged-ahead builtins (`f(x) if (n := len(x)) <= MAX & ... else fail`)
  wrappers charged builtins that take the box (`_races_bi1_sum(box, x)` -> `sum(x)`)
  each     comprehension sources after the first (`_races_each(box, xs, ok)` -> `xs`)
  helpers  the fuel and depth test at a helper's top
  all      every part above at once

With `--fast-paths`, the variants are instead the library compiled without one fast path
each (`instrument(optimize=FAST_PATHS - {p})`: sound, the same steps, see
tests/lower/test_reference_meter.py): a path's *share* of the figure is the median without
it minus the median with everything. Environments whose functions (and callees) the path
does not change are not timed again: their ratio is the full one, so that noise does not
pass for a share. Reported per path: the functions it changes and its share.

    .venv/bin/python benchmarks/fuel_parts.py [--repeat 5] [--inputs 10] [--fast-paths]
"""

from __future__ import annotations

import ast
import time

from _common import figure, load_stdlib, median, write_result
from bench_fuel import FUEL, measure_env, parse_args, plain_namespace, sample_calls

PARTS = ("session", "meter", "ticks", "mul", "post", "charges", "wrappers", "each", "helpers")
_S = (1 << 30) - 1  # the bound of the `*` range tests


def _called(e, name_test) -> bool:
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and name_test(e.func.id)


class Cut(ast.NodeTransformer):
    """Removes the parts in `parts` from instrumented code (see the module docstring)."""

    def __init__(self, parts: frozenset[str]):
        self.parts = parts

    def visit_If(self, s):
        self.generic_visit(s)
        t = s.test
        first = s.body[0] if s.body else None
        if ("session" in self.parts and isinstance(t, ast.UnaryOp) and isinstance(t.operand, ast.Attribute)
                and getattr(t.operand.value, "id", "") == "_races_wd"):
            return None
        if ("ticks" in self.parts and isinstance(t, ast.UnaryOp) and getattr(t.operand, "id", "") == "_races_f"
                and isinstance(first, ast.Raise)):
            return None
        if ("helpers" in self.parts and isinstance(first, ast.Expr)
                and _called(first.value, lambda n: n == "_races_entry_fail")):
            return None
        return s

    def visit_AugAssign(self, s):
        if ("ticks" in self.parts and getattr(s.target, "id", "") == "_races_f"
                and isinstance(s.value, ast.Constant) and s.value.value == 1):
            return None
        return s

    def visit_Assign(self, s):
        self.generic_visit(s)
        t = s.targets[0]
        if "meter" in self.parts and isinstance(t, ast.Subscript) and getattr(t.value, "id", "") == "_races_meter":
            return None
        return s

    def visit_IfExp(self, e):
        self.generic_visit(e)
        t = e.test
        if ("mul" in self.parts and isinstance(t, ast.Compare) and isinstance(t.left, ast.Constant)
                and t.left.value == -_S):
            return e.body
        if "post" in self.parts and _called(e.orelse, lambda n: n == "_races_g_post"):
            return e.body
        if "charges" in self.parts and _called(e.orelse, lambda n: n == "_races_charge_fail"):
            return e.body
        return e

    def visit_Call(self, e):
        self.generic_visit(e)
        name = e.func.id if isinstance(e.func, ast.Name) else ""
        if "each" in self.parts and name == "_races_each":
            return e.args[1]
        if "wrappers" in self.parts and name.startswith("_races_bi1_"):
            return ast.Call(func=ast.Name(id="_races_" + name[len("_races_bi1_"):], ctx=ast.Load()),
                            args=e.args[1:], keywords=e.keywords)
        return e

    def _nonempty(self, s):
        self.generic_visit(s)
        s.body = s.body or [ast.Pass()]
        return s

    visit_While = visit_For = _nonempty


def variant(lib, parts: frozenset[str]):
    """The library's program with `parts` cut out (None for a variant that does not compile)."""
    from racesl.lower.instrument import instrument
    from racesl.runtime.execute import Program, compile_code

    tree = instrument(lib.module, int_params=lib.param_facts)
    tree = ast.fix_missing_locations(Cut(parts).visit(tree))
    try:
        return Program(compile_code(tree, "<races-cut>"), "<races-cut>")
    except Exception:  # a cut that leaves a name unbound at module level
        return None


def _normal(fn) -> str:
    """A function's emitted text, temporaries renumbered (the counter is module-wide)."""
    import re

    return re.sub(r"(_races_[a-z]+)\d+", r"\1#", ast.unparse(fn))


def _reach(module) -> dict[str, set[str]]:
    """Function name → the program functions it may call, itself included."""
    funcs = {f.name for f in module.body}
    calls = {f.name: {n.id for n in ast.walk(f) if isinstance(n, ast.Name) and n.id in funcs} for f in module.body}
    out = {}
    for f in funcs:
        seen, todo = {f}, [f]
        while todo:
            for g in calls[todo.pop()] - seen:
                seen.add(g)
                todo.append(g)
        out[f] = seen
    return out


def fast_path_variants(lib):
    """{path: (Program without it, names of the functions it changes)}."""
    from racesl.lower.instrument import FAST_PATHS, instrument
    from racesl.runtime.abi import ENTRY
    from racesl.runtime.execute import Program, compile_code

    full = instrument(lib.module, int_params=lib.param_facts)
    base: dict[str, list] = {}
    for f in full.body:
        base.setdefault(f.name.removeprefix(ENTRY), []).append(_normal(f))
    out = {}
    for p in sorted(FAST_PATHS):
        tree = instrument(lib.module, int_params=lib.param_facts, optimize=FAST_PATHS - {p})
        mine: dict[str, list] = {}
        for f in tree.body:
            mine.setdefault(f.name.removeprefix(ENTRY), []).append(_normal(f))
        changed = {k for k in base if base[k] != mine.get(k)}  # (a checked-argument variant: its own name)
        out[p] = (Program(compile_code(tree, f"<races-no-{p}>"), f"<races-no-{p}>"), changed)
    return out


def main_fast_paths(args, started) -> None:
    from racesl.runtime.watchdog import WATCHDOG

    lib = load_stdlib()
    ns = plain_namespace(lib)
    variants = fast_path_variants(lib)
    reach = _reach(lib.module)
    ratios: dict[str, dict[str, float]] = {"full": {}, **{p: {} for p in variants}}
    with WATCHDOG.session():
        for q, env in sorted(lib.envs.items()):
            plain = ns[env.pyname]
            full = lib.program.function(env.pyname, fuel=FUEL)
            calls, mutates, _ = sample_calls(lib, env, plain, full, args.inputs, args.seed)
            if len(calls) < 3:
                continue
            touched = [p for p, (_, changed) in variants.items() if reach[env.pyname] & changed]
            runs = [variants[p][0].function(env.pyname, fuel=FUEL) for p in touched]
            ok = [p for p, r in zip(touched, runs) if all(_same(r, plain, a, mutates) for a in calls)]
            runs = [r for p, r in zip(touched, runs) if p in ok]
            (t0, tf, *times), _ = measure_env(plain, [full, *runs], calls, mutates, args.repeat, args.block)
            ratios["full"][q] = tf / t0
            for p in variants:
                ratios[p][q] = tf / t0
            for p, t in zip(ok, times):
                ratios[p][q] = t / t0
    full_median = median(ratios["full"].values())
    rows = {p: {"functions_changed": len(variants[p][1]),
                "envs_touched": sum(1 for q in ratios["full"] if ratios[p][q] != ratios["full"][q]),
                "median_without": round(median(ratios[p].values()), 4),
                "share": round(median(ratios[p].values()) - full_median, 4)} for p in variants}
    figures = [figure("fuel overhead, median, every fast path (this run)", round(full_median, 3), "x")]
    figures += [figure(f"share of the fast path {p} (median without it - median with all; "
                       f"{r['functions_changed']} functions changed)", r["share"], "x") for p, r in rows.items()]
    path = write_result("fuel_fast_paths", figures, {"fuel": FUEL, "repeat": args.repeat, "rows": rows,
                                                     "ratios": ratios}, started)
    print(f"fuel overhead with every fast path {full_median:.3f}x; share of each (functions changed): " + ", ".join(
        f"{p} {r['share']:+.4f}x ({r['functions_changed']})" for p, r in sorted(rows.items(), key=lambda x: -x[1]["share"]))
        + f"  [{time.perf_counter() - started:.0f}s] -> {path.name}")


def main() -> None:
    import sys

    fast = "--fast-paths" in sys.argv
    if fast:
        sys.argv.remove("--fast-paths")
    args = parse_args(__doc__, repeat=5, inputs=10, block=0.002)
    started = time.perf_counter()
    if fast:
        return main_fast_paths(args, started)

    from racesl.runtime.watchdog import WATCHDOG

    lib = load_stdlib()
    ns = plain_namespace(lib)
    names = ("full", *PARTS, "all")
    programs = {"full": lib.program}
    for name in (*PARTS, "all"):
        programs[name] = variant(lib, frozenset(PARTS if name == "all" else (name,)))
    ratios: dict[str, dict[str, float]] = {n: {} for n in names}
    measured, dropped_envs = 0, []
    with WATCHDOG.session():
        for q, env in sorted(lib.envs.items()):
            plain = ns[env.pyname]
            runs = {n: programs[n].function(env.pyname, fuel=FUEL) for n in names}
            calls, mutates, _ = sample_calls(lib, env, plain, runs["full"], args.inputs, args.seed)
            if len(calls) < 3:
                dropped_envs.append(q)
                continue
            # a cut copy must still compute what the plain body computes on these inputs
            ok = {n for n in names if all(_same(runs[n], plain, a, mutates) for a in calls)}
            if "full" not in ok:
                dropped_envs.append(q)
                continue
            order = [n for n in names if n in ok]
            (p, *times), _ = measure_env(plain, [runs[n] for n in order], calls, mutates, args.repeat, args.block)
            measured += 1
            for n, t in zip(order, times):
                ratios[n][q] = t / p
    # a variant is compared with the full instrumentation on the environments it ran right
    rows = {n: {"envs": len(r), "median": median(r.values()),
                "full_same_envs": median(ratios["full"][q] for q in r)} for n, r in ratios.items() if r}
    figures = [figure("fuel overhead, median, full instrumentation (this run)", round(rows["full"]["median"], 3), "x")]
    figures += [figure(f"fuel overhead, median, without {n} (full on the same {rows[n]['envs']} envs: "
                       f"{rows[n]['full_same_envs']:.2f}x)", round(rows[n]["median"], 3), "x")
                for n in (*PARTS, "all") if n in rows]
    details = {"fuel": FUEL, "repeat": args.repeat, "inputs_per_env": args.inputs, "envs_measured": measured,
               "envs_dropped": dropped_envs, "variants": rows, "ratios": ratios}
    path = write_result("fuel_parts", figures, details, started)
    print("fuel parts, median instrumented / plain (full on the same envs): " + ", ".join(
        f"{n} {r['median']:.3f}x ({r['full_same_envs']:.3f}x, {r['envs']})" for n, r in rows.items())
        + f"  [{time.perf_counter() - started:.0f}s] -> {path.name}")


def _same(run, plain, args, mutates) -> bool:
    import copy

    from racesl.runtime.limits import Cutoff

    try:
        a, b = (copy.deepcopy(args), copy.deepcopy(args)) if mutates else (args, args)
        x, y = run(*a), plain(*b)
    except (Exception, Cutoff):
        return False
    return x == y and type(x) is type(y)


if __name__ == "__main__":
    main()
