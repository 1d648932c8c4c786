"""Generation in this process with transformers, from a local model folder.

torch and transformers are imported inside functions: importing racesl.generation stays
cheap and works without them.

Sampling draws each sample's tokens from its own CPU `torch.Generator`, seeded from the
request's seed and the sample's index, through a logits processor that picks the token by
Gumbel-max and hands `generate` a one-hot score row; `generate` then runs greedy. So a sample
depends on its prompt, temperature and seed only, not on which other requests share its
batch, how batches are cut, or the device's random generator. Greedy rows pass unchanged.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from attrs import define

from racesl.generation.base import Reply, Request, failed, messages, sample_seed


@define
class _Row:
    """One sample to generate: request `req`, sample `index`, the prompt's token ids."""

    req: int
    index: int
    ids: list[int]
    temperature: float
    seed: int
    max_tokens: int
    grammar: str | None = None  # llguidance Lark text (racesl.generation.constrained), or None


@define
class _Done:
    text: str = ""
    error: str | None = None
    seconds: float = 0.0
    note: str | None = None  # e.g. a constrained row cut back at max_tokens


def load(path: str, device: str = "cpu"):
    """(model, tokenizer) from a local folder only: generation must not reach the network.

    torch threads follow `OMP_NUM_THREADS` when it is set: on shared CPUs more threads than
    allotted makes small models slower, not faster.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    threads = os.environ.get("OMP_NUM_THREADS", "")
    if threads.isdigit() and int(threads) > 0:
        torch.set_num_threads(int(threads))
    tok = AutoTokenizer.from_pretrained(path, local_files_only=True, padding_side="left")
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True, dtype="auto").to(device).eval()
    return model, tok


def encode(tok, request: Request) -> list[int]:
    """The request's token ids: the chat template when the tokenizer has one (instruct models
    are trained on it), else the plain prompt after the system text."""
    if getattr(tok, "chat_template", None):
        text = tok.apply_chat_template(messages(request), tokenize=False, add_generation_prompt=True)
        # The template already holds any BOS it wants.
        return list(tok(text, add_special_tokens=False)["input_ids"])
    text = request.prompt if request.system is None else f"{request.system}\n\n{request.prompt}"
    return list(tok(text)["input_ids"])


def _sampler(rows: list[_Row]):
    """A logits processor that samples the rows with a temperature, each from its own generator."""
    import torch
    from transformers import LogitsProcessor

    sampled = [r for r, row in enumerate(rows) if row.temperature > 0]
    gens = [torch.Generator().manual_seed(sample_seed(rows[r].seed, rows[r].index)) for r in sampled]
    temps = torch.tensor([rows[r].temperature for r in sampled], dtype=torch.float32)

    class PerRowSampler(LogitsProcessor):
        def __call__(self, input_ids, scores):
            vocab = scores.shape[-1]
            noise = torch.stack([torch.rand(vocab, generator=g) for g in gens]).clamp_(1e-20, 1.0 - 1e-7)
            gumbel = -torch.log(-torch.log(noise))
            index = torch.tensor(sampled, device=scores.device)
            picked = (scores[index].float() / temps.to(scores.device)[:, None] + gumbel.to(scores.device)).argmax(-1)
            out = scores.clone()
            out[index] = float("-inf")
            out[index, picked] = 0.0
            return out

    return PerRowSampler() if sampled else None


def _run_chunk(model, tok, rows: list[_Row], device: str) -> list[tuple[str, str | None]]:
    import torch
    from transformers import LogitsProcessorList

    eos = model.generation_config.eos_token_id
    if eos is None:
        eos = tok.eos_token_id
    enc = tok.pad({"input_ids": [row.ids for row in rows]}, padding=True, return_tensors="pt").to(device)
    sampler = _sampler(rows)
    mask = None
    if any(row.grammar for row in rows):
        from racesl.generation.constrained import GrammarMask

        mask = GrammarMask(tok, [row.grammar for row in rows], model.get_output_embeddings().weight.shape[0], eos)
    processors = [p for p in (mask, sampler) if p is not None]  # the mask first: the sampler draws from it
    kw = {"max_new_tokens": max(row.max_tokens for row in rows), "do_sample": False, "temperature": None,
          "top_p": None, "top_k": None, "pad_token_id": tok.pad_token_id, "eos_token_id": eos}
    if processors:
        kw["logits_processor"] = LogitsProcessorList(processors)
    with torch.inference_mode():
        gen = model.generate(**enc, **kw)
    new = gen[:, enc["input_ids"].shape[1]:]
    # A row's first k tokens are what a budget of k would give: generation is causal.
    if mask is None:
        texts = tok.batch_decode([new[r, :row.max_tokens] for r, row in enumerate(rows)], skip_special_tokens=True)
        return [(t, None) for t in texts]
    stops = set(eos if isinstance(eos, (list, tuple)) else [eos])
    out = []
    for r, row in enumerate(rows):
        ids, note = mask.cut(r, new[r].tolist(), row.max_tokens, stops)
        out.append((tok.decode(ids, skip_special_tokens=True), note))
    return out


def run_rows(model, tok, rows: list[_Row], *, device: str, batch_size: int,
             progress: Callable[[int], None] | None = None) -> list[_Done]:
    """Generate every row, in batches of similar budget and length (left padded, so the new
    tokens line up at the end); results in row order. A batch that fails is retried row by
    row, so one bad request costs only its own reply."""
    out = [_Done() for _ in rows]
    order = sorted(range(len(rows)), key=lambda i: (rows[i].max_tokens, len(rows[i].ids), i))
    size = max(1, batch_size)
    done = 0
    for start in range(0, len(order), size):
        chunk = order[start:start + size]
        pending = [chunk]
        while pending:
            part = pending.pop(0)
            began = time.perf_counter()
            try:
                texts = _run_chunk(model, tok, [rows[i] for i in part], device)
            except Exception as exc:  # noqa: BLE001 - a failure becomes the rows' reply
                if len(part) > 1:
                    pending = [[i] for i in part] + pending
                    continue
                out[part[0]] = _Done("", f"{type(exc).__name__}: {exc}", time.perf_counter() - began)
                continue
            spent = time.perf_counter() - began
            for i, (text, note) in zip(part, texts):
                out[i] = _Done(text, None, spent, note)
        done += len(chunk)
        if progress:
            progress(done)
    return out


class TransformersBackend:
    """A local model folder run in process by transformers (`AutoModelForCausalLM`)."""

    def __init__(self, path: str, *, device: str = "cpu", batch_size: int = 8):
        self.name = f"transformers:{path}"
        self.path = str(path)
        self.device = device
        self.batch_size = batch_size
        self._model, self._tok = load(self.path, device)

    @property
    def supports_grammar(self) -> bool:
        """Requests with a grammar are decoded under it when llguidance is installed."""
        from racesl.generation.constrained import available

        return available()

    def generate(self, requests: list[Request], *, progress: Callable[[int], None] | None = None) -> list[Reply]:
        """One reply per request, in order. `progress(k)` gets the number of samples done after each batch."""
        if self._model is None:
            raise RuntimeError(f"{self.name} is closed")
        replies: list[Reply | None] = [None] * len(requests)
        rows: list[_Row] = []
        for r, req in enumerate(requests):
            try:
                ids = encode(self._tok, req)
            except Exception as exc:  # noqa: BLE001 - e.g. a template that refuses a system message
                replies[r] = failed(req, f"prompt: {type(exc).__name__}: {exc}")
                continue
            rows += [_Row(r, j, ids, req.temperature, req.seed, req.max_tokens, req.grammar) for j in range(req.n)]
        results = run_rows(self._model, self._tok, rows, device=self.device, batch_size=self.batch_size,
                           progress=progress)
        per_req: dict[int, list[tuple[_Row, _Done]]] = {}
        for row, res in zip(rows, results):
            per_req.setdefault(row.req, []).append((row, res))
        for r, pairs in per_req.items():
            errors = [res.error for _, res in pairs if res.error]
            notes = [res.note for _, res in pairs if res.note]
            replies[r] = Reply(texts=tuple(res.text for _, res in pairs), status="error" if errors else "ok",
                               detail=errors[0] if errors else (notes[0] if notes else None),
                               seconds=max(res.seconds for _, res in pairs))
        return replies  # type: ignore[return-value]

    def close(self) -> None:
        self._model = self._tok = None
        if self.device.startswith("cuda"):
            import torch

            torch.cuda.empty_cache()
