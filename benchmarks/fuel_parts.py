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

    .venv/bin/python benchmarks/fuel_parts.py [--repeat 5] [--inputs 10]
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


def main() -> None:
    args = parse_args(__doc__, repeat=5, inputs=10, block=0.002)
    started = time.perf_counter()

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
