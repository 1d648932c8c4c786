"""What checking produces: typed signatures of environments and helpers, per module."""

from __future__ import annotations

import attrs

from racesl.diagnostics import Diagnostic, Span
from racesl.syntax import ast as A
from racesl.types.types import Type


@attrs.frozen(slots=True)
class Setting:
    name: str
    type: Type


@attrs.frozen
class EnvSig:
    qualname: str  # "numbers.fibonacci"
    module: str
    name: str
    pyname: str  # name of the lowered function
    input_name: str
    input: Type
    settings: tuple[Setting, ...]
    output: Type
    description: str
    tags: tuple[str, ...]
    samplers: tuple[tuple[str, str], ...]  # (param, helper pyname)
    verify: str | None  # helper pyname
    laws: tuple[str, ...]
    path: str
    span: Span
    node: A.FuncDef = attrs.field(eq=False, repr=False)
    generate: str | None = None  # @generate helper pyname: a generator environment (racesl.check.generators)
    fuel: int | None = None  # @fuel(N): its step budget when it is the call that runs (racesl.check.fuel)
    scale: int | None = None  # a graded @verify checker's N (reward = value / N); None: a Bool checker
    latent: Type | None = None  # the latent value's type its generator draws for its checker (racesl.check.verifiers)
    layout: str | None = None  # @layout(FORM): how its values are shown in prompts (racesl.types.layout)

    @property
    def terminal(self) -> bool:
        return self.verify is not None

    @property
    def source(self) -> bool:
        """A generator environment: it only starts chains (its answer is drawn, not computed)."""
        return self.generate is not None

    def signature(self) -> str:
        params = [f"{self.input_name}: {self.input}"] + [f"{s.name}: {s.type}" for s in self.settings]
        return f"env {self.name}({', '.join(params)}) -> {self.output}"


@attrs.frozen
class HelperSig:
    qualname: str
    module: str
    name: str
    pyname: str
    params: tuple[tuple[str, Type | None], ...]
    returns: Type | None
    path: str
    span: Span
    node: A.FuncDef = attrs.field(eq=False, repr=False)
    fuel: int | None = None  # @fuel(N): its step budget when it is the call that runs (racesl.check.fuel)


@attrs.frozen
class ConstSig:
    """A module constant (racesl.check.constants): evaluated once when a library loads, by
    the function `init` (racesl.runtime.constants), into the program's global `pyname`."""

    qualname: str
    module: str
    name: str
    pyname: str
    type: Type
    path: str
    span: Span
    node: A.ConstDef = attrs.field(eq=False, repr=False)

    @property
    def init(self) -> str:
        from racesl.runtime.constants import init_name

        return init_name(self.pyname)


@attrs.define
class CheckedModule:
    name: str
    path: str
    text: str
    ast: A.Module
    imports: tuple[str, ...] = ()
    envs: dict[str, EnvSig] = attrs.Factory(dict)
    helpers: dict[str, HelperSig] = attrs.Factory(dict)
    types: dict[str, Type] = attrs.Factory(dict)
    constants: dict[str, ConstSig] = attrs.Factory(dict)  # in source order
    diagnostics: list[Diagnostic] = attrs.Factory(list)
    # refinement predicates declared in this module: Pred.text → python function name
    exports: dict = attrs.Factory(dict)  # name → body.Symbol, what importers see
    local_types: dict = attrs.Factory(dict)  # function → {local: Type}, for the editor
    resolved: dict = attrs.Factory(dict)  # id(name node) → lowered python name


def declared_name(te, fallback) -> str:
    """A type as the signature names it: `Bits`, `List[Word]`, `numbers.Small`; a refinement
    written in place (`Int where ...`) shows as its base name. `fallback` (a Type) when the
    annotation is missing."""
    if te is None:
        return str(fallback)
    return te.name + ("[" + ", ".join(declared_name(a, "?") for a in te.args) + "]" if te.args else "")


def declared_param(env, name: str, fallback) -> str:
    """The declared type name of one of an environment's parameters (see `declared_name`)."""
    return declared_name(next((p.annotation for p in env.node.params if p.name == name), None), fallback)


def declared_types(env) -> tuple[str, str]:
    """An environment's input and output types as its signature writes them (`Word`, `Int`)."""
    params = env.node.params
    return (declared_name(params[0].annotation if params else None, env.input),
            declared_name(env.node.returns, env.output))


def declared_signature(env) -> str:
    """`Bits -> Word`: an environment's input and output types as its signature writes them."""
    return " -> ".join(declared_types(env))
