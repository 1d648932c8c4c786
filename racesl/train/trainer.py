"""From a TrainConfig to a running TRL GRPOTrainer (imports torch, transformers, trl).

`grpo_config` maps the config onto TRL 1.16's `GRPOConfig`; `build` makes the dataset,
reward, curriculum and trainer; `train` runs it and writes a summary.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib.util
import json
import os
import time
from pathlib import Path

import attrs

from racesl.text import plural
from racesl.train.config import STDLIB, TrainConfig

VLLM_RANGE = ("0.22", "0.31")  # what TRL 1.16 supports


class TrainError(RuntimeError):
    """A setup problem to report in one line (no traceback)."""


# ------------------------------------------------------------ environment


def world_size() -> int:
    return int(os.environ.get("WORLD_SIZE", "1"))


def prepare_single_process_distributed() -> None:
    """DeepSpeed wants torch.distributed even in one process: give it a one-rank world on
    loopback when no launcher did, and the CPU accelerator with gloo when there is no GPU."""
    if "WORLD_SIZE" not in os.environ:
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        os.environ.update({"RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "1", "LOCAL_WORLD_SIZE": "1",
                           "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)})
    import torch

    if not torch.cuda.is_available():
        os.environ.setdefault("DS_ACCELERATOR", "cpu")
        if os.environ.get("WORLD_SIZE") == "1":
            # one process shares memory with nobody: skip the JIT build of DeepSpeed's CPU
            # shared-memory all-reduce (minutes of C++ compiling on first use); gloo does the rest
            try:
                import deepspeed.ops

                deepspeed.ops.__compatible_ops__["deepspeed_shm_comm"] = False
            except (ImportError, AttributeError, TypeError):
                pass


def check_vllm(cfg: TrainConfig) -> None:
    if not cfg.vllm.enabled:
        return
    if importlib.util.find_spec("vllm") is None:
        raise TrainError("[vllm] enabled = true, but vLLM is not installed. Install it with "
                         "pip install -e '.[vllm]' in the racesl checkout (TRL 1.16 supports vLLM "
                         f"{VLLM_RANGE[0]}–{VLLM_RANGE[1]}), or set [vllm] enabled = false to generate "
                         "with transformers.")
    from importlib.metadata import version

    from packaging.version import Version

    v = Version(Version(version("vllm")).base_version)
    if not (Version(VLLM_RANGE[0]) <= v < Version("0.32")):
        raise TrainError(f"vLLM {v} is installed, but TRL 1.16 supports vLLM {VLLM_RANGE[0]}–{VLLM_RANGE[1]}: "
                         "pip install -e '.[vllm]' in the racesl checkout")


# ------------------------------------------------------------ GRPOConfig


def grpo_kwargs(cfg: TrainConfig, output_dir: str | None = None, max_steps: int | None = None,
                streaming: bool | None = None) -> dict:
    """Keyword arguments for GRPOConfig (no torch needed to compute them)."""
    kw = dict(cfg.grpo)
    kw["output_dir"] = output_dir or cfg.launch.output_dir
    kw["seed"] = cfg.compile.seed
    if max_steps is not None:
        kw["max_steps"] = max_steps
    mcl = cfg.max_completion_length
    if mcl is not None:
        kw["max_completion_length"] = mcl
    if streaming is None:
        streaming = cfg.data.source == "stream" or cfg.curriculum.enabled
    if streaming:
        # an endless stream has no length: it needs max_steps, and it must not be shuffled
        # (a buffered shuffle would reorder tasks the curriculum already moved past)
        steps = kw.get("max_steps")
        if not isinstance(steps, int) or steps <= 0:
            raise TrainError("a streamed dataset has no end: set [grpo] max_steps or pass --max-steps")
        kw["shuffle_dataset"] = False
        kw["dataloader_num_workers"] = 0  # the stream reads the live curriculum: one process
    if cfg.updates_per_generation is not None:
        gbs = kw.get("generation_batch_size")
        if gbs is None:
            raise TrainError("[grpo] updates_per_generation needs generation_batch_size")
        per = kw.get("per_device_train_batch_size", 8) * world_size() * cfg.updates_per_generation
        if gbs % per:
            raise TrainError(f"generation_batch_size {gbs} is not divisible by per_device_train_batch_size × "
                             f"processes × updates_per_generation = {per}")
        kw["gradient_accumulation_steps"] = gbs // per
    kw["use_vllm"] = cfg.vllm.enabled
    if cfg.vllm.enabled:
        kw["vllm_mode"] = cfg.vllm.mode
    for k, v in cfg.vllm.settings.items():  # harmless without vLLM (importance sampling, ...)
        kw[f"vllm_{k}"] = v
    if cfg.launch.deepspeed:
        kw["deepspeed"] = cfg.launch.deepspeed
    init = {}
    if cfg.model.dtype:
        init["dtype"] = cfg.model.dtype
    if cfg.model.attn_implementation:
        init["attn_implementation"] = cfg.model.attn_implementation
    if init:
        kw["model_init_kwargs"] = init
    return kw


def grpo_config(cfg: TrainConfig, output_dir: str | None = None, max_steps: int | None = None,
                streaming: bool | None = None):
    from trl import GRPOConfig

    kw = grpo_kwargs(cfg, output_dir, max_steps, streaming)
    fields = {f.name for f in dataclasses.fields(GRPOConfig) if f.init}
    bad = sorted(set(kw) - fields)
    if bad:
        hints = []
        for b in bad:
            close = difflib.get_close_matches(b, sorted(fields), n=1)
            hints.append(f"{b} (did you mean {close[0]}?)" if close else b)
        raise TrainError(f"[grpo]: not a GRPOConfig setting in TRL 1.16: {', '.join(hints)}")
    if kw.get("deepspeed"):
        prepare_single_process_distributed()
        import torch

        if not torch.cuda.is_available():
            kw.setdefault("ddp_backend", "gloo")
            kw.setdefault("use_cpu", True)
    try:
        return GRPOConfig(**kw)
    except (ValueError, TypeError) as e:
        raise TrainError(f"GRPO settings: {e}") from None


# ------------------------------------------------------------ data


def library_paths(cfg: TrainConfig) -> list[str]:
    from racesl import resources

    return [str(resources.stdlib_dir()) if p == STDLIB else p for p in cfg.data.paths]


def load_library(cfg: TrainConfig):
    from racesl.library import Library

    lib, checked = Library.from_paths(library_paths(cfg), cfg.data.include)
    if lib is None:
        from racesl.diagnostics import render_plain

        raise TrainError("the [data] sources do not compile:\n" + render_plain(checked.diagnostics))
    if not lib.envs:
        raise TrainError("the [data] sources define no environments")
    from racesl.catalogue.diagnose import refusals
    from racesl.runtime.watchdog import WATCHDOG

    with WATCHDOG.session():
        wrong = refusals(lib)  # prompts show the examples: check's E604, as compile refuses
    if wrong:
        from racesl.diagnostics import render_plain

        raise TrainError("a worked example in the [data] sources does not hold:\n" + render_plain(wrong))
    return lib


def load_task_file(path: str) -> list[dict]:
    from racesl.rewards.libraries import read_tasks

    try:
        return read_tasks(path)
    except ValueError as e:
        raise TrainError(str(e)) from None


def make_curriculum(cfg: TrainConfig, records: list[dict] | None = None):
    from racesl.curriculum import Curriculum

    ops = list(cfg.compile.operators)
    if records is not None:
        present = {r["operator"] for r in records}
        ops = [o for o in ops if o[0] in present]
        if not ops:
            raise TrainError("no task in the file has one of the configured operators")
    return Curriculum(ops, cfg.compile.max_level, cfg.curriculum)


@attrs.define
class Built:
    trainer: object
    source: object | None
    reward: object
    curriculum: object | None
    tokenizer: object
    args: object


def load_tokenizer(cfg: TrainConfig, model_path: str):
    from transformers import AutoTokenizer

    name = cfg.model.tokenizer or model_path
    try:
        tok = AutoTokenizer.from_pretrained(name, padding_side="left", truncation_side="left")
    except (OSError, ValueError) as e:
        raise TrainError(f"cannot load the tokenizer from {name}: {e}") from None
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    if cfg.model.chat and not getattr(tok, "chat_template", None):
        raise TrainError(f"the tokenizer at {name} has no chat template: add one, or set [model] chat = false "
                         "to feed plain-text prompts")
    return tok


def build(cfg: TrainConfig, *, model: str | None = None, output_dir: str | None = None,
          max_steps: int | None = None, echo=print) -> Built:
    from racesl.train import stream as S
    from racesl.train.callbacks import CurriculumCallback, RewardLogCallback, StreamStatsCallback
    from racesl.train.rewards import Observations, RacesReward

    model_path = model or cfg.model.path
    if not model_path:
        raise TrainError("no model: set [model] path or pass --model")
    if Path(model_path).expanduser().exists():
        model_path = str(Path(model_path).expanduser().resolve())
    check_vllm(cfg)
    curriculum_on = cfg.curriculum.enabled
    streaming = cfg.data.source == "stream" or curriculum_on
    args = grpo_config(cfg, output_dir, max_steps, streaming)
    tokenizer = load_tokenizer(cfg, model_path)
    keep = S.token_length_filter(tokenizer, cfg.max_prompt_length) if cfg.max_prompt_length else None

    records = load_task_file(cfg.data.tasks) if cfg.data.source == "file" else None
    curriculum = make_curriculum(cfg, records) if curriculum_on else None
    source = None
    if cfg.data.source == "stream":
        lib = load_library(cfg)
        from racesl.search.config import ConfigError
        from racesl.train.config import located

        try:
            source = S.TaskStream(lib, cfg.compile, curriculum, keep=keep, system_prompt=cfg.model.system_prompt,
                                  chat=cfg.model.chat, recorded=cfg.data.split)
        except ConfigError as e:  # an unknown name in [data] envs or exclude, or [weights]: file:line
            raise TrainError(str(located(e, cfg.path))) from None
        dataset = S.iterable_dataset(source)
    elif curriculum is not None:
        source = S.FileStream(records, curriculum, cfg.compile.seed, keep=keep,
                              system_prompt=cfg.model.system_prompt, chat=cfg.model.chat)
        dataset = S.iterable_dataset(source)
    else:
        from datasets import Dataset

        rows = [S.make_row(r, -1, cfg.model.system_prompt, cfg.model.chat) for r in records]
        if keep is not None:
            before = len(rows)
            rows = [r for r in rows if keep(r)]
            if before != len(rows):
                echo(f"dropped {before - len(rows)} of {plural(before, 'task')} longer than "
                     f"{cfg.max_prompt_length} prompt tokens")
        if not rows:
            raise TrainError("every task is longer than max_prompt_length")
        dataset = Dataset.from_list(rows)

    observations = Observations() if curriculum is not None else None
    reward = RacesReward(observations)
    resume = bool(cfg.launch.resume_from_checkpoint)
    callbacks = [StreamStatsCallback(source, reward),
                 RewardLogCallback(Path(args.output_dir) / "rewards.jsonl", resume=resume)]  # the learning curve
    if curriculum is not None:
        callbacks.append(CurriculumCallback(curriculum, observations, Path(args.output_dir) / "curriculum.jsonl",
                                            echo=echo))

    from trl import GRPOTrainer

    try:
        trainer = GRPOTrainer(model=model_path, reward_funcs=[reward], args=args, train_dataset=dataset,
                              processing_class=tokenizer, callbacks=callbacks)
    except OSError as e:
        raise TrainError(f"cannot load the model from {model_path}: {e}") from None
    if curriculum is not None and trainer.accelerator.is_main_process:
        start_curriculum_log(Path(args.output_dir) / "curriculum.jsonl", resume=bool(cfg.launch.resume_from_checkpoint))
    return Built(trainer, source, reward, curriculum, tokenizer, args)


def start_curriculum_log(path: Path, resume: bool) -> None:
    """Every run with a curriculum leaves curriculum.jsonl (one line per decision, written by
    CurriculumCallback), empty when no window filled; a resumed run appends to its lines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a" if resume else "w", encoding="utf-8"):
        pass


def _zero_stage(trainer) -> int | None:
    if not getattr(trainer, "is_deepspeed_enabled", False):
        return None
    plugin = trainer.accelerator.state.deepspeed_plugin
    return int(plugin.zero_stage) if plugin is not None else None


def train(cfg: TrainConfig, *, model: str | None = None, output_dir: str | None = None,
          max_steps: int | None = None, save: bool = True, echo=print) -> dict:
    """Train; returns (and writes to OUTPUT/races_summary.json) what happened."""
    built = build(cfg, model=model, output_dir=output_dir, max_steps=max_steps, echo=echo)
    trainer, args = built.trainer, built.args
    t0 = time.perf_counter()
    resume = cfg.launch.resume_from_checkpoint
    if resume and built.curriculum is not None:
        state = Path(resume) / "curriculum.json"
        if state.exists():
            built.curriculum.load_state_dict(json.loads(state.read_text("utf-8")))
    result = trainer.train(resume_from_checkpoint=resume)
    seconds = time.perf_counter() - t0
    if save:
        trainer.save_model(args.output_dir)
        if trainer.accelerator.is_main_process:
            built.tokenizer.save_pretrained(args.output_dir)
    summary = {
        "steps": trainer.state.global_step,
        "seconds": round(seconds, 3),
        "train_loss": getattr(result, "training_loss", None),
        "stream": built.source.stats.as_dict() if built.source is not None else None,
        "reward_seconds": round(built.reward.seconds, 3),
        "curriculum": built.curriculum.state_dict() if built.curriculum is not None else None,
        "curriculum_moves": [str(m) for m in built.curriculum.history] if built.curriculum is not None else [],
        "output_dir": str(args.output_dir),
        "deepspeed_zero_stage": _zero_stage(trainer),
        "world_size": trainer.accelerator.num_processes,
    }
    if trainer.accelerator.is_main_process:
        out = Path(args.output_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "races_summary.json").write_text(json.dumps(summary, indent=1), "utf-8")
    return summary
