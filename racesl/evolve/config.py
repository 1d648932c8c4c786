"""The evolve configuration: one TOML file (like `racesc train`'s), every section checked.

    [pool]       dir, seeds = ["stdlib"], max_age (steps; 0 = never), seed_floor = 0.2
    [generator]  model (a folder) | endpoint (an OpenAI-compatible …/v1), served_model, system,
                 temperature, max_tokens, candidates_per_step, steps, seed, timeout, retries,
                 max_reply_bytes, model_gates, constrained, grammar_field
    [admit]      racesl.admit.context.AdmitConfig fields (the gates' settings)
    [reward]     calibration_weight, novelty_weight, uncalibrated, generator_weight,
                 and [reward.penalty]: gate → the reward of a candidate it rejected
    [train]      settings for `--train` (racesl.evolve.grpo), kept as a table

Paths are relative to the file. A key the section does not know is refused with the closest
known one; an error says file:line (racesl.search.config.ConfigError, printed by the CLI as
`racesc: error: ...`, exit 2). `--model` / `--endpoint` replace [generator]'s pair; exactly
one of them must be set in the end (`with_overrides`).
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import ClassVar

import attrs

from racesl.admit.context import AdmitConfig
from racesl.admit.gates import GATES
from racesl.search.config import (
    ConfigError,
    as_tuple,
    flag,
    locate,
    maybe_text,
    number,
    one_of,
    read_toml,
    show,
    texts,
    unknown_keys,
    unknown_sections,
    whole,
)

SECTIONS = ("pool", "generator", "admit", "reward", "train")
STDLIB = "stdlib"
# the gates a generated candidate can stop at: "generate" (the backend failed: no reward),
# "extract" (no ```races block in the completion), then the admission gates
EXTRACT = "extract"
REWARD_GATES = (EXTRACT, *GATES)
# the reward of a candidate rejected at each gate: the earlier it stopped, the lower (docs/evolve.md)
DEFAULT_PENALTY = {"extract": -1.0, "parse": -1.0, "check": -0.9, "sample": -0.8, "determinism": -0.7,
                   "nontrivial": -0.6, "composes": -0.5, "contract": -0.4, "novelty": -0.2, "review": -0.15,
                   "calibration": -0.1}


def _maybe_flag(_inst, attribute, value) -> None:
    if value is not None:
        flag(_inst, attribute, value)


@attrs.frozen
class PoolSettings:
    SECTION: ClassVar[str] = "pool"

    dir: str = attrs.field(default="pool", validator=maybe_text)
    seeds: tuple[str, ...] = attrs.field(default=(STDLIB,), converter=as_tuple, validator=texts)
    max_age: int = attrs.field(default=0, validator=whole(0))  # steps an admitted module stays; 0: forever
    seed_floor: float = attrs.field(default=0.2, validator=number(0, 1))


@attrs.frozen
class GeneratorSettings:
    SECTION: ClassVar[str] = "generator"

    model: str | None = attrs.field(default=None, validator=maybe_text)
    endpoint: str | None = attrs.field(default=None, validator=maybe_text)
    served_model: str | None = attrs.field(default=None, validator=maybe_text)
    system: str | None = attrs.field(default=None, validator=maybe_text)
    temperature: float = attrs.field(default=1.0, validator=number(0, 10))
    max_tokens: int = attrs.field(default=1024, validator=whole(1, 1_000_000))
    candidates_per_step: int = attrs.field(default=4, validator=whole(1, 10_000))
    steps: int = attrs.field(default=10, validator=whole(0))  # the step the pool should reach
    seed: int = attrs.field(default=0, validator=whole(0))
    # s a request, connect to last byte. The model gates ask the same backend for replies of up to
    # [admit] solve_max_tokens (8,192): at 30 tokens a second that is about 270 s
    timeout: float = attrs.field(default=300.0, validator=number(0, above=True))
    retries: int = attrs.field(default=2, validator=whole(0, 100))
    max_reply_bytes: int = attrs.field(default=16 << 20, validator=whole(1))  # cut off beyond
    # the model gates (review, calibration) ask the generator's backend too (EvoEnv: one
    # policy in both roles); false runs the model-free gates only
    model_gates: bool = attrs.field(default=True, validator=flag)
    # decode under the generation grammar (racesl.evolve.grammar): true, false, or unset = on
    # where the backend can (a local model with llguidance installed; any endpoint)
    constrained: bool | None = attrs.field(default=None, validator=_maybe_flag)
    # how an endpoint is sent the grammar: vLLM >= 0.12 "structured_outputs", older "guided_grammar"
    grammar_field: str = attrs.field(default="structured_outputs",
                                     validator=one_of("structured_outputs", "guided_grammar"))


def check_penalty(given: dict) -> None:
    """`given` (gate → reward, over the defaults) rises along the gates; an error names a
    gate the table sets, so the file:line points at it."""
    if not isinstance(given, dict):
        raise ConfigError(f"[reward] penalty must be a table of gate = number, not {show(given)}", "reward", "penalty")
    unknown_keys("reward.penalty", given, REWARD_GATES)
    for g, v in given.items():
        if type(v) not in (int, float) or not math.isfinite(v) or not -10 <= v <= 0:
            raise ConfigError(f"[reward.penalty] {g} must be a number from -10 to 0, not {show(v)}",
                              "reward.penalty", g)
    value = {**DEFAULT_PENALTY, **given}
    for a, b in itertools.pairwise(REWARD_GATES):
        if value[b] < value[a]:
            raise ConfigError(f"[reward.penalty] {b} = {value[b]} is below {a} = {value[a]}: a candidate that got "
                              "further must not be rewarded less (make the penalties rise along the gates)",
                              "reward.penalty", b if b in given else a)


def _penalty(_inst, _attr, value) -> None:
    check_penalty(value)


def _full_penalty(value):
    return {**DEFAULT_PENALTY, **value} if isinstance(value, dict) else value


@attrs.frozen
class RewardSettings:
    SECTION: ClassVar[str] = "reward"

    calibration_weight: float = attrs.field(default=1.0, validator=number(0, 100))
    novelty_weight: float = attrs.field(default=0.5, validator=number(0, 100))
    # the calibration score of an admitted candidate when no model ran the calibration gate
    uncalibrated: float = attrs.field(default=0.5, validator=number(0, 1))
    # EvoEnv: the generator role's advantages are scaled by this in the shared GRPO update
    generator_weight: float = attrs.field(default=0.3, validator=number(0, 100))
    penalty: dict = attrs.field(factory=lambda: dict(DEFAULT_PENALTY), converter=_full_penalty,
                                validator=_penalty)


@attrs.frozen
class EvolveConfig:
    path: Path | None
    pool: PoolSettings
    generator: GeneratorSettings
    admit: AdmitConfig
    reward: RewardSettings
    train: dict  # for racesl.evolve.grpo (checked there)

    def with_overrides(self, *, model: str | None = None, endpoint: str | None = None, steps: int | None = None,
                       pool: str | None = None) -> EvolveConfig:
        """The command line's --model / --endpoint (either replaces the file's pair), --steps,
        --pool; then exactly one of model and endpoint must be set."""
        gen = self.generator
        if model is not None or endpoint is not None:
            gen = attrs.evolve(gen, model=model, endpoint=endpoint)
        if steps is not None:
            gen = attrs.evolve(gen, steps=steps)
        out = attrs.evolve(self, generator=gen,
                           pool=self.pool if pool is None else attrs.evolve(self.pool, dir=str(Path(pool).resolve())))
        out.require_generator()
        return out

    def require_generator(self) -> None:
        g = self.generator
        if g.model and g.endpoint:
            raise ConfigError("[generator] sets both model and endpoint: keep one (or pass --model / --endpoint)",
                              "generator", "endpoint")
        if not (g.model or g.endpoint):
            raise ConfigError("no generator: set [generator] model = \"PATH\" or endpoint = \"http://…/v1\", "
                              "or pass --model PATH / --endpoint URL", "generator")


def _fields(cls) -> tuple[str, ...]:
    return tuple(a.name for a in attrs.fields(cls))


def _paths_plain(section: str, table: dict, keys: tuple[str, ...]) -> None:
    """A path setting holding a NUL character names no file: one located line, never the
    ValueError the file system functions raise."""
    for k in keys:
        v = table.get(k)
        for text in (v if isinstance(v, (list, tuple)) else [v]):
            if isinstance(text, str) and "\0" in text:
                raise ConfigError(f"[{section}] {k}: a path cannot hold a NUL character ({show(text)})", section, k)


def _resolve(base: Path, p: str) -> str:
    q = Path(p).expanduser()
    return str(q if q.is_absolute() else (base / q).resolve())


def _model_path(base: Path, p: str | None) -> str | None:
    """A folder relative to the config file when it exists there, else as given (a hub id)."""
    if not p:
        return p
    q = Path(p).expanduser()
    if not q.is_absolute() and (base / q).exists():
        return str((base / q).resolve())
    return p


def _admit(a: dict) -> AdmitConfig:
    """AdmitConfig has no validators of its own: each value must have its default's type."""
    unknown_keys("admit", a, _fields(AdmitConfig))
    defaults = AdmitConfig()
    for k, v in a.items():
        d = getattr(defaults, k)
        if isinstance(d, bool):
            ok, want = type(v) is bool, "true or false"
        elif isinstance(d, int):
            ok, want = type(v) is int and v >= 0, "a whole number of at least 0"
        else:
            ok, want = type(v) in (int, float) and math.isfinite(v) and v >= 0, "a number of at least 0"
        if not ok:
            raise ConfigError(f"[admit] {k} must be {want}, not {show(v)}", "admit", k)
    return AdmitConfig(**{k: float(v) if isinstance(getattr(defaults, k), float) else v for k, v in a.items()})


def parse(data: dict, base: Path, path: Path | None = None) -> EvolveConfig:
    """An EvolveConfig from the raw tables (ConfigError names the setting)."""
    unknown_sections(data, SECTIONS)
    p = dict(data.get("pool", {}))
    unknown_keys("pool", p, _fields(PoolSettings))
    _paths_plain("pool", p, ("dir", "seeds"))
    pool = PoolSettings(**p)
    pool = attrs.evolve(pool, dir=_resolve(base, pool.dir),
                        seeds=tuple(s if s == STDLIB else _resolve(base, s) for s in pool.seeds))
    g = dict(data.get("generator", {}))
    unknown_keys("generator", g, _fields(GeneratorSettings))
    _paths_plain("generator", g, ("model", "endpoint", "served_model"))
    gen = GeneratorSettings(**g)
    gen = attrs.evolve(gen, model=_model_path(base, gen.model))
    r = dict(data.get("reward", {}))
    unknown_keys("reward", r, _fields(RewardSettings))
    if "penalty" in r:
        check_penalty(r["penalty"])  # the table as written, before the defaults fill it
    return EvolveConfig(path=path, pool=pool, generator=gen, admit=_admit(dict(data.get("admit", {}))),
                        reward=RewardSettings(**r), train=dict(data.get("train", {})))


def load(path: str | Path) -> EvolveConfig:
    """Read and check an evolve TOML; an error says file:line."""
    p = Path(path)
    text_, data = read_toml(p)
    try:
        return parse(data, p.resolve().parent, p)
    except ConfigError as e:
        if e.section == "reward.penalty" and "[reward.penalty]" not in text_:
            e = ConfigError(e.message, "reward", "penalty")  # an inline table: point at its line
        raise locate(e, p, text_) from None
