"""Generator environments, `@generate(helper)`: the static rules.

A generator environment is EvoEnv's environment shape: `helper(rng, level) -> Tuple[I, O]`
draws an instance together with its answer, the environment `env NAME(x: I, ...) -> O` shows
it (its description) and, where several answers are right, a `@verify` checker scores replies.
Its answer is drawn, not computed from x, so its body may be the docstring alone, and it is a
*source*: it starts chains and is never run mid-chain (racesl.search, racesl.operators).

Checked here (located errors with hints, codes in racesl.diagnostics.CODES):

- E420: `@generate` names no helper of two parameters (rng, level);
- E421: the helper's declared return type is not `Tuple[I, O]` with I the shape of the
  environment's input and O the shape of its return type (refinements are checked on
  sampled pairs by `racesc check`: racesl.probe_generators), nor `Tuple[I, O, L]`: the
  pair and a latent value L, the drawn instance its `@verify` checker gets third
  (racesl.check.verifiers; a latent without a checker is E421 too);
- E422: `@generate` beside `@sample` for the input (the generator draws it) or `@laws`
  (a law applies the environment to its own output: a source never runs mid-chain);
- E423: a docstring-only body without `@generate` (nothing would compute the answer).

A body under `@generate` is allowed: it must then agree with the generator on every sampled
pair (E612, racesl.probe_generators); the task's answer is the drawn value either way.
`racesc check` samples pairs at every level a compile may draw (its races.toml's
`max_level`) and under other hash seeds (E601), and `racesc compile` derives every drawn
pair again before writing its task (racesl.operators.rederive).
"""

from __future__ import annotations

from racesl.check.body import has_unknown
from racesl.syntax import ast as A
from racesl.text import plural
from racesl.types import types as T

SHAPE = "a generator helper(rng, level) -> Tuple[I, O]"


def generator_ref(ck, fn: A.FuncDef, sig, d: A.Decorator) -> tuple[str, T.Type | None] | None:
    """(pyname, latent type) of the helper `@generate(...)` names on environment `fn`
    (signature `sig`), the latent type None for a pair `Tuple[I, O]`; or None after reporting
    why it cannot be one (`ck`: the ModuleChecker, for its scope and `err`)."""
    if len(d.args) != 1 or d.keywords:
        ck.err("E420", "@generate takes one helper", d.span,
               "@generate(draw), with def draw(rng, level) -> Tuple[I, O]")
        return None
    e = d.args[0]
    sym = helper_symbol(ck, e)
    if sym is None or sym.kind != "helper":
        ck.err("E420", f"expected {SHAPE}", e.span, "name a `def` helper of this module or an imported one")
        return None
    if sym.nparams != 2:
        ck.err("E420", f"expected {SHAPE}, but it takes {plural(sym.nparams or 0, 'parameter')}", e.span,
               "a generator draws with rng and level only: def draw(rng, level) -> Tuple[I, O]")
        return None
    want = f"Tuple[{T.erase(sig.input)}, {T.erase(sig.output)}]"
    r = sym.returns
    if r is None:
        ck.err("E421", f"the generator '{short(e)}' declares no return type", e.span,
               f"declare it -> {want}: the input it draws and the answer")
        return None
    if _unknown(r) or _unknown(sig.input) or _unknown(sig.output):
        return None  # (an unknown type has its own E300)
    rs = T.shape(r)
    if not isinstance(rs, T.TupleT) or len(rs.elems) not in (2, 3):
        ck.err("E421", f"the generator '{short(e)}' returns {r}, not a pair Tuple[I, O]", e.span,
               f"return the drawn input and its answer: -> {want} (or -> Tuple[I, O, L] with a latent "
               "value for the checker)")
        return None
    i, o = rs.elems[:2]
    latent = rs.elems[2] if len(rs.elems) == 3 else None
    bad = []
    if not T.same_shape(i, sig.input):
        bad.append(f"its input is {T.erase(i)}, but '{fn.name}' takes {sig.input_name}: {T.erase(sig.input)}")
    if not T.same_shape(o, sig.output):
        bad.append(f"its answer is {T.erase(o)}, but '{fn.name}' returns {T.erase(sig.output)}")
    if bad:
        ck.err("E421", f"the generator '{short(e)}' does not fit '{fn.name}': " + "; ".join(bad), e.span,
               f"declare it -> {want} (refinements are checked on sampled pairs)")
        return None
    if latent is not None and not any(v.name == "verify" for v in fn.decorators):
        ck.err("E421", f"the generator '{short(e)}' draws a latent value ({T.erase(latent)}), but '{fn.name}' "
               "has no @verify checker to read it", e.span,
               "add @verify(check) with def check(x, answer, latent) -> Bool, or return the pair alone: "
               f"-> {want}")
        return None
    return sym.pyname, latent


def latent_of(ck, fn: A.FuncDef) -> T.Type | None:
    """The latent type `fn`'s `@generate` helper declares (the third of `Tuple[I, O, L]`), read
    without reporting anything (generator_ref reports): the checker's arity depends on it."""
    d = next((d for d in fn.decorators if d.name == "generate"), None)
    if d is None or len(d.args) != 1 or d.keywords:
        return None
    sym = helper_symbol(ck, d.args[0])
    if sym is None or sym.kind != "helper" or sym.returns is None or _unknown(sym.returns):
        return None
    rs = T.shape(sym.returns)
    return rs.elems[2] if isinstance(rs, T.TupleT) and len(rs.elems) == 3 else None


def conflicts(ck, fn: A.FuncDef, sig, samplers: dict[str, str], laws: list[str]) -> None:
    """E422: decorators that contradict `@generate` on `fn`."""
    for d in fn.decorators:
        if d.name == "sample" and sig.input_name in samplers:
            k = next((k for k in d.keywords if k.name == sig.input_name), d)
            ck.err("E422", f"@sample({sig.input_name}=...) and @generate both draw the input of '{fn.name}'",
                   k.span, f"remove the sampler: the generator draws {sig.input_name} together with its answer")
        elif d.name == "laws" and laws:
            ck.err("E422", f"@laws on the generator environment '{fn.name}'", d.span,
                   "a law applies the environment to its own output, and a generator environment only "
                   "starts chains: remove @laws")


def bodiless(fn: A.FuncDef) -> bool:
    """Is the body of `fn` its docstring alone?"""
    return fn.docstring is not None and not fn.body


def check_body_rule(ck, fn: A.FuncDef, generate: str | None) -> None:
    """E423: a docstring-only body needs `@generate`."""
    if bodiless(fn) and generate is None and not any(d.name == "generate" for d in fn.decorators):
        ck.err("E423", f"'{fn.name}' has no body but its description", fn.name_span,
               "write the body that computes the answer, or draw instances with their answers: "
               "@generate(draw), with def draw(rng, level) -> Tuple[I, O]")


def helper_symbol(ck, e: A.Expr):
    """The module-level symbol a decorator argument names (`name` or `module.name`), or None."""
    if isinstance(e, A.Name):
        return ck.scope.lookup(e.id)
    if isinstance(e, A.Attribute) and isinstance(e.value, A.Name):
        msym = ck.symbols.get(e.value.id)
        if msym is not None and msym.kind == "module":
            ck.scope.used.add(e.value.id)
            return ck.scope.member(msym.qualname, e.attr)
    return None


def short(e: A.Expr) -> str:
    """A decorator argument as written: `draw`, `words.draw`."""
    return e.id if isinstance(e, A.Name) else f"{e.value.id}.{e.attr}" if isinstance(e, A.Attribute) else "?"


def _unknown(t: T.Type) -> bool:
    return has_unknown(t)
