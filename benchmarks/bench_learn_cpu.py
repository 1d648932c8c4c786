"""Does `racesc train` teach a real model anything? A learning run on the CPU, held-out tasks.

    .venv/bin/python benchmarks/smollm2.py                 # once: SmolLM2-135M-Instruct → out/smollm2-135m
    .venv/bin/python benchmarks/bench_learn_cpu.py         # ~60 min on an idle 2-core machine
    .venv/bin/python benchmarks/bench_learn_cpu.py --smoke # the same path: 2 steps, 20 held-out tasks
    .venv/bin/python benchmarks/bench_learn_cpu.py --smoke --model /tmp/tiny   # CI (python -m racesl.train.tiny)

What it does, every step through the project's own commands (as a user would run them):
1. `racesc compile` a training file (seed 1) and a held-out file (seed 2, >= 200 tasks) from the
   family the training config names ([data] envs at [data] max_level, with [operators]); training
   tasks whose prompt the held-out file also has are dropped, and the script asserts that the two
   files share no task id and no prompt;
2. `racesc eval --json` of the base model on the held-out file (`before`), with the training
   config's prompts (its [model] chat and system_prompt) and its max_completion_length, greedy;
3. `racesc train CONFIG` (TRL GRPO on the CPU: float32, transformers generation, no DeepSpeed,
   no vLLM), which writes `rewards.jsonl` (the mean reward of every step);
4. `racesc eval --json` of the trained model on the same held-out file (`after`).

Writes benchmarks/results/learn_cpu.json (before, after, the config, the reward per step, wall
times per phase, the load average at start and end) and learn_cpu.png (reward per step; pass@1
before and after by operator with 95% intervals). `--smoke` writes learn_cpu_smoke.* instead. The
result counts when after's 95% interval lies above before's (`details.after_above_before`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from _common import RESULTS, ROOT, figure, machine

CONFIG = ROOT / "train" / "learn_cpu.toml"
MODEL = ROOT / "out" / "smollm2-135m"
HELD_OUT, TRAIN_TASKS = 200, 400
SMOKE_HELD_OUT, SMOKE_TRAIN_TASKS, SMOKE_STEPS = 20, 20, 2
TRAIN_SEED_KEY = "seed"  # [data] seed: the training file's; the held-out file gets seed + 1


def racesc(*args: str, capture: bool = False) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "racesl", *args]
    print("$ racesc " + " ".join(args), flush=True)
    res = subprocess.run(cmd, check=False, cwd=ROOT, text=True, capture_output=capture)
    if res.returncode != 0:
        err = (res.stderr or "")[-3000:] if capture else ""
        raise SystemExit(f"racesc {args[0]} failed (exit {res.returncode}) {err}")
    return res


def operator_spec(ops) -> str:
    return ",".join(f"{name}={lo}" if lo == hi else f"{name}={lo}-{hi}" for name, lo, hi in ops)


def compile_family(cfg, work: Path, n: int, seed: int, out: Path) -> Path:
    """`racesc compile` of the config's family: its envs file and max_level in a races.toml."""
    toml = work / "races.toml"
    envs = f'envs = "{cfg.compile.envs}"\n' if cfg.compile.envs else ""
    toml.write_text(f"[compile]\nmax_level = {cfg.compile.max_level}\n{envs}", "utf-8")
    racesc("compile", *cfg.data.paths, "--config", str(toml), "-n", str(n), "--seed", str(seed),
           "--operators", operator_spec(cfg.compile.operators), "-o", str(out), "--no-audit", "-q")
    return out


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def disjoint_train(train_raw: Path, held: Path, out: Path) -> dict:
    """Write the training tasks minus any whose prompt the held-out file has; assert no id or
    prompt in common; copy the sidecar library (the reward finds it next to the file)."""
    held_recs = read_jsonl(held)
    held_ids = {r["id"] for r in held_recs}
    held_prompts = {r["prompt"] for r in held_recs}
    train = read_jsonl(train_raw)
    kept = [r for r in train if r["prompt"] not in held_prompts]
    assert not held_ids & {r["id"] for r in kept}, "a task id is in both files"
    assert not held_prompts & {r["prompt"] for r in kept}, "a prompt is in both files"
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept), "utf-8")
    for side in train_raw.parent.glob(train_raw.name + ".*"):
        shutil.copyfile(side, out.parent / (out.name + side.name[len(train_raw.name):]))
    return {"train_compiled": len(train), "train_kept": len(kept), "dropped_same_prompt": len(train) - len(kept),
            "held_out": len(held_recs), "common_ids": 0, "common_prompts": 0}


def evaluate(cfg, model: str, held: Path, n: int, out: Path, batch: int) -> dict:
    args = ["eval", model, "--tasks", str(held), "--n", str(n), "--max-new-tokens", str(cfg.max_completion_length),
            "--batch-size", str(batch), "--seed", "0", "--json", "-q", "-o", str(out)]
    if not cfg.model.chat:
        args.append("--no-chat")
    if cfg.model.system_prompt:
        args += ["--system-prompt", cfg.model.system_prompt]
    res = racesc(*args, capture=True)
    return json.loads(res.stdout)


def above(after: dict, before: dict) -> bool:
    return after["pass@1_ci"][0] > before["pass@1_ci"][1]


def plot(steps: list[dict], before: dict, after: dict, path: Path, title: str) -> Path | None:
    try:
        import matplotlib
    except ImportError:
        print("no matplotlib (the plot extra): no figure")
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    xs = [s["step"] for s in steps]
    ys = [s.get("reward", float("nan")) for s in steps]
    a.plot(xs, ys, "o-", ms=3, label="mean reward of the step")
    if len(ys) >= 5:
        w = 5
        roll = [sum(ys[max(0, i - w + 1):i + 1]) / len(ys[max(0, i - w + 1):i + 1]) for i in range(len(ys))]
        a.plot(xs, roll, "-", lw=2, label=f"running mean ({w} steps)")
    a.set_xlabel("GRPO step")
    a.set_ylabel("reward")
    a.set_title("training reward per step", fontsize=10)
    a.legend(fontsize=8)
    labels = [f"{c['operator']} {c['size']}" for c in before["cells"]] + ["all"]
    for k, (res, name) in enumerate(((before, "before"), (after, "after"))):
        cells = {(c["operator"], c["size"]): c for c in res["cells"]}
        vals, lo, hi = [], [], []
        for c in before["cells"] + [None]:
            cur = res if c is None else cells.get((c["operator"], c["size"]))
            v = cur["pass@1"] if cur else float("nan")
            ci = cur["pass@1_ci"] if cur else [v, v]
            vals.append(v)
            lo.append(v - ci[0])
            hi.append(ci[1] - v)
        x = [i + (k - 0.5) * 0.35 for i in range(len(labels))]
        b.bar(x, vals, 0.35, yerr=[lo, hi], capsize=3, label=name)
    b.set_xticks(range(len(labels)), labels, fontsize=8)
    b.set_ylabel("pass@1 (greedy), 95% interval")
    b.set_title(f"held-out pass@1 ({before['n_tasks']} tasks)", fontsize=10)
    b.legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--smoke", action="store_true",
                   help=f"the same path, small: {SMOKE_STEPS} steps, {SMOKE_HELD_OUT} held-out tasks")
    p.add_argument("--model", default=str(MODEL), help="the base model folder (default out/smollm2-135m)")
    p.add_argument("--config", default=str(CONFIG), help="the training config (default train/learn_cpu.toml)")
    p.add_argument("--work", default=None, help="folder for the task files, evaluations and the trained model "
                                                "(default out/learn_cpu or out/learn_cpu_smoke)")
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: the CPU count; 1 with --smoke)")
    p.add_argument("--max-steps", type=int, default=None, help="override the config's max_steps")
    p.add_argument("--held-out", type=int, default=None, help=f"held-out tasks (default {HELD_OUT}; at least 200 "
                                                               "unless --smoke)")
    p.add_argument("--batch-size", type=int, default=8, help="prompts per generate call in the evaluations")
    p.add_argument("--results", default=str(RESULTS), help="where learn_cpu.json and .png go")
    a = p.parse_args(argv)
    started = time.perf_counter()
    load_start = loadavg()
    threads = a.threads or (1 if a.smoke else (os.cpu_count() or 1))
    os.environ["OMP_NUM_THREADS"] = str(threads)
    for k, v in (("TOKENIZERS_PARALLELISM", "false"), ("HF_HUB_OFFLINE", "1"), ("HF_DATASETS_OFFLINE", "1"),
                 ("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1"), ("PYTHONHASHSEED", "0")):
        os.environ.setdefault(k, v)
    model = Path(a.model)
    if not (model / "config.json").is_file():
        print(f"{model}: no model there; make it with: {sys.executable} benchmarks/smollm2.py {model}",
              file=sys.stderr)
        return 2
    from racesl.train.config import load

    cfg = load(a.config)
    n_held = a.held_out or (SMOKE_HELD_OUT if a.smoke else HELD_OUT)
    if not a.smoke and n_held < 200:
        print("the held-out file has at least 200 tasks (the issue's floor); --smoke for less", file=sys.stderr)
        return 2
    n_train = SMOKE_TRAIN_TASKS if a.smoke else TRAIN_TASKS
    steps = a.max_steps or (SMOKE_STEPS if a.smoke else None)
    name = "learn_cpu_smoke" if a.smoke else "learn_cpu"
    work = Path(a.work or ROOT / "out" / name).resolve()
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    times: dict[str, float] = {}

    t = time.perf_counter()
    seed = cfg.compile.seed
    held = compile_family(cfg, work, n_held, seed + 1, work / "held_out.jsonl")
    raw = compile_family(cfg, work, n_train, seed, work / "train_compiled.jsonl")
    split = disjoint_train(raw, held, work / "train.jsonl")
    times["compile"] = round(time.perf_counter() - t, 1)
    print(f"tasks: {split}", flush=True)

    t = time.perf_counter()
    before = evaluate(cfg, str(model), held, n_held, work / "before", a.batch_size)
    times["eval_before"] = round(time.perf_counter() - t, 1)
    print(f"before: pass@1 {before['pass@1']:.3f} {before['pass@1_ci']} ({times['eval_before']} s)", flush=True)

    t = time.perf_counter()
    run = work / "run"
    args = ["train", a.config, "--model", str(model), "--output-dir", str(run),
            "--set", f'data.tasks="{work / "train.jsonl"}"']
    if steps:
        args += ["--max-steps", str(steps)]
    racesc(*args)
    times["train"] = round(time.perf_counter() - t, 1)
    curve = read_jsonl(run / "rewards.jsonl")
    summary = json.loads((run / "races_summary.json").read_text("utf-8"))
    print(f"trained {summary['steps']} steps in {times['train']} s", flush=True)

    t = time.perf_counter()
    after = evaluate(cfg, str(run), held, n_held, work / "after", a.batch_size)
    times["eval_after"] = round(time.perf_counter() - t, 1)
    print(f"after: pass@1 {after['pass@1']:.3f} {after['pass@1_ci']} ({times['eval_after']} s)", flush=True)

    ok = above(after, before)
    times["total"] = round(time.perf_counter() - started, 1)
    config_text = Path(a.config).read_text("utf-8")
    details = {
        "smoke": a.smoke, "model": str(model), "config": str(Path(a.config).resolve().relative_to(ROOT))
        if Path(a.config).resolve().is_relative_to(ROOT) else str(a.config),
        "config_text": config_text, "threads": threads, "tasks": split, "held_out_file": str(held),
        "before": before, "after": after, "after_above_before": ok,
        "reward_per_step": [s.get("reward") for s in curve], "steps": curve, "train_summary": summary,
        "wall_seconds": times, "loadavg_start": load_start, "loadavg_end": loadavg(),
    }
    figures = [figure("held-out pass@1 before", before["pass@1"], "", note=f"95% CI {before['pass@1_ci']}"),
               figure("held-out pass@1 after", after["pass@1"], "", goal=before["pass@1_ci"][1], op=">=",
                      note=f"95% CI {after['pass@1_ci']}; counts when its lower end is above before's upper"),
               figure("GRPO steps", summary["steps"], "steps"),
               figure("wall time", times["total"] / 60, "min", goal=60, op="<=")]
    out_dir = Path(a.results)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.json"  # (the shape of _common.write_result, in --results)
    doc = {"name": name, "figures": figures, "details": details, "machine": machine(),
           "script_seconds": round(time.perf_counter() - started, 2)}
    tmp = path.with_suffix(".json.part")
    tmp.write_text(json.dumps(doc, indent=1, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    png = plot(curve, before, after, path.with_suffix(".png"),
               f"{model.name}: GRPO on the CPU, {summary['steps']} steps, {threads} threads "
               f"(load {load_start[0] if load_start else '?'} → {details['loadavg_end'][0] if details['loadavg_end'] else '?'})")
    print(f"pass@1 {before['pass@1']:.3f} {before['pass@1_ci']} → {after['pass@1']:.3f} {after['pass@1_ci']}: "
          f"{'above' if ok else 'NOT above'} before's interval; {times['total'] / 60:.1f} min; wrote {path}"
          + (f" and {png}" if png else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
