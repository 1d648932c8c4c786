"""Evaluation: generate completions for task records, score them with
`racesl.rewards.score`, and report accuracy by operator × size (a table and a heatmap).

Generation runs on transformers (`generate`, batched, left padding) or vLLM. Scoring and
reporting need neither: `summarize`, `table` and `heatmap` work on scored rows.
"""

from __future__ import annotations

import json
import math
import time
from collections import defaultdict
from pathlib import Path

import attrs


class EvalError(RuntimeError):
    pass


@attrs.define
class Cell:
    n: int = 0
    solved: int = 0
    reward: float = 0.0

    @property
    def accuracy(self) -> float:
        return self.solved / self.n if self.n else float("nan")

    @property
    def mean_reward(self) -> float:
        return self.reward / self.n if self.n else float("nan")


def prompt_messages(record: dict, system_prompt: str | None = None) -> list[dict]:
    return ([{"role": "system", "content": system_prompt}] if system_prompt else []) + \
        [{"role": "user", "content": record["prompt"]}]


def prompt_text(tokenizer, record: dict, system_prompt: str | None, chat: bool) -> str:
    if chat and getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(prompt_messages(record, system_prompt), tokenize=False,
                                             add_generation_prompt=True)
    return (system_prompt + "\n\n" if system_prompt else "") + record["prompt"]


# ------------------------------------------------------------ generation


def generate_transformers(model_path: str, records: list[dict], *, samples: int, max_new_tokens: int,
                          temperature: float, batch_size: int, system_prompt: str | None, chat: bool,
                          seed: int, progress=None) -> list[list[str]]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_path, padding_side="left")
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = AutoModelForCausalLM.from_pretrained(model_path, dtype="auto").to(device).eval()
    torch.manual_seed(seed)
    texts = [prompt_text(tok, r, system_prompt, chat) for r in records]
    do_sample = temperature > 0
    out: list[list[str]] = []
    for start in range(0, len(texts), batch_size):
        chunk = texts[start:start + batch_size]
        enc = tok(chunk, return_tensors="pt", padding=True, add_special_tokens=False).to(device)
        kw = dict(max_new_tokens=max_new_tokens, do_sample=do_sample, num_return_sequences=samples,
                  pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)
        if do_sample:
            kw["temperature"] = temperature
        else:
            kw.update(temperature=None, top_p=None, top_k=None)
        with torch.inference_mode():
            gen = model.generate(**enc, **kw)
        new = gen[:, enc["input_ids"].shape[1]:]
        decoded = tok.batch_decode(new, skip_special_tokens=True)
        for k in range(len(chunk)):
            out.append(decoded[k * samples:(k + 1) * samples])
        if progress:
            progress(len(out))
    return out


def generate_vllm(model_path: str, records: list[dict], *, samples: int, max_new_tokens: int, temperature: float,
                  system_prompt: str | None, chat: bool, seed: int, **_) -> list[list[str]]:
    import importlib.util

    if importlib.util.find_spec("vllm") is None:
        raise EvalError("--backend vllm needs vLLM: pip install -e '.[vllm]' in the racesl checkout (or use --backend transformers)")
    from vllm import LLM, SamplingParams

    llm = LLM(model=model_path, seed=seed)
    params = SamplingParams(n=samples, temperature=temperature, max_tokens=max_new_tokens, seed=seed)
    if chat:
        outs = llm.chat([prompt_messages(r, system_prompt) for r in records], params, use_tqdm=False)
    else:
        outs = llm.generate([(system_prompt + "\n\n" if system_prompt else "") + r["prompt"] for r in records],
                            params, use_tqdm=False)
    return [[o.text for o in res.outputs] for res in outs]


# ------------------------------------------------------------ scoring and reporting


def score_all(records: list[dict], completions: list[list[str]]) -> list[dict]:
    from racesl.rewards import score

    rows = []
    for rec, outs in zip(records, completions):
        for k, text in enumerate(outs):
            r = score(rec, text)
            rows.append({"id": rec["id"], "operator": rec["operator"], "size": rec["size"], "sample": k,
                         "reward": r, "solved": r >= 1.0, "completion": text})
    return rows


def summarize(rows: list[dict]) -> dict[tuple[str, int], Cell]:
    cells: dict[tuple[str, int], Cell] = defaultdict(Cell)
    for row in rows:
        c = cells[row["operator"], int(row["size"])]
        c.n += 1
        c.solved += bool(row["solved"])
        c.reward += float(row["reward"])
    return dict(cells)


def _axes(cells) -> tuple[list[str], list[int]]:
    from racesl.search.config import OPERATORS

    ops = sorted({op for op, _ in cells}, key=lambda o: (OPERATORS.index(o) if o in OPERATORS else 99, o))
    sizes = sorted({s for _, s in cells})
    return ops, sizes


def table(cells: dict[tuple[str, int], Cell], title: str = "accuracy by operator × size"):
    from rich.table import Table

    ops, sizes = _axes(cells)
    t = Table(title=title)
    t.add_column("operator")
    for s in sizes:
        t.add_column(f"size {s}", justify="right")
    t.add_column("all", justify="right", style="bold")
    for op in ops:
        row = [op]
        tot = Cell()
        for s in sizes:
            c = cells.get((op, s))
            if c is None:
                row.append("")
                continue
            tot.n += c.n
            tot.solved += c.solved
            tot.reward += c.reward
            row.append(f"{c.accuracy:.2f} ({c.n})")
        row.append(f"{tot.accuracy:.2f} ({tot.n})")
        t.add_row(*row)
    allc = Cell(sum(c.n for c in cells.values()), sum(c.solved for c in cells.values()),
                sum(c.reward for c in cells.values()))
    t.add_row("all", *[""] * len(sizes), f"{allc.accuracy:.2f} ({allc.n})", style="bold")
    return t


def heatmap(cells: dict[tuple[str, int], Cell], path: str | Path, title: str = "") -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ops, sizes = _axes(cells)
    grid = [[cells[op, s].accuracy if (op, s) in cells else math.nan for s in sizes] for op in ops]
    fig, ax = plt.subplots(figsize=(1.0 + 0.8 * max(3, len(sizes)), 1.2 + 0.6 * max(2, len(ops))))
    im = ax.imshow(grid, vmin=0.0, vmax=1.0, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(sizes)), [str(s) for s in sizes])
    ax.set_yticks(range(len(ops)), ops)
    ax.set_xlabel("composition size")
    ax.set_ylabel("operator")
    for i, op in enumerate(ops):
        for j, s in enumerate(sizes):
            c = cells.get((op, s))
            if c is not None:
                v = c.accuracy
                ax.text(j, i, f"{v:.2f}\nn={c.n}", ha="center", va="center", fontsize=8,
                        color="black" if v > 0.6 else "white")
    fig.colorbar(im, ax=ax, label="accuracy")
    ax.set_title(title or "accuracy by operator × size", fontsize=10)
    fig.tight_layout()
    from racesl.atomic import atomic_write

    atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=120, format="png"))  # (the output policy applies)
    plt.close(fig)
    path = Path(path)
    return path


def load_tasks(path: str | Path, n: int | None = None) -> list[dict]:
    from racesl.rewards.libraries import read_tasks

    try:
        records = read_tasks(path)
    except ValueError as e:
        raise EvalError(str(e)) from None
    if n is not None:
        records = records[:n]
    if not records:
        raise EvalError(f"{path} holds no tasks")
    return records


def evaluate(model_path: str, tasks: str, *, backend: str = "transformers", n: int | None = None,
             samples: int = 1, max_new_tokens: int = 1024, temperature: float = 0.0, batch_size: int = 16,
             system_prompt: str | None = None, chat: bool = True, seed: int = 0, out_dir: str | Path = "eval",
             progress=None) -> dict:
    records = load_tasks(tasks, n)
    t0 = time.perf_counter()
    gen = generate_vllm if backend == "vllm" else generate_transformers
    completions = gen(model_path, records, samples=samples, max_new_tokens=max_new_tokens, temperature=temperature,
                      batch_size=batch_size, system_prompt=system_prompt, chat=chat, seed=seed, progress=progress)
    gen_seconds = time.perf_counter() - t0
    t1 = time.perf_counter()
    rows = score_all(records, completions)
    score_seconds = time.perf_counter() - t1
    cells = summarize(rows)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    from racesl.atomic import atomic_write

    def put_rows(tmp):  # (a lone surrogate in a completion is written as its JSON escape, `\ud800`, not refused)
        with open(tmp, "w", encoding="utf-8", errors="backslashreplace") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")

    atomic_write(out / "completions.jsonl", put_rows)  # (every file through the output policy)
    total = Cell(sum(c.n for c in cells.values()), sum(c.solved for c in cells.values()),
                 sum(c.reward for c in cells.values()))
    result = {
        "model": str(model_path), "tasks": str(tasks), "backend": backend, "n_tasks": len(records),
        "samples": samples, "max_new_tokens": max_new_tokens, "temperature": temperature,
        "accuracy": total.accuracy, "mean_reward": total.mean_reward,
        "generate_seconds": round(gen_seconds, 3), "score_seconds": round(score_seconds, 3),
        "cells": [{"operator": op, "size": s, "n": c.n, "solved": c.solved, "accuracy": c.accuracy,
                   "mean_reward": c.mean_reward} for (op, s), c in sorted(cells.items())],
    }
    atomic_write(out / "results.json", lambda tmp: Path(tmp).write_text(json.dumps(result, indent=1), "utf-8"))
    heatmap(cells, out / "accuracy.png", f"{Path(str(model_path)).name} on {Path(str(tasks)).name}: "
                                         f"accuracy {total.accuracy:.2f} over {total.n}")
    result["_cells"] = cells
    return result
