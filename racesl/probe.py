"""The sampling probe of `racesc check` (and of the language server on save): sample an
environment's inputs, run each twice, and report what only running shows.

    counts, diags, elapsed = probe_env(lib, env, samples, seed, max_level=2)  # E600–E604, E610–E612, W600, W603, W604
    probe = SeedProbe(lib, set_builders(lib, envs))              # E601 under other hash seeds

Levels 0..max_level are sampled (a compile's `max_level`, which `racesc check` reads from
the project's races.toml): a check that samples only some of the levels a compile draws
is not a check of what the compile writes.

`lib` is a `racesl.library.Library` (or anything with its sampling and running methods): the
probe executes lowered code, so it sits above racesl.library, which itself draws through
racesl.sample's samplers.
"""

from __future__ import annotations

import time
from collections import Counter

from racesl.diagnostics import Diagnostic, Severity
from racesl.runtime import grades as V
from racesl.text import plural

DROP_REASONS = ("assert", "fuel", "timeout", "size", "recursion", "error")


DEFAULT_MAX_LEVEL = 2  # racesl.search.config.CompileConfig.max_level's default


def _level(i: int, n: int, max_level: int = DEFAULT_MAX_LEVEL) -> int:
    """The level of sample i of n: levels 0..max_level in equal runs, so that every level a
    compile may draw (`max_level` in races.toml) is sampled when n > max_level."""
    return min(max_level, i * (max_level + 1) // max(n, 1))


TIMEOUTS_TO_STOP = 3  # wall-clock cut-offs after which an environment's probe stops


def probe_env(lib, env, samples: int, seed: int, runner=None,
              seeds: "SeedProbe | None" = None, on_run=None,
              max_level: int = DEFAULT_MAX_LEVEL) -> tuple[Counter, list[Diagnostic], float]:
    """Sample an environment's inputs at levels 0..`max_level` (the compile's), run each
    twice, check contracts and laws; with `seeds`, also hand each run (a generator's draw)
    to it, to be run again under other hash seeds; with `on_run`, call
    `on_run(x, settings, run)` with each sampled input's first run (the admission gates
    keep them)."""
    from racesl.runtime.contract import canonical
    from racesl.sample.default import NoSample
    from racesl.sample.seeding import item_rng

    runner = runner or lib.run
    if env.generate is not None:
        return probe_generator(lib, env, samples, seed, runner, on_run, seeds, max_level)
    diags: list[Diagnostic] = []
    counts: Counter = Counter()
    sample_fail = None  # (parameter, its type, NoSample's reason) of the first failure
    causes: Counter = Counter()  # (NoSample's cause, parameter) -> draws (W600 names the first)
    out_of_type: dict[str, tuple] = {}  # parameter -> (its type, the first reason) of a sampler's value outside it
    contract_reported = det_reported = law_reported = False
    timeouts = 0  # runs cut off by the wall clock: after TIMEOUTS_TO_STOP, the rest are not run
    t0 = time.perf_counter()

    def diag(code: str, msg: str, hint: str | None = None, sev=Severity.ERROR) -> None:
        diags.append(Diagnostic(code, msg, env.span, env.path, sev, hint))

    params = [(env.input_name, env.input)] + [(s.name, s.type) for s in env.settings]

    for i in range(samples):
        if timeouts >= TIMEOUTS_TO_STOP:
            counts["timeout"] += samples - i  # (each would cost its wall limit again)
            break
        rng = item_rng(seed, env.qualname, i)
        level = _level(i, samples, max_level)
        try:  # (what lib.sample_input and lib.sample_settings draw, one parameter at a time)
            drawn = []
            for name, t in params:
                drawn.append(lib.sample_param(env, name, t, rng, level))
        except NoSample as e:
            counts["no sample"] += 1
            sample_fail = sample_fail or (name, t, str(e))
            causes[(e.cause, name)] += 1
            if e.cause == "outside":
                out_of_type.setdefault(name, (t, str(e)))
            continue
        x, st = drawn[0], tuple(drawn[1:])
        r1 = runner(env, x, st)
        r2 = r1 if r1.status == "timeout" else runner(env, x, st)
        timeouts += r1.status == "timeout"
        shown = f"{env.name}({', '.join(canonical(v) for v in (x,) + st)})"
        if ((r1.status, canonical(r1.value)) != (r2.status, canonical(r2.value)) and not det_reported
                and "timeout" not in (r1.status, r2.status)):  # (a wall clock, not the body)
            det_reported = True
            diag("E601", f"{shown} gave {canonical(r1.value) if r1.ok else '!' + r1.status} once and "
                 f"{canonical(r2.value) if r2.ok else '!' + r2.status} the next time",
                 "environments must be deterministic: avoid iterating over sets, sort first")
        counts[r1.status] += 1
        if on_run is not None:
            on_run(x, st, r1)
        if seeds is not None and not det_reported:
            seeds.add(env, x, st, r1)
        if r1.status == "contract" and not contract_reported:
            contract_reported = True
            diag("E600", f"{shown} returned {canonical(r1.value)}, outside {env.output}: {r1.detail}",
                 "fix the body, or widen the declared return type")
        if r1.ok and env.laws and not law_reported:
            y = r1.value
            # the body runs only on values of its input type (the entry trusts it): f(x)
            # outside it cannot be applied again, and the law fails
            outside = lib.conforms(y, env.input)
            again = runner(env, y, st) if outside is None else None
            for law in env.laws:
                want = y if law == "idempotent" else x
                if again is None or not again.ok or canonical(again.value) != canonical(want):
                    law_reported = True
                    got = (f"outside the input type {env.input}: {outside}" if again is None
                           else canonical(again.value) if again.ok else "!" + again.status)
                    rule = f"{env.name}({env.name}(x)) == {'{}(x)'.format(env.name) if law == 'idempotent' else 'x'}"
                    diag("E603", f"law {law} fails: {rule} is false for x = {canonical(x)} "
                         f"({env.name}(x) = {canonical(y)}, applied again: {got})",
                         f"remove @laws({law}) or fix the body")
                    break
    elapsed = time.perf_counter() - t0
    from racesl.catalogue.diagnose import example_diagnostics

    diags += example_diagnostics(lib, [env], runner)  # its description's worked examples: E604, W603
    if counts["no sample"] == samples:
        diag("E602", *_no_sample(lib, env, *sample_fail, seed))
    else:
        for param, (t, reason) in out_of_type.items():  # a sampler's value outside its type: E602 on any draw
            diag("E602", *_outside(lib, env, param, t, reason, causes[("outside", param)], samples))
        text, hint = _dominant(lib, env, counts, causes, samples)
        if counts["ok"] < samples / 2 and samples >= 4 and hint is not None:
            stopped = (f"; stopped after {TIMEOUTS_TO_STOP} timeouts, the rest not run"
                       if timeouts >= TIMEOUTS_TO_STOP else "")
            diag("W600", f"'{env.name}' succeeds on only {counts['ok']} of {samples} sampled inputs: "
                 f"{text}{stopped}", hint, Severity.WARNING)
    return counts, diags, elapsed


# why a run was dropped, in words (W600 names the most frequent cause and its count)
_RUN_DROPS = {
    "assert": "an assert failed", "fuel": "the body ran out of fuel",
    "timeout": "the body ran past its wall-clock limit", "size": "a value grew past the size bound",
    "recursion": "helper calls nested too deep", "error": "the body raised an error",
    "contract": "the body returned a value outside its return type",
}
# why a draw gave no input (NoSample's cause), in words; {s}: the sampler, {p}: the parameter
_DRAW_FAILS = {
    "draw": "no value of the type of '{p}' was found", "fuel": "the sampler {s} ran out of fuel",
    "timeout": "the sampler {s} ran past its wall-clock limit",
    "size": "the sampler {s} returned a value too large to use",
    "outside": "the sampler {s} returned a value outside the type of '{p}'",
}
_RUN_HINT = "narrow the input refinement or add a sampler so sampled inputs are in the domain"


def _dominant(lib, env, counts: Counter, causes: Counter, samples: int) -> tuple[str, str | None]:
    """W600's cause and hint: the most frequent reason a sampled input gave no value, a run's
    drop or a draw's failure, with its count ("the sampler pick ran out of fuel on 25 of 50
    draws"), never the bare "no sample" that hides which. Hint None: out-of-type values,
    which E602 reports."""
    runs = [(counts[r], r, None) for r in DROP_REASONS + ("contract",) if counts[r]]
    draws = [(n, cause, param) for (cause, param), n in causes.items()]
    n, cause, param = max(runs + draws, key=lambda c: c[0], default=(0, "assert", None))
    if param is None:
        return f"{_RUN_DROPS[cause]} on {n} of {samples} runs", _RUN_HINT
    helper = dict(env.samplers).get(param)
    sig = _helper(lib, helper) if helper else None
    who = sig.name if sig is not None else (helper or "").split("__")[-1]
    text = _DRAW_FAILS.get(cause, "the sampler {s} stopped (" + cause + ")").format(s=who, p=param)
    if cause == "outside":
        return text, None
    if cause == "draw":
        return (f"{text} on {n} of {samples} draws",
                f"the refinement of '{param}' rejects most candidates: add @sample({param}=helper)")
    if cause in ("fuel", "timeout"):
        return (f"{text} on {n} of {samples} draws",
                f"bound the loops of '{who}' (by `level`, say), or declare the budget it needs with @fuel(N)")
    return f"{text} on {n} of {samples} draws", f"fix the sampler '{who}': it stops before returning a value"


def _outside(lib, env, param: str, t, reason: str, n: int, samples: int) -> tuple[str, str]:
    """E602 for a sampler that returned a value outside its parameter's type on some draws
    (docs/language.md §3.4: the sampled value must belong to the type)."""
    helper = dict(env.samplers).get(param)
    sig = _helper(lib, helper) if helper else None
    who = sig.name if sig is not None else (helper or "").split("__")[-1]
    shown, _, why = reason.removeprefix("sampler returned ").partition(f", outside {t}: ")
    first = why if why.startswith(shown) else f"{shown}: {why}"
    return (f"sampler {who} for '{param}' of '{env.name}' returned a value outside {t} on {n} of "
            f"{samples} draws (the first: {first})",
            f"make '{who}' return only values of '{param}' (its refinement included); out-of-type "
            "values are dropped, and the inputs left are not the ones it means to draw")


def _no_sample(lib, env, param: str, t, reason: str, seed: int) -> tuple[str, str]:
    """The message and hint of E602: no sampled input at all. `reason` is the first
    NoSample's; the cause is looked for again here (this runs once, on failure only): the
    parameter's @sample helper ran out of fuel, stopped, or returned values outside the
    parameter's type; or, without a helper, checking a refinement ran out of fuel."""
    from racesl.library import AUX_FUEL, AUX_WALL
    from racesl.runtime.contract import canonical
    from racesl.runtime.execute import Outcome
    from racesl.sample.seeding import item_rng

    head = f"could not sample inputs for '{env.name}'"
    helper = dict(env.samplers).get(param)
    if helper is None:
        fuel = _refinement_fuel(lib, t, item_rng(seed, env.qualname, "no sample"))
        if fuel is not None and fuel[1] == "timeout":
            return (f"{head}: checking the refinement `{fuel[0]}` of '{param}' ran past its "
                    f"wall-clock limit ({AUX_WALL:g} s)",
                    f"each refinement check gets {AUX_WALL:g} s: make `{fuel[0]}` cheaper, "
                    "or check the condition in the body instead")
        if fuel is not None:
            return (f"{head}: checking the refinement `{fuel[0]}` of '{param}' ran out of fuel "
                    f"(a budget of {plural(AUX_FUEL, 'step')}) on every value tried",
                    f"each refinement check gets {plural(AUX_FUEL, 'step')}: make `{fuel[0]}` cheaper "
                    "(bound its loops), or check the condition in the body instead")
        return (f"{head}: {reason}",
                f"the refinement may be unsatisfiable or too narrow; add @sample({param}=helper)")
    sig = _helper(lib, helper)
    name = sig.name if sig is not None else helper.split("__")[-1]
    # (through the library: its limits, its strikes, its worker processes under --untrusted)
    status, value, _ = lib.aux_call(helper, (0,), item_rng(seed, env.qualname, "no sample"))
    out = Outcome(value, status)
    if out.status == "fuel":
        budget = lib.limits(helper, AUX_FUEL)[0]  # (its @fuel, where it has one)
        return (f"{head}: sampler {name} for '{param}' ran out of fuel "
                f"(a budget of {plural(budget, 'step')} a call)",
                f"a sampler gets {plural(budget, 'step')} a call: bound the loops of '{name}' "
                f"(by `level`, say), draw directly with rng.randint or rng.choice, or declare the "
                f"budget it needs with @fuel(N) on '{name}'")
    if out.status != "ok":
        return f"{head}: {reason}", f"fix the sampler '{name}': it stops ({out.status}) before returning a value"
    why = lib.conforms(out.value, t)
    if why is None:  # (it returned a good value this time: say what the sampling saw)
        return f"{head}: {reason}", f"the sampler '{name}' for '{param}' rarely returns a value of {t}"
    from racesl.types import types as T

    declared = sig.returns if sig is not None else None
    if declared is not None and T.erase(declared) != T.erase(t):
        hint = (f"the sampler '{name}' is declared to return {declared} (it returned {canonical(out.value)}), "
                f"but '{param}' is {t}: make '{name}' return values of the parameter's type")
    else:
        hint = (f"the sampler '{name}' returned {canonical(out.value)}, which is not in {t}: "
                f"make '{name}' return only values of '{param}' (its refinement included)")
    return f"{head}: {reason}", hint


def _helper(lib, pyname: str):
    for cm in lib.checked.modules.values():
        for sig in cm.helpers.values():
            if sig.pyname == pyname:
                return sig
    return None


def _refinement_fuel(lib, t, rng) -> tuple[str, str] | None:
    """Draw a value of `t` once more, checking each predicate directly: (the text of a
    predicate that ran out of fuel or time on a candidate, "fuel" or "timeout") — the
    library's check counts that as false, so the sampler saw only rejections — or None."""
    from racesl.sample.default import NoSample, sampler_for

    cut: list[tuple[str, str]] = []

    def check(pred, value) -> bool:
        if (pred.module, pred.text) not in lib.preds:
            return False
        ok, status = lib.pred_verdict(pred, value)  # (a refinement that keeps timing out stops at once)
        if status in ("fuel", "timeout") and not cut:
            cut.append((pred.shown, status))
        return ok

    try:
        sampler_for(t).draw(rng, 0, check)
    except (NoSample, Exception):
        pass
    return cut[0] if cut else None



# ---------------------------------------------------------------- other hash seeds (E601)
#
# The order in which CPython iterates a set of strings depends on the process's hash seed.
# The checker refuses what it can see (racesl.check.body, ORDER_MESSAGES); what it cannot —
# a set handed to an untyped helper, say — shows up only when the same inputs are run in
# processes with other seeds. Only environments whose body, or a function it reaches, builds
# a set at all (`set_builders`) pay for that: their sampled runs are sent to two fresh
# interpreters (not forked workers, which inherit this process's seed) started with
# PYTHONHASHSEED set, before the sampling, so that they start while it runs. A generator
# environment whose helper reaches a set is probed the same way on its draws: each pair
# drawn here (at every level) is drawn again there from the same seeded rng (`add_draw`).

HASH_SEEDS = ("1", "2", "3")  # the children take the first two that differ from ours
_SET_OPS = frozenset({"|", "&", "^", "-"})
_INCOMPARABLE = frozenset({"timeout", "size"})  # a wall clock or a render bound, not the body
_CHILD = """
import json, marshal, pickle, sys
from racesl.runtime.contract import canonical
from racesl.runtime.execute import Program
from racesl.runtime.watchdog import WATCHDOG
code, memory_mb, budgets = pickle.load(sys.stdin.buffer)  # sent at once, loaded while the parent samples
prog = Program(marshal.loads(code), "<races>", budgets=budgets)
if memory_mb:
    from racesl.runtime.children import limit_memory
    limit_memory(memory_mb)
calls, wall = pickle.load(sys.stdin.buffer)  # sent when the sampling is done
out = []
with WATCHDOG.session():
    for name, args, seed, fuel in calls:  # seed: a generator's draw, from random.Random(seed)
        rng = None
        if seed is not None:
            import random
            from racesl.runtime.builtins import rng_over
            rng = rng_over(random.Random(seed))
        o = prog.call(name, args, fuel=fuel, wall=wall, rng=rng)
        out.append([o.status, canonical(o.value) if o.status == "ok" else None])
sys.stdout.write(json.dumps(out))
sys.stdout.flush()
import os
os._exit(0)  # no interpreter shutdown (tens of ms, and the parent waits for it)
"""


def _builds_set(fn) -> bool:
    """Does this function's body build a set: `set(...)`, `{a, b}`, `{x for ...}`, or a set
    operator on a dict's `keys()`/`items()`?"""
    from racesl.syntax import ast as A

    for stmt in fn.body:
        for n in A.walk(stmt):
            if isinstance(n, A.SetExpr) or (isinstance(n, A.Comprehension) and n.kind == "set"):
                return True
            if isinstance(n, A.Call) and isinstance(n.func, A.Name) and n.func.id in ("set", "frozenset"):
                return True
            if isinstance(n, A.BinOp) and n.op in _SET_OPS and any(
                    isinstance(o, A.Call) and isinstance(o.func, A.Attribute) and o.func.attr in ("keys", "items")
                    for o in (n.left, n.right)):
                return True
    return False


def set_builders(lib, envs) -> list:
    """The environments of `envs` whose body, or a helper or environment it names (at any
    depth), builds a set; and the generator environments whose helper does."""
    from racesl.syntax import ast as A

    builds: set[str] = set()  # pynames of the functions that build a set themselves
    callers: dict[str, set[str]] = {}  # pyname → the functions that name it
    for cm in lib.checked.modules.values():
        for sig in (*cm.envs.values(), *cm.helpers.values()):
            if _builds_set(sig.node):
                builds.add(sig.pyname)
            for stmt in sig.node.body:
                for n in A.walk(stmt):
                    callee = cm.resolved.get(id(n)) if isinstance(n, (A.Name, A.Attribute)) else None
                    if callee is not None:
                        callers.setdefault(callee, set()).add(sig.pyname)
    reach, stack = set(builds), list(builds)
    while stack:
        for c in callers.get(stack.pop(), ()):
            if c not in reach:
                reach.add(c)
                stack.append(c)
    return [e for e in envs if e.pyname in reach or (e.generate is not None and e.generate in reach)]


def _program_code(lib, envs) -> bytes:
    """The instrumented code of just the lowered functions these environments reach, marshalled
    (the children run this same interpreter): what `Library.program` runs, cut to size."""
    import ast as py
    import marshal

    from racesl.lower.program import instrumented_code

    defs = {fn.name: fn for fn in lib.module.body if isinstance(fn, py.FunctionDef)}
    keep, stack = set(), [e.pyname for e in envs] + [e.generate for e in envs if e.generate is not None]
    while stack:
        name = stack.pop()
        if name in keep or name not in defs:
            continue
        keep.add(name)
        stack.extend(n.id for n in py.walk(defs[name]) if isinstance(n, py.Name) and n.id in defs)
    body = [fn for fn in lib.module.body if getattr(fn, "name", None) in keep]
    module = py.fix_missing_locations(py.Module(body=body, type_ignores=[]))
    return marshal.dumps(instrumented_code(module, "<races>",
                                           int_params={k: v for k, v in lib.param_facts.items() if k in keep}))


class SeedProbe:
    """Sampled runs of some environments, run again in two interpreters with other hash seeds.

        probe = SeedProbe(lib, set_builders(lib, envs))   # starts the interpreters
        ... probe_env(lib, env, n, seed, seeds=probe) ...  # records this process's runs
        diags = probe.finish()                            # E601 where the outputs differ

    A generator environment's draws (`add_draw`, by `probe_generator`; or `draws`, which
    draws them here) are drawn again there from the same seeded rng, at the same level.
    """

    def __init__(self, lib, envs, *, fuel: int = 400, wall: float = 2.0, memory_mb: int = 0):
        import os
        import pickle
        import subprocess
        import sys
        import threading

        self.lib, self.envs = lib, {e.qualname: e for e in envs}
        self.fuel, self.wall, self.memory_mb = fuel, wall, memory_mb
        # this process's calls: (env, (function, args, rng seed or None, fuel), what it shows, status, text)
        self.runs: list[tuple] = []
        self.ours = os.environ.get("PYTHONHASHSEED")
        self.seeds = [s for s in HASH_SEEDS if s != self.ours][:2]
        self.children = []
        if not self.envs:
            return
        code = _program_code(lib, envs)
        for s in self.seeds:
            env = dict(os.environ, PYTHONHASHSEED=s)
            # the child imports exactly what we would: our sys.path, set before any import
            # (so not the current directory that `-c` puts first)
            script = (f"import sys\nsys.path[:] = {sys.path!r}\n"  # and it dies with us:
                      f"from racesl.runtime.children import die_with_parent\ndie_with_parent({os.getpid()})\n{_CHILD}")
            self.children.append(subprocess.Popen(
                [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, env=env))
        first = pickle.dumps((code, memory_mb, lib.budgets), protocol=pickle.HIGHEST_PROTOCOL)
        # (a thread: code bigger than a pipe's buffer would wait for the child to start)
        self._sending = threading.Thread(target=self._send, args=(first,), daemon=True)
        self._sending.start()

    def _send(self, data: bytes) -> None:
        for p in self.children:
            try:
                p.stdin.write(data)
                p.stdin.flush()
            except (OSError, ValueError):
                pass  # the child is gone: finish() reports it

    def add(self, env, x, settings: tuple, run) -> None:
        """A run of `env`'s body on (x, settings) in this process (not of a generator
        environment: its `run` holds the drawn answer, see `add_draw`)."""
        if env.qualname not in self.envs or run.status in _INCOMPARABLE or env.generate is not None:
            return
        from racesl.runtime.contract import canonical

        status = "ok" if run.status == "contract" else run.status  # the children see values only
        call = f"{env.name}({', '.join(canonical(v) for v in (x, *settings))})"
        self.runs.append((env, (env.pyname, (x, *settings), None, self.fuel), call, status,
                          canonical(run.value) if status == "ok" else None))

    def add_draw(self, env, key: tuple, level: int, pair) -> None:
        """A pair that `env`'s generator drew in this process from `item_rng(*key)` at
        `level` (racesl.library.Library.draw), to be drawn again under other hash seeds."""
        if env.qualname not in self.envs or env.generate is None:
            return
        from racesl.library import AUX_FUEL
        from racesl.runtime.contract import canonical
        from racesl.sample.seeding import derive_seed

        name = env.generate.split("__")[-1]
        self.runs.append((env, (env.generate, (level,), derive_seed(*key), AUX_FUEL),
                          f"the generator {name} of '{env.name}' at level {level}", "ok", canonical(tuple(pair))))

    def draws(self, env, seed: int, samples: int, max_level: int = DEFAULT_MAX_LEVEL) -> None:
        """Draw `env`'s pairs here as `probe_generator` does (the same seeds and levels) and
        add each (`add_draw`): for a caller that kept no draws of its own (admit's gate)."""
        from racesl.sample.default import NoSample
        from racesl.sample.seeding import item_rng

        if env.qualname not in self.envs or env.generate is None:
            return
        n = generator_draws(samples, max_level)
        for i in range(n):
            level = _level(i, n, max_level)
            try:
                pair = self.lib.draw_instance(env, item_rng(seed, env.qualname, i), level)
                pair = pair if env.latent is not None else pair[:2]  # (what the helper returned)
            except NoSample:
                continue  # (the sample gate reports a draw that fails: E610)
            self.add_draw(env, (seed, env.qualname, i), level, pair)

    def _talk(self, proc, payload: bytes, timeout: float):
        import subprocess

        try:
            out, err = proc.communicate(payload, timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return f"no answer after {timeout:.0f} s"
        if proc.returncode != 0:
            tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit code {proc.returncode}"]
            return f"exit code {proc.returncode}: {tail[0]}"
        import json

        try:
            return json.loads(out)
        except ValueError:
            return "unreadable answer"

    def finish(self) -> list[Diagnostic]:
        """Send the recorded runs, compare the answers, and report one E601 per environment."""
        import pickle
        from concurrent.futures import ThreadPoolExecutor

        if not self.children:
            return []
        calls = [call for _, call, _, _, _ in self.runs]
        payload = pickle.dumps((calls, self.wall), protocol=pickle.HIGHEST_PROTOCOL)
        self._sending.join()
        # a backstop: every call has its wall limit (grown with an environment's @fuel)
        timeout = 60 + sum(self.lib.limits(name, fuel, self.wall)[1] for name, _, _, fuel in calls)
        with ThreadPoolExecutor(len(self.children)) as pool:
            answers = list(pool.map(lambda p: self._talk(p, payload, timeout), self.children))
        self.children = []
        diags: list[Diagnostic] = []
        first = next(iter(self.envs.values()))
        for seed, a in zip(self.seeds, answers):
            if isinstance(a, str) or len(a) != len(calls):
                n = len(self.envs)
                why = a if isinstance(a, str) else "answers missing"
                diags.append(Diagnostic(
                    "E601", f"could not run the {plural(n, 'environment')} that {'builds' if n == 1 else 'build'} sets "
                    f"under PYTHONHASHSEED={seed} to compare: {why}", first.span, first.path, Severity.ERROR,
                    "rerun `racesc check`; if this persists, report it as a racesl bug"))
                return diags
        reported: set[str] = set()
        for k, (env, call_, call, status, text) in enumerate(self.runs):
            if env.qualname in reported:
                continue
            shown = [("in this process", (status, text))] + [
                (f"with PYTHONHASHSEED={seed}", tuple(a[k])) for seed, a in zip(self.seeds, answers)]
            got = [(where, r) for where, r in shown if r[0] not in _INCOMPARABLE]
            diff = next(((a, b) for a in got for b in got if a[1] != b[1]), None)
            if diff is None:
                continue
            reported.add(env.qualname)
            (w1, r1), (w2, r2) = diff
            drew = call_[2] is not None  # a generator's draw
            diags.append(Diagnostic(
                "E601", f"{call} {'drew' if drew else 'gave'} {_shown(r1)} {w1} and {_shown(r2)} {w2}",
                env.span, env.path, Severity.ERROR,
                "the order of a set of strings changes from one Python process to the next: "
                "sort first, sorted(set(s))" + (" (a compile draws different tasks under each)" if drew else "")))
        return diags

    def close(self) -> None:
        for p in self.children:
            p.kill()
            p.communicate()
        self.children = []


def _shown(r: tuple) -> str:
    status, text = r
    return text if status == "ok" else "!" + status


# ---------------------------------------------------------------- generator environments
#
# A generator environment (`@generate(helper)`: racesl.check.generators) has no input to
# sample: its helper draws the input and the answer together. The probe draws each pair
# twice from the same seed (E611 when they differ), checks both against the environment's
# types, refinements included (E610 for any draw that fails or leaves them), and where the
# environment has a body or a @verify checker, that they agree with the drawn answer (E612).
# It draws at every level the compile may draw (0..max_level): a helper that is right at
# levels 0-2 and wrong from 3 on is caught where a compile with `max_level = 6` would use it.
# With a SeedProbe, each draw is drawn again under other hash seeds (E601).


def generator_draws(samples: int, max_level: int) -> int:
    """How many pairs the probe draws: `samples`, and at least one per level."""
    return max(samples, max_level + 1)


def generator_failed(lib, env, name: str, failed: list, n: int) -> Diagnostic:
    """E610 for the draws of generator `name` (`env`'s) that gave no instance (`failed`: their
    NoSample, of `n` draws), naming the real cause of the first: the helper ran out of steps
    or time (its budget named, and @fuel's cap for a generator); a refinement check of what it
    drew was cut off (`RefinementCut`: located at the refinement, with the budget the check
    had — cut off is not false, the draw may be right); else what it drew is outside the
    environment's types."""
    from racesl.library import AUX_FUEL, CUT_WORDS, RefinementCut
    from racesl.runtime.limits import FUEL_CAP, GENERATOR_FUEL_CAP

    head = f"generator {name} of '{env.name}' failed on {len(failed)} of {n} draws"
    cuts = [e for e in failed if isinstance(e, RefinementCut)]
    if cuts:
        e = cuts[0]
        p = e.pred
        fn = lib.preds.get((p.module, p.text))
        steps = lib.limits(fn, AUX_FUEL)[0] if fn is not None else AUX_FUEL
        words = CUT_WORDS.get(e.status, "was stopped: " + e.status)
        if e.status == "fuel":
            hint = (f"the check had {plural(steps, 'step')}: raise @fuel(...) on the helper the refinement "
                    f"calls (at most {FUEL_CAP:,}), or write the condition as such a helper (`where valid(it)` "
                    f"with @fuel(N) on `def valid`; a condition written in place gets {plural(AUX_FUEL, 'step')}), "
                    "or make it cheaper")
        else:
            hint = "make the refinement's check cheaper, or check the condition in the generator instead"
        span, path = (p.span, p.path) if p.path else (env.span, env.path)
        drawn = e.drawn if len(e.drawn) <= 80 else e.drawn[:79] + "…"
        return Diagnostic("E610", f"{head}: the refinement check `{p.shown}` {words} on {len(cuts)} of them "
                          f"(first: on the {drawn}), which counts as false, not as a violation",
                          span, path, Severity.ERROR, hint)
    e = failed[0]
    steps, wall = lib.limits(env.generate, AUX_FUEL)
    if e.cause == "fuel":
        hint = (f"{name} had {plural(steps, 'step')} a draw: raise @fuel(...) on '{name}' (at most "
                f"{GENERATOR_FUEL_CAP:,} for a @generate helper), or bound its loops by `level`")
    elif e.cause == "timeout":
        hint = (f"{name} had {wall:g} s a draw (a draw gets 30 s at most, whatever its @fuel): make it "
                "cheaper, e.g. bound its search by `level`")
    else:
        hint = (f"{name} must return (input, answer) with the input in {env.input} and the answer in "
                f"{env.output}, refinements included")
    return Diagnostic("E610", f"{head} (first: {e})", env.span, env.path, Severity.ERROR, hint)


def probe_generator(lib, env, samples: int, seed: int, runner=None, on_run=None,
                    seeds: "SeedProbe | None" = None,
                    max_level: int = DEFAULT_MAX_LEVEL) -> tuple[Counter, list[Diagnostic], float]:
    """`probe_env` for a generator environment (same results)."""
    from racesl.library import Run
    from racesl.runtime.contract import canonical
    from racesl.sample.default import NoSample
    from racesl.sample.seeding import item_rng

    runner = runner or lib.run
    diags: list[Diagnostic] = []
    counts: Counter = Counter()
    failed: list[NoSample] = []
    reported: set[str] = set()
    name = env.generate.split("__")[-1]
    has_body = bool(env.node.body)
    t0 = time.perf_counter()

    def diag(code: str, msg: str, hint: str | None = None) -> None:
        if code not in reported:
            reported.add(code)
            diags.append(Diagnostic(code, msg, env.span, env.path, Severity.ERROR, hint))

    n = generator_draws(samples, max_level)
    for i in range(n):
        level = _level(i, n, max_level)
        try:
            rng = item_rng(seed, env.qualname, i)
            x, o, latent = lib.draw_instance(env, rng, level)
            st = lib.sample_settings(env, rng, level)
            again = lib.draw_instance(env, item_rng(seed, env.qualname, i), level)
        except NoSample as e:
            counts["no sample"] += 1
            failed.append(e)
            continue
        pair = (canonical(x), canonical(o))
        if (canonical(again[0]), canonical(again[1])) != pair or canonical(again[2]) != canonical(latent):
            diag("E611", f"generator {name} drew ({pair[0]}, {pair[1]}) once and ({canonical(again[0])}, "
                 f"{canonical(again[1])}) the next time from the same seed",
                 "draw only through rng (rng.choice, rng.randint, rng.shuffle), and sort before choosing from a set")
        elif seeds is not None:
            seeds.add_draw(env, (seed, env.qualname, i), level, (x, o) if env.latent is None else (x, o, latent))
        shown = f"{env.name}({', '.join((pair[0],) + tuple(canonical(v) for v in st))})"
        at = f" at level {level}"
        if env.verify is not None:
            out = lib.program.call(env.verify, V.args(env, x, o, latent))
            if not V.full(env, out.status, out.value):  # (a graded checker: its full grade)
                diag("E612", f"the checker of '{env.name}' rejects the generator's answer {pair[1]} for "
                     f"{shown}{at}", f"every drawn answer must be right: fix {name} or the @verify checker")
        if has_body:
            r = runner(env, x, st)
            if env.verify is None and (not r.ok or canonical(r.value) != pair[1]):
                got = canonical(r.value) if r.ok else "!" + r.status
                diag("E612", f"{shown} gives {got}, but the generator {name} drew the answer {pair[1]}{at}",
                     "a body beside @generate must agree with the generator on every drawn pair, at every "
                     "level a compile draws: fix one of them, or leave the body out (the docstring alone)")
        counts["ok"] += 1
        if on_run is not None:
            on_run(x, st, Run(o, "ok", 0))
    if failed:
        diags.append(generator_failed(lib, env, name, failed, n))
    from racesl.catalogue.diagnose import example_diagnostics

    diags += example_diagnostics(lib, [env], runner)  # its worked examples: the body's or the checker's verdict
    return counts, diags, time.perf_counter() - t0
