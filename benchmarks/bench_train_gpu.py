"""GRPO step time on a GPU, and the share of it that is racesl's: building tasks (the
stream) and scoring completions (the reward).

The smoke test's run (train/tiny.toml: streamed stdlib tasks, curriculum on) in bf16 under
DeepSpeed ZeRO-3 (train/deepspeed/zero3.json), in one process on one GPU, on a small
random Qwen2 built here (nothing is downloaded). Needs a CUDA GPU and the `train` extra.

    python benchmarks/bench_train_gpu.py [--steps 12] [--warmup 2] [--hidden 256] [--layers 4]
        [--prompts 16] [--generations 8] [--completion 128]

Reports the median wall time between consecutive optimizer steps after `--warmup` steps
(data loading, generation, scoring and the update all fall inside it), and the parts of
that time spent in the task stream and in the reward function.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

from _common import ROOT, figure, median, write_result

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--prompts", type=int, default=16, help="prompts per generation batch")
    ap.add_argument("--generations", type=int, default=8, help="completions per prompt")
    ap.add_argument("--completion", type=int, default=128, help="max completion tokens")
    ap.add_argument("--stage", type=int, choices=(2, 3), default=3, help="DeepSpeed ZeRO stage")
    ap.add_argument("--cpu", action="store_true",
                    help="check the script on a CPU (fp32; ZeRO-2 unless --stage 3); writes no results file")
    args = ap.parse_args()
    started = time.perf_counter()

    import torch

    cuda = torch.cuda.is_available() and not args.cpu
    if not cuda and not args.cpu:
        print("bench_train_gpu: needs a CUDA GPU (or --cpu to check the script)", file=sys.stderr)
        return 2
    if args.cpu:
        torch.set_num_threads(1)
    from transformers import TrainerCallback

    from racesl.train.config import load
    from racesl.train.tiny import save_tiny
    from racesl.train.trainer import build

    tmp = tempfile.mkdtemp(prefix="races-bench-")
    model_dir = save_tiny(os.path.join(tmp, "model"), vocab_size=1024, hidden=args.hidden, layers=args.layers,
                          heads=max(4, args.hidden // 64), kv_heads=2)
    n_params = sum(p.numel() for p in __import__("transformers").AutoModelForCausalLM.from_pretrained(
        model_dir).parameters())

    gbs = args.prompts * args.generations
    precision = ["grpo.bf16=true", "grpo.use_cpu=false", "model.dtype=\"bfloat16\""] if cuda else \
        ["grpo.bf16=false", "grpo.use_cpu=true", "model.dtype=\"float32\""]
    cfg = load(ROOT / "train" / "tiny.toml", precision + [
        f"grpo.num_generations={args.generations}",
        f"grpo.generation_batch_size={gbs}", f"grpo.per_device_train_batch_size={gbs}",
        f"grpo.max_completion_length={args.completion}", "grpo.logging_steps=1", "grpo.disable_tqdm=true",
        f"launch.deepspeed=\"deepspeed/zero{args.stage}.json\"",
        "curriculum.window=64",
    ])

    class Clock(TrainerCallback):
        """Wall time between optimizer steps, with the stream's and reward's seconds."""

        def __init__(self):
            self.marks: list[tuple[float, float, float]] = []

        def on_train_begin(self, a, state, control, **kw):
            self.marks.append(self.now())

        def on_step_end(self, a, state, control, **kw):
            if cuda:
                torch.cuda.synchronize()
            self.marks.append(self.now())

        def now(self):
            return (time.perf_counter(), built.source.stats.seconds if built.source else 0.0, built.reward.seconds)

    built = build(cfg, model=str(model_dir), output_dir=os.path.join(tmp, "run"), max_steps=args.steps,
                  echo=lambda m: None)
    clock = Clock()
    built.trainer.add_callback(clock)
    stage = built.trainer.accelerator.state.deepspeed_plugin.zero_stage if built.trainer.is_deepspeed_enabled \
        else None
    built.trainer.train()

    steps = [(b[0] - a[0], b[1] - a[1], b[2] - a[2]) for a, b in zip(clock.marks, clock.marks[1:])]
    timed = steps[args.warmup:] or steps
    step_s = median([s for s, _, _ in timed])
    total = sum(s for s, _, _ in timed)
    stream_share = sum(t for _, t, _ in timed) / total
    reward_share = sum(r for _, _, r in timed) / total
    figures = [
        figure(f"GRPO step, {'bf16' if cuda else 'fp32 CPU'} ZeRO-{stage}, 1 {'GPU' if cuda else 'process'}", round(step_s, 4), "s",
               note=f"{n_params / 1e6:.1f}M-param random Qwen2, {args.prompts}×{args.generations} completions "
                    f"of ≤{args.completion} tokens"),
        figure("share of step building tasks", round(100 * stream_share, 2), "%"),
        figure("share of step scoring", round(100 * reward_share, 2), "%"),
    ]
    details = {
        "steps": [{"seconds": round(s, 4), "stream_s": round(t, 4), "reward_s": round(r, 4)} for s, t, r in steps],
        "warmup": args.warmup, "zero_stage": stage, "params": n_params,
        "gpu": torch.cuda.get_device_name(0) if cuda else None,
        "torch": torch.__version__, "stream": built.source.stats.as_dict() if built.source else None,
        "curriculum": built.curriculum.state_dict() if built.curriculum else None,
        "versions": {m: __import__(m).__version__ for m in ("transformers", "trl", "accelerate", "deepspeed",
                                                            "datasets")},
    }
    for f in figures:
        print(f"{f['figure']}: {f['value']} {f['unit']}" + (f"  ({f['note']})" if f.get("note") else ""))
    if cuda:
        print(f"wrote {write_result('train_gpu', figures, details, started)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
