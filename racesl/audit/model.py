"""A real model's answers to task prompts, for `racesc audit --model PATH`.

torch and transformers are imported inside `generate`: the rest of racesl never needs them.
"""

from __future__ import annotations

import os
from typing import Callable


def generate(model_path: str, prompts: list[str], *, max_new_tokens: int = 256, batch_size: int = 8,
             progress: Callable[[int], None] | None = None) -> list[str]:
    """One greedy completion per prompt, in input order (only the generated text).

    - Local folder only (`local_files_only=True`): an audit must not reach the network.
    - The tokenizer's chat template (one user message, generation prompt added) when it has
      one, since instruct models are trained on it; otherwise the raw prompt.
    - Greedy decoding: the same model and prompts always give the same answers, so an audit
      can be rerun and compared.
    - Batches of prompts of similar length (sorted inside, results put back in input order)
      with left padding, so the new tokens line up at the end and little compute is spent on
      padding.
    - torch threads follow `OMP_NUM_THREADS` when it is set: on shared CPUs more threads than
      allotted makes small models slower, not faster.
    - `progress(n)` is called with the number of prompts done after each batch.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if not prompts:
        return []
    threads = os.environ.get("OMP_NUM_THREADS", "")
    if threads.isdigit() and int(threads) > 0:
        torch.set_num_threads(int(threads))

    tok = AutoTokenizer.from_pretrained(model_path, local_files_only=True, padding_side="left")
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = AutoModelForCausalLM.from_pretrained(model_path, local_files_only=True, dtype="auto").to(device).eval()

    if getattr(tok, "chat_template", None):
        texts = [tok.apply_chat_template([{"role": "user", "content": p}], tokenize=False, add_generation_prompt=True)
                 for p in prompts]
    else:
        texts = list(prompts)
    # The template already holds any BOS it wants; the raw prompt gets the tokenizer's defaults.
    add_special = not getattr(tok, "chat_template", None)
    ids = [tok(t, add_special_tokens=add_special)["input_ids"] for t in texts]
    order = sorted(range(len(ids)), key=lambda i: (len(ids[i]), i))

    eos = model.generation_config.eos_token_id
    if eos is None:
        eos = tok.eos_token_id
    kw = dict(max_new_tokens=max_new_tokens, do_sample=False, temperature=None, top_p=None, top_k=None,
              pad_token_id=tok.pad_token_id, eos_token_id=eos)

    out: list[str | None] = [None] * len(prompts)
    done = 0
    for start in range(0, len(order), max(1, batch_size)):
        chunk = order[start:start + max(1, batch_size)]
        enc = tok.pad({"input_ids": [ids[i] for i in chunk]}, padding=True, return_tensors="pt").to(device)
        with torch.inference_mode():
            gen = model.generate(**enc, **kw)
        new = gen[:, enc["input_ids"].shape[1]:]
        for i, text in zip(chunk, tok.batch_decode(new, skip_special_tokens=True)):
            out[i] = text
        done += len(chunk)
        if progress:
            progress(done)
    return out  # type: ignore[return-value]
