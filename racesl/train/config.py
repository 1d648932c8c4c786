"""The training configuration: one TOML file for the model, the data (streamed or
precompiled tasks), operators and sizes, the curriculum, GRPO and launch settings.

Reading it needs no torch; `racesl.train.trainer.grpo_config` turns it into TRL's
`GRPOConfig`. Paths in the file are relative to the file, except `launch.output_dir`
(relative to where you run). Sections:

    [model]       path, dtype, attn_implementation, system_prompt, chat
    [data]        source ("stream" | "file"), paths, include, tasks, seed, max_level,
                  expansions, restarts, distractors, batch, solver
    [operators]   as in races.toml: sequential = "2-12", ...
    [filters]     as in races.toml
    [templates]   as in races.toml
    [curriculum]  racesl.curriculum.CurriculumConfig fields
    [grpo]        any GRPOConfig field, plus racesl's: max_prompt_length, context_length,
                  updates_per_generation
    [vllm]        enabled, mode ("colocate" | "server"), and vllm_* settings without the prefix
    [launch]      output_dir, deepspeed, accelerate_config, resume_from_checkpoint
"""

from __future__ import annotations

import difflib
import tomllib
from pathlib import Path
from typing import Any

import attrs

from racesl.curriculum import CurriculumConfig, CurriculumError
from racesl.search.config import CompileConfig, ConfigError, from_toml

SECTIONS = ("model", "data", "operators", "filters", "templates", "curriculum", "grpo", "vllm", "launch")
MODEL_KEYS = ("path", "dtype", "attn_implementation", "system_prompt", "chat", "tokenizer")
DATA_KEYS = ("source", "paths", "include", "tasks", "seed", "max_level", "expansions", "restarts", "distractors",
             "batch", "solver")
COMPILE_KEYS = ("seed", "max_level", "expansions", "restarts", "distractors", "batch", "solver")
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


class TrainConfigError(ValueError):
    pass


def _check_keys(section: str, table: dict, known) -> None:
    bad = sorted(set(table) - set(known))
    if bad:
        hints = []
        for b in bad:
            close = difflib.get_close_matches(b, list(known), n=1)
            hints.append(f"{b} (did you mean {close[0]}?)" if close else b)
        raise TrainConfigError(f"unknown setting(s) in [{section}]: {', '.join(hints)}")


@attrs.frozen
class ModelConfig:
    path: str = ""
    dtype: str = "auto"
    attn_implementation: str | None = None
    system_prompt: str | None = None
    chat: bool = True  # conversational prompts (the tokenizer's chat template); false: plain text
    tokenizer: str | None = None  # default: the model's folder


@attrs.frozen
class DataConfig:
    source: str = "stream"
    paths: tuple[str, ...] = ()
    include: tuple[str, ...] = ()
    tasks: str | None = None


@attrs.frozen
class VllmConfig:
    enabled: bool = False
    mode: str = "colocate"
    settings: dict = attrs.field(factory=dict)  # vllm_* GRPOConfig fields, without the prefix


@attrs.frozen
class LaunchConfig:
    output_dir: str = "runs/races"
    deepspeed: str | None = None
    accelerate_config: str | None = None
    resume_from_checkpoint: str | None = None


@attrs.frozen
class TrainConfig:
    path: Path | None
    model: ModelConfig
    data: DataConfig
    compile: CompileConfig
    curriculum: CurriculumConfig
    grpo: dict  # GRPOConfig keyword arguments (validated against GRPOConfig when it is built)
    max_prompt_length: int | None
    context_length: int | None
    updates_per_generation: int | None
    vllm: VllmConfig
    launch: LaunchConfig

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
    """`section.key=value` (value as TOML, else a string) into a copy of the raw tables."""
    out = {k: dict(v) if isinstance(v, dict) else v for k, v in data.items()}
    for item in overrides:
        key, sep, text = item.partition("=")
        section, dot, name = key.strip().partition(".")
        if not sep or not dot or not name:
            raise TrainConfigError(f"--set wants SECTION.KEY=VALUE, e.g. grpo.learning_rate=1e-6 (got '{item}')")
        if section not in SECTIONS:
            raise TrainConfigError(f"--set: unknown section '{section}' (sections: {', '.join(SECTIONS)})")
        out.setdefault(section, {})[name] = _parse_value(text.strip())
    return out


def parse(data: dict, base: Path, path: Path | None = None) -> TrainConfig:
    bad = sorted(set(data) - set(SECTIONS))
    if bad:
        raise TrainConfigError(f"unknown section(s): {', '.join(bad)} (sections: {', '.join(SECTIONS)})")
    for name in SECTIONS:
        if name in data and not isinstance(data[name], dict):
            raise TrainConfigError(f"[{name}] must be a table")

    m = dict(data.get("model", {}))
    _check_keys("model", m, MODEL_KEYS)
    if m.get("dtype", "auto") not in DTYPES:
        raise TrainConfigError(f"[model] dtype must be one of {', '.join(DTYPES)}")
    model = ModelConfig(path=_model_path(base, str(m.get("path", ""))), dtype=m.get("dtype", "auto"),
                        attn_implementation=m.get("attn_implementation"), system_prompt=m.get("system_prompt"),
                        chat=bool(m.get("chat", True)),
                        tokenizer=_model_path(base, m["tokenizer"]) if m.get("tokenizer") else None)

    d = dict(data.get("data", {}))
    _check_keys("data", d, DATA_KEYS)
    source = d.get("source", "stream")
    if source not in ("stream", "file"):
        raise TrainConfigError("[data] source must be \"stream\" (compile tasks on the fly) or \"file\"")
    if source == "file" and not d.get("tasks"):
        raise TrainConfigError("[data] source = \"file\" needs tasks = \"path/to/tasks.jsonl\" (or .parquet)")
    paths = tuple(p if p == STDLIB else _resolve(base, p) for p in d.get("paths", [STDLIB]))
    data_cfg = DataConfig(source=source, paths=paths,
                          include=tuple(_resolve(base, p) for p in d.get("include", [])),
                          tasks=_resolve(base, d["tasks"]) if d.get("tasks") else None)

    races = {"compile": {k: d[k] for k in COMPILE_KEYS if k in d}}
    for name in ("operators", "filters", "templates"):
        if name in data:
            races[name] = data[name]
    try:
        ckw = from_toml(races, base)
        compile_cfg = CompileConfig(**ckw)
        curriculum = CurriculumConfig.from_dict(data.get("curriculum", {}))
    except (ConfigError, CurriculumError, TypeError) as e:
        raise TrainConfigError(str(e)) from None

    g = dict(data.get("grpo", {}))
    for key, where in MOVED.items():
        if key in g:
            raise TrainConfigError(f"[grpo] {key}: set it as {where}")
    max_prompt = g.pop("max_prompt_length", None)
    context = g.pop("context_length", None)
    updates = g.pop("updates_per_generation", None)
    for key, val in (("max_prompt_length", max_prompt), ("context_length", context),
                     ("updates_per_generation", updates)):
        if val is not None and (not isinstance(val, int) or val < 1):
            raise TrainConfigError(f"[grpo] {key} must be a positive integer")
    if context is not None and (max_prompt or 0) >= context:
        raise TrainConfigError("[grpo] context_length must exceed max_prompt_length")
    if updates is not None and "gradient_accumulation_steps" in g:
        raise TrainConfigError("[grpo] set either updates_per_generation or gradient_accumulation_steps")

    v = dict(data.get("vllm", {}))
    _check_keys("vllm", v, VLLM_KEYS)
    mode = v.pop("mode", "colocate")
    if mode not in ("colocate", "server"):
        raise TrainConfigError("[vllm] mode must be \"colocate\" or \"server\"")
    vllm = VllmConfig(enabled=bool(v.pop("enabled", False)), mode=mode, settings=v)

    la = dict(data.get("launch", {}))
    _check_keys("launch", la, LAUNCH_KEYS)
    ds = la.get("deepspeed")
    launch = LaunchConfig(output_dir=str(la.get("output_dir", "runs/races")),
                          deepspeed=_resolve(base, ds) if isinstance(ds, str) else None,
                          accelerate_config=_resolve(base, la["accelerate_config"]) if la.get("accelerate_config")
                          else None,
                          resume_from_checkpoint=la.get("resume_from_checkpoint"))
    return TrainConfig(path=path, model=model, data=data_cfg, compile=compile_cfg, curriculum=curriculum, grpo=g,
                       max_prompt_length=max_prompt, context_length=context, updates_per_generation=updates,
                       vllm=vllm, launch=launch)


def load(path: str | Path, overrides: list[str] = ()) -> TrainConfig:
    p = Path(path)
    try:
        with p.open("rb") as f:
            data = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise TrainConfigError(f"{p}: {e}") from None
    except OSError as e:
        raise TrainConfigError(f"cannot read {p}: {e.strerror}") from None
    if overrides:
        data = apply_overrides(data, list(overrides))
    return parse(data, p.resolve().parent, p)
