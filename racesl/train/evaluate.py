"""Evaluation: generate completions for task records, score them with the reward training
uses (`racesl.rewards.verdict`), and report pass@1, pass@k and mean reward by operator ×
size with bootstrap intervals (`racesl.train.passk`), as a table and a heatmap.

Generation runs on transformers (`generate`, batched, left padding), vLLM, or any
OpenAI-compatible server (`racesl.generation.OpenAIBackend`). Scoring and reporting need
none of them: `report`, `table` and `heatmap` work on scored rows.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
from pathlib import Path

from racesl.train import cells as C
from racesl.train import passk


class EvalError(RuntimeError):
    pass


def prompt_messages(record: dict, system_prompt: str | None = None) -> list[dict]:
    return ([{"role": "system", "content": system_prompt}] if system_prompt else []) + \
        [{"role": "user", "content": record["prompt"]}]


def prompt_text(tokenizer, record: dict, system_prompt: str | None, chat: bool) -> str:
    if chat and getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(prompt_messages(record, system_prompt), tokenize=False,
                                             add_generation_prompt=True)
    return (system_prompt + "\n\n" if system_prompt else "") + record["prompt"]


# ------------------------------------------------------------ which tasks


def stratify(records: list[dict], n: int | None, seed: int = 0) -> list[dict]:
    """n records spread over operator × size cells: each cell an equal share (a cell with
    fewer tasks leaves its surplus to the others; what does not divide goes one each to the
    first cells in operator, then size order), a seeded sample within each cell, kept in file
    order. The same file, n and seed give the same tasks, so two evals can be paired."""
    if n is None or n >= len(records):
        return records
    cells: dict[tuple[str, int], list[int]] = {}
    for i, r in enumerate(records):
        cells.setdefault((r["operator"], int(r["size"])), []).append(i)
    canonical = sorted(cells, key=lambda c: (C.order(c[0]), c[0], c[1]))
    take = dict.fromkeys(canonical, 0)
    left, open_ = n, canonical
    while left:  # (n < len(records): there is always room)
        share = left // len(open_)
        for c in open_ if share else open_[:left]:
            add = min(len(cells[c]) - take[c], share or 1)
            take[c] += add
            left -= add
        open_ = [c for c in open_ if take[c] < len(cells[c])]
    chosen: list[int] = []
    for c in canonical:
        rng = random.Random(f"racesl.eval:{seed}:{passk.cell_key(*c)}")  # (a str seed: the same in every process)
        chosen += rng.sample(cells[c], take[c])
    return [records[i] for i in sorted(chosen)]


def load_tasks(path: str | Path, n: int | None = None, seed: int = 0) -> list[dict]:
    """The records of a task file (its sidecar library registered), `n` of them stratified."""
    from racesl.rewards.libraries import read_tasks

    try:
        records = read_tasks(path)
    except ValueError as e:
        raise EvalError(str(e)) from None
    if not records:
        raise EvalError(f"{path} holds no tasks")
    _unique_ids(path, records)
    return stratify(records, n, seed)


def _unique_ids(path, records: list[dict]) -> None:
    """EvalError when two records share an id: samples are grouped into tasks by id (pass@k,
    the per-task rows, --compare), so two tasks under one id would be counted as one task
    with twice the samples (two compiles with one seed, concatenated)."""
    first: dict = {}
    for k, r in enumerate(records, 1):
        key = str(r.get("id"))
        if key in first:
            raise EvalError(f"{path}: task id {key!r} is used twice (records {first[key]} and {k}): ids must be "
                            "unique (two compiles with one seed give the same ids: compile with different --seed)")
        first[key] = k


# ------------------------------------------------------------ generation


def generate_transformers(model_path: str, records: list[dict], *, samples: int, max_new_tokens: int,
                          temperature: float, batch_size: int, system_prompt: str | None, chat: bool,
                          seed: int, progress=None, **_) -> list[list[str]]:
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
        raise EvalError("--backend vllm needs vLLM: pip install -e '.[vllm]' in the racesl checkout "
                        "(or use --backend transformers)")
    from vllm import LLM, SamplingParams

    llm = LLM(model=model_path, seed=seed)
    params = SamplingParams(n=samples, temperature=temperature, max_tokens=max_new_tokens, seed=seed)
    if chat:
        outs = llm.chat([prompt_messages(r, system_prompt) for r in records], params, use_tqdm=False)
    else:
        outs = llm.generate([(system_prompt + "\n\n" if system_prompt else "") + r["prompt"] for r in records],
                            params, use_tqdm=False)
    return [[o.text for o in res.outputs] for res in outs]


def generate_endpoint(endpoint: str, records: list[dict], *, samples: int, max_new_tokens: int, temperature: float,
                      system_prompt: str | None, seed: int, served_model: str | None = None,
                      api_key: str | None = None, concurrency: int = 8, timeout: float = 600.0,
                      errors: list[str] | None = None, info: dict | None = None, progress=None,
                      **_) -> list[list[str]]:
    """Chat completions from an OpenAI-compatible server, `concurrency` requests in flight.
    A request that fails after its retries, or whose reply leaves a sample without text (a
    choice index given twice, a choice missing), has its detail appended to `errors`; each
    sample it has no text for is None (`score_all` rows it as status `error`, reward 0); when every one fails, EvalError with the first detail. `info` gets
    the model id the server answered for."""
    from racesl.generation import Request, open_backend

    try:
        backend = open_backend(None, endpoint, served_model=served_model, api_key=api_key,
                               concurrency=concurrency, timeout=timeout)
    except ValueError as e:
        raise EvalError(str(e)) from None
    requests = [Request(r["prompt"], system=system_prompt, temperature=temperature, seed=seed,
                        max_tokens=max_new_tokens, n=samples) for r in records]
    out: list[list[str]] = []
    failed: list[str] = []
    step = max(1, concurrency * 4)  # a progress update every few rounds of requests
    try:
        for start in range(0, len(requests), step):
            for reply in backend.generate(requests[start:start + step]):
                texts: list = list(reply.texts) + [""] * (samples - len(reply.texts))
                if not reply.ok:  # a sample the failed reply left without text is an error, not an empty answer
                    texts = [t if t else None for t in texts]
                    failed.append(reply.detail or reply.status)
                out.append(texts[:samples])
            if progress:
                progress(len(out))
    finally:
        backend.close()
    if info is not None:
        info["model"] = backend.model
    if failed and len(failed) == len(requests):
        raise EvalError(f"{endpoint}: every request failed; the first: {failed[0]}")
    if errors is not None:
        errors.extend(failed)
    return out


# ------------------------------------------------------------ scoring and reporting


def score_all(records: list[dict], completions: list[list[str]]) -> list[dict]:
    """One row per completion, scored by `verdict` as the GRPO reward (racesl.train.rewards) does;
    a sample with no text (None) is a row with status `error` and reward 0."""
    from racesl.rewards.score import verdict

    rows = []
    for rec, outs in zip(records, completions):
        for k, text in enumerate(outs):
            if text is None:  # no text came back for this sample (generate_endpoint): an error, scored 0
                rows.append({"id": rec["id"], "operator": rec["operator"], "size": rec["size"], "sample": k,
                             "reward": 0.0, "solved": False, "status": "error", "completion": ""})
                continue
            v = verdict(rec, text)
            rows.append({"id": rec["id"], "operator": rec["operator"], "size": rec["size"], "sample": k,
                         "reward": v.score, "solved": v.score >= 1.0, "status": v.status, "completion": text})
    return rows


def prompt_digest(record: dict) -> str:
    """A short hash of a task's prompt: `--compare` pairs tasks by id only when this agrees
    (two task files compiled with the same seed reuse ids for different tasks)."""
    return hashlib.sha256(record["prompt"].encode("utf-8", "surrogatepass")).hexdigest()[:16]


def report(records: list[dict], rows: list[dict], k: int, *, resamples: int, seed: int) -> dict:
    """results.json's metrics: overall, `cells` (per operator × size) and `per_task`."""
    tasks = passk.task_results(rows)
    cells, overall = passk.summarize(tasks, k, resamples=resamples, seed=seed)
    digests = {r["id"]: prompt_digest(r) for r in records}
    n = sum(c["n"] for c in cells.values())
    solved = sum(c["solved"] for c in cells.values())
    out = {"accuracy": solved / n, **{m: overall[m] for m in overall if m not in ("tasks", "n", "solved")}}
    out["bootstrap"] = {"method": "percentile bootstrap over tasks", "level": passk.LEVEL, "resamples": resamples,
                        "seed": seed}
    out["cells"] = [{"operator": op, "size": s, **c, "accuracy": c["solved"] / c["n"]}
                    for (op, s), c in sorted(cells.items(), key=lambda kv: (C.order(kv[0][0]), kv[0]))]
    out["per_task"] = [dict(t.as_dict(), prompt=digests.get(t.id, "")) for t in tasks]
    return out


def _ci(value: float, ci: list[float]) -> str:
    return f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"


def table(res: dict, title: str = "by operator × size"):
    """One row per cell: tasks, pass@1, pass@k (k > 1) and mean reward with their 95% intervals."""
    from rich.table import Table

    k = res["k"]
    t = Table(title=title)
    for name, justify in (("operator", "left"), ("size", "right"), ("tasks", "right"),
                          ("pass@1 [95% CI]", "right"), *((f"pass@{k} [95% CI]", "right"),) * (k > 1),
                          ("mean reward [95% CI]", "right")):
        t.add_column(name, justify=justify)

    def values(c: dict) -> list[str]:
        return [_ci(c["pass@1"], c["pass@1_ci"]), *[_ci(c["pass@k"], c["pass@k_ci"])] * (k > 1),
                _ci(c["mean_reward"], c["mean_reward_ci"])]

    for c in res["cells"]:
        t.add_row(c["operator"], str(c["size"]), str(c["tasks"]), *values(c))
    t.add_row("all", "", str(res["n_tasks"]), *values(res), style="bold")
    return t


def heatmap(cells: list[dict], path: str | Path, title: str = "") -> Path:
    """pass@1 by operator × size as a PNG (matplotlib, the train extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ops, sizes = C.axes(cells)
    at = {(c["operator"], c["size"]): c for c in cells}
    grid = [[at[op, s]["pass@1"] if (op, s) in at else math.nan for s in sizes] for op in ops]
    fig, ax = plt.subplots(figsize=(1.0 + 0.8 * max(3, len(sizes)), 1.2 + 0.6 * max(2, len(ops))))
    im = ax.imshow(grid, vmin=0.0, vmax=1.0, cmap="viridis", aspect="auto")
    C.label(ax, ops, sizes)
    for i, op in enumerate(ops):
        for j, s in enumerate(sizes):
            c = at.get((op, s))
            if c is not None:
                v = c["pass@1"]
                ax.text(j, i, f"{v:.2f}\nn={c['tasks']}", ha="center", va="center", fontsize=8,
                        color="black" if v > 0.6 else "white")
    fig.colorbar(im, ax=ax, label="pass@1")
    ax.set_title(title or "pass@1 by operator × size", fontsize=10)
    fig.tight_layout()
    from racesl.atomic import atomic_write

    atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=120, format="png"))  # (the output policy applies)
    plt.close(fig)
    return Path(path)


def has_matplotlib() -> bool:
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def evaluate(model_path: str | None, tasks: str, *, backend: str = "transformers", n: int | None = None,
             samples: int = 1, k: int | None = None, max_new_tokens: int = 1024, temperature: float = 0.0,
             batch_size: int = 16, system_prompt: str | None = None, chat: bool = True, seed: int = 0,
             out_dir: str | Path = "eval", progress=None, endpoint: str | None = None, api_key: str | None = None,
             concurrency: int = 8, timeout: float = 600.0, resamples: int = passk.RESAMPLES) -> dict:
    """Generate `samples` completions for each of `n` stratified tasks, score them, write
    results.json, completions.jsonl and (with matplotlib) accuracy.png to `out_dir`."""
    k = k or samples
    if k > samples:
        raise EvalError(f"pass@{k} needs at least {k} samples a task, not {samples}")
    every = load_tasks(tasks)
    records = stratify(every, n, seed)
    t0 = time.perf_counter()
    errors: list[str] = []
    info: dict = {}
    kw = dict(samples=samples, max_new_tokens=max_new_tokens, temperature=temperature, batch_size=batch_size,
              system_prompt=system_prompt, chat=chat, seed=seed, progress=progress)
    if backend == "endpoint":
        completions = generate_endpoint(endpoint, records, served_model=model_path, api_key=api_key,
                                        concurrency=concurrency, timeout=timeout, errors=errors, info=info, **kw)
        model_path = info.get("model") or model_path
    else:
        gen = generate_vllm if backend == "vllm" else generate_transformers
        completions = gen(model_path, records, **kw)
    gen_seconds = time.perf_counter() - t0
    t1 = time.perf_counter()
    rows = score_all(records, completions)
    score_seconds = time.perf_counter() - t1
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    from racesl.atomic import atomic_write

    def put_rows(tmp):  # (a lone surrogate in a completion is written as its JSON escape, `\ud800`, not refused)
        with open(tmp, "w", encoding="utf-8", errors="backslashreplace") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")

    atomic_write(out / "completions.jsonl", put_rows)  # (every file through the output policy)
    result = {
        "model": str(model_path) if model_path is not None else None, "tasks": str(tasks), "backend": backend,
        **({"endpoint": endpoint} if backend == "endpoint" else {}),
        "n_tasks": len(records), "selection": "all" if len(records) == len(every) else "stratified",
        "samples": samples, "k": k, "max_new_tokens": max_new_tokens, "temperature": temperature, "seed": seed,
        "errors": len(errors), "generate_seconds": round(gen_seconds, 3), "score_seconds": round(score_seconds, 3),
        **report(records, rows, k, resamples=resamples, seed=seed),
    }
    atomic_write(out / "results.json", lambda tmp: Path(tmp).write_text(json.dumps(result, indent=1), "utf-8"))
    if has_matplotlib():
        label = Path(str(model_path)).name if model_path else endpoint
        heatmap(result["cells"], out / "accuracy.png", f"{label} on {Path(str(tasks)).name}: "
                                                       f"pass@1 {result['pass@1']:.2f} over {len(records)} tasks")
    result["_errors"] = errors
    return result
