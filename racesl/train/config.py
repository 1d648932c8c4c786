"""The training configuration: one TOML file for the model, the data (streamed or
precompiled tasks), operators and sizes, the curriculum, GRPO and launch settings.

Reading it needs no torch; `racesl.train.trainer.grpo_config` turns it into TRL's
`GRPOConfig`. Paths in the file are relative to the file, except `launch.output_dir`
(relative to where you run). Every section refuses keys it does not know (with the closest
known one as a suggestion) and checks each value's type and range, `--set` values too.
Sections:

    [model]       path, dtype, attn_implementation, system_prompt, chat, tokenizer
    [data]        source ("stream" | "file"), paths, include, tasks, seed, max_level,
                  expansions, restarts, distractors, batch, quota_slack, solver, envs, exclude,
                  holdout, part, split (a task file whose recorded split the stream must match)
    [operators]   as in races.toml: sequential = "2-12", individual = "1", ...
    [weights]     as in races.toml: "module" = 2.0, "module.env" = 0.5
    [filters]     as in races.toml
    [templates]   as in races.toml
    [curriculum]  racesl.curriculum.CurriculumConfig fields; the section turns it on
    [grpo]        any GRPOConfig field, plus racesl's: max_prompt_length, context_length,
                  updates_per_generation
    [vllm]        enabled, mode ("colocate" | "server"), and vllm_* settings without the prefix
    [launch]      output_dir, deepspeed, accelerate_config, resume_from_checkpoint
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, ClassVar

import attrs

from racesl.curriculum import CurriculumConfig
from racesl.search.config import (CompileConfig, ConfigError, as_tuple, flag, from_toml, locate, maybe_text, one_of,
                                  read_toml, show, text, texts, unknown_keys, unknown_sections)

SECTIONS = ("model", "data", "operators", "filters", "templates", "weights", "curriculum", "grpo", "vllm",
            "launch")
MODEL_KEYS = ("path", "dtype", "attn_implementation", "system_prompt", "chat", "tokenizer")
COMPILE_KEYS = ("seed", "max_level", "expansions", "restarts", "distractors", "batch", "quota_slack", "solver",
                "envs", "exclude", "holdout", "part")
DATA_KEYS = ("source", "paths", "include", "tasks", "split", *COMPILE_KEYS)
VLLM_KEYS = ("enabled", "mode", "model_impl", "enable_sleep_mode", "server_base_url", "server_host", "server_port",
             "server_timeout", "group_port", "gpu_memory_utilization", "max_model_length", "tensor_parallel_size",
             "importance_sampling_correction", "importance_sampling_mode", "importance_sampling_clip_max",
             "importance_sampling_clip_min", "structured_outputs_regex")
LAUNCH_KEYS = ("output_dir", "deepspeed", "accelerate_config", "resume_from_checkpoint")
# [grpo] keys racesl handles itself (TRL 1.16 has no max_prompt_length)
RACESL_GRPO_KEYS = ("max_prompt_length", "context_length", "updates_per_generation")
# GRPOConfig fields that belong to another section
MOVED = {"use_vllm": "[vllm] enabled", "vllm_mode": "[vllm] mode", "output_dir": "[launch] output_dir",
         "deepspeed": "[launch] deepspeed", "model_init_kwargs": "[model]", "seed": "[data] seed"}
DTYPES = ("auto", "float32", "bfloat16", "float16")
STDLIB = "stdlib"  # in [data] paths: the bundled standard library

# one error type for every config: the CLI prints it as `racesc: error: ...` (exit 2)
TrainConfigError = ConfigError


@attrs.frozen
class ModelConfig:
    SECTION: ClassVar[str] = "model"

    path: str = attrs.field(default="", validator=text)
    dtype: str = attrs.field(default="auto", validator=one_of(*DTYPES))
    attn_implementation: str | None = attrs.field(default=None, validator=maybe_text)
    system_prompt: str | None = attrs.field(default=None, validator=maybe_text)
    # conversational prompts (the tokenizer's chat template); false: plain text
    chat: bool = attrs.field(default=True, validator=flag)
    tokenizer: str | None = attrs.field(default=None, validator=maybe_text)  # default: the model's folder


@attrs.frozen
class DataConfig:
    SECTION: ClassVar[str] = "data"

    source: str = attrs.field(default="stream", validator=one_of("stream", "file"))
    paths: tuple[str, ...] = attrs.field(default=(), converter=as_tuple, validator=texts)
    include: tuple[str, ...] = attrs.field(default=(), converter=as_tuple, validator=texts)
    tasks: str | None = attrs.field(default=None, validator=maybe_text)
    # a task file (or --format hf folder) of a held-out split: the stream refuses to start unless it
    # holds out what that file's sidecar records (racesl.search.holdout.Split.differences)
    split: str | None = attrs.field(default=None, validator=maybe_text)


@attrs.frozen
class VllmConfig:
    SECTION: ClassVar[str] = "vllm"

    enabled: bool = attrs.field(default=False, validator=flag)
    mode: str = attrs.field(default="colocate", validator=one_of("colocate", "server"))
    settings: dict = attrs.field(factory=dict)  # vllm_* GRPOConfig fields, without the prefix (TRL checks them)


@attrs.frozen
class LaunchConfig:
    SECTION: ClassVar[str] = "launch"

    output_dir: str = attrs.field(default="runs/races", validator=text)
    deepspeed: str | None = attrs.field(default=None, validator=maybe_text)
    accelerate_config: str | None = attrs.field(default=None, validator=maybe_text)
    resume_from_checkpoint: str | None = attrs.field(default=None, validator=maybe_text)


def _grpo_count(_inst, attr, value) -> None:
    if value is not None and (type(value) is not int or value < 1):
        raise ConfigError(f"[grpo] {attr.name} must be a whole number of at least 1, not {show(value)}",
                          "grpo", attr.name)


@attrs.frozen
class TrainConfig:
    path: Path | None
    model: ModelConfig
    data: DataConfig
    compile: CompileConfig
    curriculum: CurriculumConfig
    grpo: dict  # GRPOConfig keyword arguments (validated against GRPOConfig when it is built)
    max_prompt_length: int | None = attrs.field(validator=_grpo_count)
    context_length: int | None = attrs.field(validator=_grpo_count)
    updates_per_generation: int | None = attrs.field(validator=_grpo_count)
    vllm: VllmConfig
    launch: LaunchConfig

    def __attrs_post_init__(self):
        # after the validators: both lengths are whole numbers here
        if self.context_length is not None and (self.max_prompt_length or 0) >= self.context_length:
            raise ConfigError("[grpo] context_length must exceed max_prompt_length", "grpo", "context_length")
        if self.updates_per_generation is not None and "gradient_accumulation_steps" in self.grpo:
            raise ConfigError("[grpo] set either updates_per_generation or gradient_accumulation_steps",
                              "grpo", "updates_per_generation")

    @property
    def max_completion_length(self) -> int | None:
        """[grpo] max_completion_length, else context_length - max_prompt_length."""
        if "max_completion_length" in self.grpo:
            return self.grpo["max_completion_length"]
        if self.context_length is not None:
            return self.context_length - (self.max_prompt_length or 0)
        return None


def _resolve(base: Path, p: str) -> str:
    q = Path(p).expanduser()
    return str(q if q.is_absolute() else (base / q).resolve())


def _model_path(base: Path, p: str) -> str:
    """A folder relative to the config file, else to the current directory, else a hub id."""
    if not p:
        return p
    q = Path(p).expanduser()
    if q.is_absolute():
        return str(q)
    if (base / q).exists():
        return str((base / q).resolve())
    if q.exists():
        return str(q.resolve())
    return p


def _parse_value(text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_overrides(data: dict, overrides: list[str]) -> dict:
    """`section.key=value` (value as TOML, else a string) into a copy of the raw tables;
    `parse` then checks them like the file's own settings."""
    out = {k: dict(v) if isinstance(v, dict) else v for k, v in data.items()}
    for item in overrides:
        section, name, value = _override(item)
        out.setdefault(section, {})[name] = value
    return out


def _override(item: str) -> tuple[str, str, Any]:
    key, sep, text_ = item.partition("=")
    section, dot, name = key.strip().partition(".")
    name = name.strip()
    if not sep or not dot or not name:
        raise ConfigError(f"--set wants SECTION.KEY=VALUE, e.g. grpo.learning_rate=1e-6 (got '{item}')")
    try:
        unknown_sections({section: {}}, SECTIONS)
    except ConfigError as e:
        raise e.located("--set") from None
    return section, name, _parse_value(text_.strip())


def _model(m: dict, base: Path) -> ModelConfig:
    unknown_keys("model", m, MODEL_KEYS)
    raw = ModelConfig(**m)  # types first, then paths
    return attrs.evolve(raw, path=_model_path(base, raw.path),
                        tokenizer=_model_path(base, raw.tokenizer) if raw.tokenizer else None)


def _data(d: dict, base: Path) -> DataConfig:
    unknown_keys("data", d, DATA_KEYS)
    raw = DataConfig(**{k: d[k] for k in ("source", "paths", "include", "tasks", "split") if k in d})
    if raw.source == "file" and not raw.tasks:
        raise ConfigError("[data] source = \"file\" needs tasks = \"path/to/tasks.jsonl\" (or .parquet)",
                          "data", "source")
    if raw.split and (raw.source != "stream" or "holdout" not in d):
        raise ConfigError("[data] split names the other part of a held-out split for the stream to match: it needs "
                          "source = \"stream\" and holdout (with the seed that part was compiled with)", "data", "split")
    paths = raw.paths if "paths" in d else (STDLIB,)
    return DataConfig(source=raw.source, paths=tuple(p if p == STDLIB else _resolve(base, p) for p in paths),
                      include=tuple(_resolve(base, p) for p in raw.include),
                      tasks=_resolve(base, raw.tasks) if raw.tasks else None,
                      split=_resolve(base, raw.split) if raw.split else None)


def _compile(data: dict, base: Path) -> CompileConfig:
    """[data]'s compile settings with [operators], [filters] and [templates], checked as in
    races.toml; an error names the train TOML's section ([data], not [compile])."""
    d = data.get("data", {})
    races = {"compile": {k: d[k] for k in COMPILE_KEYS if k in d}}
    races.update({k: data[k] for k in ("operators", "filters", "templates", "weights") if k in data})
    try:
        return CompileConfig(**from_toml(races, base))
    except ConfigError as e:
        raise (e.moved("data") if e.section == "compile" else e) from None


def located(err: ConfigError, path: Path | None) -> ConfigError:
    """An error found after loading (an unknown name in [data] envs or exclude, or in
    [weights], once the library is known), with the train TOML's file:line."""
    err = err.moved("data") if err.section == "compile" else err
    if path is None or err.section is None:
        return err
    try:
        text_ = Path(path).read_text(encoding="utf-8")
    except OSError:
        text_ = ""
    return locate(err, Path(path), text_)


def _grpo(g: dict) -> tuple[dict, dict]:
    """(GRPOConfig keyword arguments, racesl's own [grpo] settings)."""
    for key, where in MOVED.items():
        if key in g:
            raise ConfigError(f"[grpo] {key}: set it as {where}", "grpo", key)
    ours = {k: g.pop(k, None) for k in RACESL_GRPO_KEYS}
    mcl = g.get("max_completion_length")
    if mcl is not None and (type(mcl) is not int or mcl < 1):
        raise ConfigError(f"[grpo] max_completion_length must be a whole number of at least 1, not {show(mcl)}",
                          "grpo", "max_completion_length")
    return g, ours


def _vllm(v: dict) -> VllmConfig:
    unknown_keys("vllm", v, VLLM_KEYS)
    own = {k: v.pop(k) for k in ("enabled", "mode") if k in v}
    return VllmConfig(settings=v, **own)


def _launch(la: dict, base: Path) -> LaunchConfig:
    unknown_keys("launch", la, LAUNCH_KEYS)
    raw = LaunchConfig(**la)
    return attrs.evolve(raw, deepspeed=_resolve(base, raw.deepspeed) if raw.deepspeed else None,
                        accelerate_config=_resolve(base, raw.accelerate_config) if raw.accelerate_config else None)


def parse(data: dict, base: Path, path: Path | None = None) -> TrainConfig:
    """A TrainConfig from the raw tables; every section and value checked (ConfigError)."""
    unknown_sections(data, SECTIONS)
    curriculum = CurriculumConfig.from_dict(data["curriculum"]) if "curriculum" in data else CurriculumConfig()
    grpo, ours = _grpo(dict(data.get("grpo", {})))
    return TrainConfig(path=path, model=_model(dict(data.get("model", {})), base),
                       data=_data(dict(data.get("data", {})), base), compile=_compile(data, base),
                       curriculum=curriculum, grpo=grpo, **ours, vllm=_vllm(dict(data.get("vllm", {}))),
                       launch=_launch(dict(data.get("launch", {})), base))


def load(path: str | Path, overrides: list[str] = ()) -> TrainConfig:
    """Read, override and check a train TOML; an error says file:line, or `--set` for a
    setting the command line gave."""
    p = Path(path)
    text_, data = read_toml(p)
    given = {_override(o)[:2] for o in overrides}
    data = apply_overrides(data, list(overrides))
    try:
        return parse(data, p.resolve().parent, p)
    except ConfigError as e:
        if (e.section, e.key) in given or (e.key is None and any(s == e.section for s, _ in given)):
            raise e.located("--set") from None
        raise locate(e, p, text_) from None
