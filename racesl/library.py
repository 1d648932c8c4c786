"""A compiled library: checked modules lowered into one fuel-metered program.

This is what every later stage holds: the search executes environments through it,
the rewards re-execute chains through it, `racesc check` samples through it. A library
is named by the hash of its sources, so a task record can say which library made it.
"""

from __future__ import annotations

import ast as py
import hashlib
import random
from pathlib import Path
from threading import current_thread, get_ident, main_thread
from time import monotonic
from typing import Any

import attrs

from racesl import __version__
from racesl.cache import Memo
from racesl.check import Checked, check_paths
from racesl.check.model import ConstSig, EnvSig
from racesl.diagnostics import Diagnostic
from racesl.lower.budgets import chain_budget, function_budgets
from racesl.lower.effects import fresh, mutating_functions
from racesl.lower.module import Lowered
from racesl.lower.program import load_program
from racesl.runtime.constants import CONST_FUEL, CONST_WALL, ConstantFailed
from racesl.runtime.contract import canonical, check_value
from racesl.runtime.builtins import rng_over
from racesl.runtime.execute import classify
from racesl.runtime.fastcheck import compile_checker
from racesl.runtime.guards import check_result
from racesl.runtime.limits import Cutoff
from racesl.runtime.watchdog import WATCHDOG
from racesl.sample.default import NoSample, sampler_for
from racesl.types import types as T

# (budget in characters, entries) of the memos of refinement checks and type verdicts: a
# compile's memory must not grow with its task count (racesl.cache.Memo)
PRED_MEMO = (16_000_000, 200_000)
TYPE_MEMO = (24_000_000, 200_000)
AUX_FUEL = 400  # budget of a refinement check or a sampler, apart from the body's
AUX_WALL = 1.0  # wall limit (s) of one refinement check or sampler call
AUX_STRIKES = 3  # timeouts (or worker deaths) of one refinement or sampler before it is not run again
_MISS = object()  # a refinement check gets its own budget, separate from the body's
_MAIN = main_thread()


# a refinement check cut off, in words (`RefinementCut`, racesl.probe's E610)
CUT_WORDS = {"fuel": "ran out of steps (fuel)", "timeout": "ran past its wall-clock limit"}


class RefinementCut(NoSample):
    """A drawn value whose refinement check was cut off (`status`: "fuel", "timeout", ...)
    rather than false: the value may be right, the check needs a larger budget. Its cause is
    "check" (not the generator's own "fuel"); `pred` is the refinement (its source span locates
    the diagnostic); `drawn`: which value, and its text (`"input 'abba'"`)."""

    def __init__(self, reason: str, pred: T.Pred, status: str, drawn: str):
        super().__init__(reason, "check")
        self.pred = pred
        self.status = status
        self.drawn = drawn


def _pred_of(t: T.Type, text: str) -> T.Pred | None:
    """The predicate of normalized text `text` anywhere inside type `t`, or None."""
    todo, seen = [t], 0
    while todo and seen < 10_000:
        seen += 1
        u = todo.pop()
        if isinstance(u, T.Refined):
            for p in u.preds:
                if p.text == text:
                    return p
            todo.append(u.base)
        elif isinstance(u, T.NewT):
            todo.append(u.underlying)
        elif isinstance(u, (T.ListT, T.SetT)):
            todo.append(u.elem)
        elif isinstance(u, T.TupleT):
            todo.extend(u.elems)
        elif isinstance(u, T.DictT):
            todo.extend((u.key, u.value))
    return None


class ConstantError(ValueError):
    """A module constant that could not be evaluated when the library loaded, or whose value
    is outside its type: one located line (`FILE:LINE:COL: E443 ...`); `diagnostic` holds it."""

    def __init__(self, message: str, diagnostic: Diagnostic | None = None):
        super().__init__(message)
        self.diagnostic = diagnostic

    @classmethod
    def of(cls, c: ConstSig | None, why: str) -> "ConstantError":
        if c is None:
            return cls(f"a module constant could not be evaluated: {why}")
        d = Diagnostic("E443", f"constant '{c.name}' could not be evaluated: {why}", c.span, c.path,
                       hint="a constant is evaluated once when the library loads, with "
                            f"{CONST_FUEL:,} steps and {CONST_WALL:g} s; make it smaller or simpler")
        return cls(f"{c.path}:{c.span.line}:{c.span.col}: E443 {d.message}", d)


@attrs.frozen
class Run:
    """One execution of an environment: the outcome plus the contract verdict."""

    value: Any
    status: str  # Outcome statuses, plus "contract" (output outside the declared type)
    steps: int
    detail: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class Library:
    def __init__(self, checked: Checked, lowered: dict[str, Lowered] | None = None, *, program=None):
        """`lowered`: modules already lowered (by name), reused where they were lowered from
        the very module checked here — admission checks many candidates against one pool.
        `program`: the instrumented Program of exactly these modules where the caller has it
        (admission merges the pool's with a candidate's: racesl.admit.front), not made again."""
        if not checked.ok:
            raise ValueError("cannot build a library from modules with errors")
        self.checked = checked
        lowered = lowered or {}
        self.lowered = {name: lowered[name] if name in lowered and lowered[name].cm is cm else Lowered(cm)
                        for name, cm in checked.modules.items()}
        body: list[py.stmt] = []
        param_facts: dict = {}  # function → parameter → ParamFacts (racesl.lower.module)
        self.preds: dict[tuple[str, str], str] = {}
        for low in self.lowered.values():
            body.extend(low.module.body)
            param_facts.update(low.param_facts)
            self.preds.update(low.preds)
        module = py.Module(body=body, type_ignores=[])  # (a given program's modules were fixed already)
        module = module if program is not None else py.fix_missing_locations(module)
        self.module, self.param_facts = module, param_facts  # plain Python, before instrumentation
        self.budgets = function_budgets(self.lowered.values())  # @fuel: {function: steps}
        try:  # (loading evaluates the module constants: racesl.runtime.constants)
            self.program = program if program is not None else \
                load_program(module, "<races>", int_params=param_facts, budgets=self.budgets)
        except ConstantFailed as e:
            raise ConstantError.of(self._constant(e.pyname), str(e).split(": ", 1)[-1]) from None
        self.envs: dict[str, EnvSig] = {e.qualname: e for e in checked.envs()}
        self.root_envs: list[EnvSig] = checked.envs(only_roots=True)
        h = hashlib.sha256(f"racesl {__version__}\n".encode())
        for name in sorted(checked.modules):
            h.update(f"{name}\n{len(checked.modules[name].text)}\n{checked.modules[name].text}".encode())
        self.hash = "sha256:" + h.hexdigest()
        self._pred_cache = Memo(*PRED_MEMO)  # (predicate, type, scalar value) → holds
        self._type_cache = Memo(*TYPE_MEMO)  # (id(type), canonical text) → why not, or None
        self._keep: list = []  # types whose id() keys the cache stay alive
        self._aux_fns: dict = {}  # (predicate or sampler, thread) → its copy (see `aux_call`)
        self._strikes: dict[str, int] = {}
        self._struck: dict[str, str] = {}  # function → why it is no longer run
        self.aux = None  # where predicates and samplers run: None (here) or a SandboxRunner
        self.last_cut: tuple[str, str] | None = None  # (predicate, status) of the last one cut off
        self._fns: dict = {}
        self._checkers: dict = {}  # id(type) → compiled checker (or None), see racesl.runtime.fastcheck
        self._plain_preds: dict | None = None
        self._mutators: frozenset[str] | None = None
        self._env_samplers: dict[str, dict[str, str]] = {}
        self._check_constants()

    def _constant(self, pyname: str) -> ConstSig | None:
        return next((c for cm in self.checked.modules.values() for c in cm.constants.values()
                     if c.pyname == pyname), None)

    def _check_constants(self) -> None:
        """Each constant's value belongs to its declared type, refinements included (checked
        once, when the library loads): ConstantError where one does not."""
        for cm in self.checked.modules.values():
            for c in cm.constants.values():
                value = self.program.namespace.get(c.pyname)
                why = check_value(value, c.type, self.check_pred)
                if why is not None:
                    raise ConstantError.of(c, f"its value is outside its type {c.type}: {why}")

    @property
    def int_params(self) -> dict[str, frozenset[str]]:
        """`param_facts` in the mark spelling (racesl.lower.instrument.facts), to read at a glance."""
        return {f: m for low in self.lowered.values() for f, m in low.int_params.items()}

    @classmethod
    def from_paths(cls, paths, include=()) -> tuple["Library | None", Checked]:
        checked = check_paths(paths, include)
        return (cls(checked) if checked.ok else None), checked

    def sources(self) -> dict[str, str]:
        """{module name: text}: all it takes to build this library again elsewhere
        (`from_sources`), in a sidecar file or a message to another machine."""
        return {name: cm.text for name, cm in self.checked.modules.items()}

    @classmethod
    def from_sources(cls, modules: dict[str, str], expect: str) -> "Library":
        """The library of `sources()`, checked again here; ValueError when it does not compile
        with this racesl, or is not the library `expect` names (its modules were edited; or
        they came from another racesl version, whose hashes differ: a sidecar says which)."""
        root = Path("/__races_library__") / expect.split(":")[-1][:16]
        overlay = {str(root / f"{name}.races"): text for name, text in modules.items()}
        checked = check_paths(sorted(overlay), overlay=overlay)
        if not checked.ok:
            first = next((d for d in checked.diagnostics if d.is_error), None)
            where = "" if first is None else \
                f": {Path(first.path).name}:{first.span.line}:{first.span.col}: {first.code} {first.message}"
            raise ValueError(f"the stored library does not compile with this racesl{where}")
        lib = cls(checked)
        if lib.hash != expect:
            raise ValueError(f"its modules do not match its library {expect}: they hash to {lib.hash} "
                             "(library hash mismatch: its modules were edited after compile)")
        return lib

    # ------------------------------------------------------------ values and types

    def check_pred(self, pred: T.Pred, value: Any) -> bool:
        """Evaluate one refinement predicate on a value (its own fuel budget and wall limit;
        in the worker processes when `aux` is set). Cut off (fuel, timeout, size, ...) counts
        as false.

        Results for scalar values are cached: the search checks the same small ints and
        words again and again, and a predicate is a pure function of its value."""
        key = (pred.module, pred.text)
        tv = type(value)
        if tv is int or tv is str or tv is bool:
            ck = (key, tv, value)
            hit = self._pred_cache.get(ck)
            if hit is not None:
                return hit
        else:
            ck = None
        ok = self._pred(key, value)[0]
        if ck is not None:
            self._pred_cache.put(ck, ok, len(value) if tv is str else 8)
        return ok

    def pred_verdict(self, pred: T.Pred, value: Any) -> tuple[bool, str | None]:
        """`check_pred` uncached, with why it was false when it did not run to an answer:
        the status that cut it off ("fuel", "timeout", ...), else None."""
        return self._pred((pred.module, pred.text), value)

    def refinement_cut(self, value: Any, t: T.Type) -> tuple[T.Pred, str] | None:
        """The refinement check of `value` against `t` that was cut off, where one was (its
        predicate and the status that stopped it: "fuel", "timeout", ...): what made `conforms`
        say no, which is not the same as false. Call it after a failed `conforms` with
        `last_cut` cleared before: the check that ran is read off `last_cut`; where a cached
        verdict answered instead, the checks run again, uncached (on failure only)."""
        if self.last_cut is not None:
            pred = _pred_of(t, self.last_cut[0])
            if pred is not None:
                return pred, self.last_cut[1]
        found: list[tuple[T.Pred, str]] = []

        def check(pred: T.Pred, x: Any) -> bool:
            ok, status = self.pred_verdict(pred, x)
            if status is not None and not found:
                found.append((pred, status))
            return ok

        check_value(value, t, check)
        return found[0] if found else None

    def _pred(self, key: tuple[str, str], value: Any) -> tuple[bool, str | None]:
        name = self.preds.get(key)
        if name is None:  # a predicate no module declared: impossible for checked input
            raise KeyError(key[1])
        status, out, _ = self.aux_call(name, (value,))
        if status != "ok":
            self.last_cut = (key[1], status)
            return False, status
        return out is True, None

    def aux_call(self, name: str, args: tuple, rng: random.Random | None = None) -> tuple[str, Any, str | None]:
        """Run a refinement predicate or a sampler helper of the program: (status, value,
        detail), never raising for what the code does. `rng` (a sampler's) is passed first,
        as a SafeRng over it, and advanced as the call drew from it.

        Every such call has AUX_FUEL steps and AUX_WALL seconds, under a watchdog session
        (one is opened when none is), or runs in the worker processes of `self.aux` (set by
        racesl.sandbox_runner.SandboxRunner: `--untrusted`), so the parent never runs it.
        A function cut off by the clock (its value's check included) or that killed its
        worker AUX_STRIKES times is not run again: it answers "timeout" at once, so one slow
        refinement or sampler cannot stall a whole sampling."""
        struck = self._struck.get(name)
        if struck is not None:
            return "timeout", None, struck
        t0 = monotonic()
        if self.aux is not None:
            status, value, detail = self._remote(name, args, rng)
        else:
            fk = (name, get_ident())  # one copy per thread: a copy's meter is its fuel box
            fn = self._aux_fns.get(fk)
            if fn is None:
                fn = self._aux_fns[fk] = self.program.function(name, fuel=AUX_FUEL, wall=AUX_WALL)
            if rng is not None:
                args = (rng_over(rng), *args)
            try:
                if WATCHDOG.depth or current_thread() is not _MAIN:
                    value = fn(*args)
                else:
                    with WATCHDOG.session():
                        value = fn(*args)
                if rng is not None:
                    check_result(value)  # a sampler's value is rendered (canonical) next
                status, detail = "ok", None
            except (Exception, Cutoff) as exc:
                msg = str(exc)
                status, value, detail = classify(exc), None, (f"{type(exc).__name__}: {msg}" if msg
                                                               else type(exc).__name__)[:300]
        self._strike(name, status, detail, monotonic() - t0)  # (checking its value included)
        return status, value, detail

    def limits(self, name: str, fuel: int = AUX_FUEL, wall: float | None = AUX_WALL) -> tuple[int, float | None]:
        """The budget and wall limit a call of the lowered function `name` gets when its
        caller gives `fuel` and `wall`: its `@fuel` budget where larger (`Program.limits`)."""
        return self.program.limits(name, fuel, wall)

    def budget(self, env: EnvSig, fuel: int = AUX_FUEL) -> int:
        """The steps a run of `env` gets when its caller gives `fuel` (see `limits`)."""
        return self.program.limits(env.pyname, fuel)[0]

    def chain_budget(self, envs, fuel: int = AUX_FUEL) -> int:
        """The budget of a chain of `envs` run as one unit: the sum of its steps' budgets."""
        return chain_budget(self.budgets, (e.pyname for e in envs), fuel)

    def _strike(self, name: str, status: str, detail: str | None, took: float = 0.0) -> None:
        """Count a call that timed out, failed after its wall limit (in `check_result`, say)
        or killed its worker (see `aux_call`). A slow call that answered is not counted: a
        pause of the whole process (a collection) must not silence a good refinement."""
        if (status == "timeout" or (status != "ok" and took > self.limits(name)[1])
                or (status == "error" and (detail or "").startswith("worker died"))):
            n = self._strikes[name] = self._strikes.get(name, 0) + 1
            if n >= AUX_STRIKES:
                self._struck[name] = (f"cut off {n} times past its wall-clock limit of {self.limits(name)[1]:g} s "
                                      f"or with its worker (last: {detail or status}); not run again")

    def conforms_many(self, pairs: list[tuple[Any, T.Type]]) -> list[str | None]:
        """`conforms(value, t)` for each pair; with `aux` set, the refinement checks they need
        (and the cache lacks) go to the workers in one batch rather than one round trip each."""
        if self.aux is None:
            return [self.conforms(v, t) for v, t in pairs]
        wanted: dict[tuple, tuple] = {}  # verdict key (`_vkey`) → (function, value)

        def want(pred: T.Pred, value: Any) -> bool:
            vk = _vkey(pred, value)
            name = self.preds.get(vk[0])
            if name is not None and name not in self._struck and vk not in self._pred_cache:
                wanted.setdefault(vk, (name, value))
            return True

        for v, t in pairs:
            check_value(v, t, want)  # every predicate a check may need (none short-circuits here)
        got: dict[tuple, bool] = {}
        if wanted:
            calls = list(wanted.values())
            outs = self.aux.aux_batch([(n, (x,), AUX_FUEL, AUX_WALL) for n, x in calls])
            for vk, (n, x), out in zip(wanted, calls, outs):
                self._strike(n, out.status, out.error)
                got[vk] = ok = out.status == "ok" and out.value is True
                if len(vk) == 3:  # a scalar's verdict: cached as `check_pred` caches it
                    self._pred_cache.put(vk, ok, len(x) if type(x) is str else 8)

        def check(pred: T.Pred, value: Any) -> bool:
            hit = got.get(_vkey(pred, value))
            return self.check_pred(pred, value) if hit is None else hit

        return [check_value(v, t, check) for v, t in pairs]  # (the values, alive, keep their ids)

    def _remote(self, name: str, args: tuple, rng) -> tuple[str, Any, str | None]:
        """`aux_call` in a worker: a sampler's call carries the generator itself (the "rng"
        call kind of racesl.runtime.sandbox) and comes back with its new state, so the
        draws are the ones in-process sampling makes."""
        if rng is None:
            [out] = self.aux.aux_batch([(name, args, AUX_FUEL, AUX_WALL)])
            return out.status, out.value, out.error
        [out] = self.aux.aux_batch([(name, (rng, *args), AUX_FUEL, AUX_WALL, "rng")])
        got = out.value
        if type(got) is tuple and len(got) == 2:  # (value, the generator's state afterwards)
            value, state = got
            if state is not None:
                rng.setstate(state)
        else:  # the worker was killed or its answer lost: the state is unknown
            value = None
        return out.status, (value if out.status == "ok" else None), out.error

    def conforms(self, value: Any, t: T.Type, text: str | None = None) -> str | None:
        """None when value belongs to t; else why not.

        With `text` (the value's canonical text) the verdict is cached: the search meets the
        same states again and again, and membership is a pure function of the value. On a
        miss, a checker compiled for `t` answers the common case (the value conforms) at
        once; anything else takes the generic walk, which also says why."""
        if text is None:
            return self._verdict(value, t)
        key = (id(t), text)
        hit = self._type_cache.get(key, _MISS)
        if hit is _MISS:
            hit = self._verdict(value, t)
            self._type_cache.put(key, hit, len(text))
        return hit

    def checker(self, t: T.Type):
        """The compiled checker of `t` (racesl.runtime.fastcheck), or None."""
        fast = self._checkers.get(id(t), _MISS)
        if fast is _MISS:
            fast = self._checkers[id(t)] = compile_checker(t, self.check_pred, self._plain_pred)
            self._keep.append(t)  # id(t) keys both caches: keep t alive
        return fast

    def _verdict(self, value: Any, t: T.Type) -> str | None:
        fast = self.checker(t)
        if fast is not None:
            try:
                if fast(value):
                    return None
            except Exception:  # e.g. a comparison of unlike values: the generic walk decides
                pass
        return check_value(value, t, self.check_pred)

    def _plain_pred(self, pred: T.Pred) -> py.expr | None:
        """The predicate's uninstrumented expression (over `it`), for inlining simple ones."""
        if self._plain_preds is None:
            self._plain_preds = {
                fn.name: fn.body[0].value for fn in self.module.body
                if isinstance(fn, py.FunctionDef) and len(fn.body) == 1 and isinstance(fn.body[0], py.Return)
                and fn.args.args and fn.args.args[0].arg == "it"}
        name = self.preds.get((pred.module, pred.text))
        return None if name is None else self._plain_preds.get(name)

    # ------------------------------------------------------------ sampling

    def sample_param(self, env: EnvSig, param: str, t: T.Type, rng: random.Random, level: int) -> Any:
        """One value for a parameter: its @sample helper, else the default sampler. Raises
        NoSample, with the reason, when neither gives a value of `t` (a helper cut off, a
        value outside `t`, refinements that reject every candidate)."""
        helper = self._samplers_of(env).get(param)
        if helper is None:
            return sampler_for(t).draw(rng, level, self.check_pred)
        status, value, detail = self.aux_call(helper, (level,), rng)
        if status != "ok":
            raise NoSample(f"sampler {helper.split('__')[-1]} stopped: {status} ({detail})", status)
        try:
            text = canonical(value)
        except (Exception, Cutoff) as exc:  # (a shared structure too large to render)
            raise NoSample(f"sampler {helper.split('__')[-1]} returned a value too large to use "
                           f"({type(exc).__name__})", "size") from None
        why = self.conforms(value, t, text)
        if why is not None:
            shown = text if len(text) <= 200 else text[:199] + "…"
            raise NoSample(f"sampler returned {shown}, outside {t}: {why}", "outside")
        return value

    def warm(self, env: EnvSig) -> None:
        """Build the checkers and samplers of `env`'s types now (see `Executor.warm`)."""
        helpers = self._samplers_of(env)
        for name, t in ((env.input_name, env.input), *((s.name, s.type) for s in env.settings)):
            self.checker(t)
            if name not in helpers:
                try:
                    sampler_for(t)
                except Exception:  # a type with no sampler fails the same way when drawn
                    pass
        self.checker(env.output)
        self.may_mutate(env)

    def _samplers_of(self, env: EnvSig) -> dict[str, str]:
        hit = self._env_samplers.get(env.qualname)
        if hit is None:
            hit = self._env_samplers[env.qualname] = dict(env.samplers)
        return hit

    def sample_settings(self, env: EnvSig, rng: random.Random, level: int) -> tuple:
        if not env.settings:
            return ()
        return tuple(self.sample_param(env, s.name, s.type, rng, level) for s in env.settings)

    def sample_input(self, env: EnvSig, rng: random.Random, level: int) -> Any:
        if env.generate is not None:  # (its input alone; `draw` keeps the answer)
            return self.draw(env, rng, level)[0]
        return self.sample_param(env, env.input_name, env.input, rng, level)

    def draw(self, env: EnvSig, rng: random.Random, level: int) -> tuple[Any, Any]:
        """A generator environment's instance and its answer (`draw_instance` without the
        latent value)."""
        return self.draw_instance(env, rng, level)[:2]

    def draw_instance(self, env: EnvSig, rng: random.Random, level: int) -> tuple[Any, Any, Any]:
        """A generator environment's instance, its answer and its latent value (None where the
        helper draws a pair), drawn by its @generate helper (racesl.check.generators). Raises
        NoSample, with the reason, when the helper stops or returns no pair (or triple, with a
        latent: racesl.check.verifiers) of the environment's declared types (refinements
        included)."""
        name = env.generate.split("__")[-1]
        status, value, detail = self.aux_call(env.generate, (level,), rng)
        if status != "ok":
            raise NoSample(f"generator {name} stopped: {status} ({detail})", status)
        latent = env.latent
        if type(value) is not tuple or len(value) != (2 if latent is None else 3):
            shape = "pair (input, answer)" if latent is None else "triple (input, answer, latent)"
            raise NoSample(f"generator {name} returned no {shape}", "outside")
        checks = ((value[0], env.input, "input"), (value[1], env.output, "answer"))
        if latent is not None:
            checks += ((value[2], latent, "latent value"),)
        for v, t, what in checks:
            try:
                text = canonical(v)
            except (Exception, Cutoff) as exc:
                raise NoSample(f"generator {name} returned a value too large to use ({type(exc).__name__})",
                               "size") from None
            self.last_cut = None
            why = self.conforms(v, t, text)
            if why is not None:
                shown = text if len(text) <= 200 else text[:199] + "…"
                cut = self.refinement_cut(v, t)
                if cut is not None:  # (not outside: its check did not run to an answer)
                    raise RefinementCut(f"generator {name} returned the {what} {shown}, but checking "
                                        f"`{cut[0].shown}` {CUT_WORDS.get(cut[1], 'stopped: ' + cut[1])}, "
                                        "which counts as false", *cut, f"{what} {shown}")
                raise NoSample(f"generator {name} returned the {what} {shown}, outside {t}: {why}", "outside")
        return (value[0], value[1], value[2] if latent is not None else None)

    # ------------------------------------------------------------ running

    def may_mutate(self, env: EnvSig) -> bool:
        """Might the body change its input or settings in place? Callers that share values
        (the search, the rewards' literal cache) then pass `fresh` copies: see
        racesl.lower.effects."""
        if self._mutators is None:
            self._mutators = mutating_functions(self.module)
        return env.pyname in self._mutators

    def function(self, env: EnvSig, wall: float | None = 2.0, fuel: int = 400):
        """The environment's hot path, `run(x, *settings) -> value` having used
        `run.fuel - run.meter[0]` steps (see `Program.function`), cached per thread (each
        has its own meter); a body that may mutate gets copies of its arguments, so callers
        can share values freely. The arguments must conform to the environment's declared types, refinements
        included."""
        key = (env.pyname, wall, fuel, get_ident())
        fn = self._fns.get(key)
        if fn is None:
            fn = run = self.program.function(env.pyname, fuel=fuel, wall=wall)
            if self.may_mutate(env):
                def fn(x, *settings):
                    return run(fresh(x), *(fresh(s) for s in settings))
                fn.meter, fn.fuel = run.meter, run.fuel
            self._fns[key] = fn
        return fn

    def run(self, env: EnvSig, x: Any, settings: tuple = (), *, fuel: int = 400, wall: float = 2.0,
            check_output: bool = True) -> Run:
        """Run an environment on an input of its declared type (with settings of theirs);
        never raises for anything the body does. The wall limit holds even for a body
        without loops (whose entry opens no session itself: docs/fuel.md): a call made on
        the main thread outside any watchdog session opens one."""
        fn = self.function(env, wall, fuel)
        try:
            if WATCHDOG.depth or wall is None or current_thread() is not _MAIN:
                value = fn(x, *settings)
            else:
                with WATCHDOG.session():
                    value = fn(x, *settings)
            check_result(value)  # (rendered next: an int past MAX_INT_BITS is `size`, not a ValueError)
        except (Exception, Cutoff) as exc:
            status = classify(exc)
            msg = str(exc)
            return Run(None, status, fn.fuel if status == "fuel" else 0,
                       (f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__)[:300])
        steps = fn.fuel - fn.meter[0]
        if check_output:
            why = self.conforms(value, env.output)
            if why is not None:
                return Run(value, "contract", steps, why)
        return Run(value, "ok", steps)


def _vkey(pred: T.Pred, value: Any) -> tuple:
    """The verdict key of a predicate on a value: `check_pred`'s cache key for a scalar, the
    value's id otherwise (only while the value is alive: `conforms_many`)."""
    tv = type(value)
    if tv is int or tv is str or tv is bool:
        return ((pred.module, pred.text), tv, value)
    return ((pred.module, pred.text), id(value))


def load(paths: list[str | Path], include=()) -> Library:
    lib, checked = Library.from_paths(paths, include)
    if lib is None:
        from racesl.diagnostics import render_plain

        raise ValueError("library does not compile:\n" + render_plain(checked.diagnostics))
    return lib
