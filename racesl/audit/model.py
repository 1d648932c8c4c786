"""A real model's answers to task prompts, for `racesc audit --model PATH`.

The decoding itself is `racesl.generation.TransformersBackend` (greedy requests); torch and
transformers are imported inside functions: the rest of racesl never needs them.
"""

from __future__ import annotations

from collections.abc import Callable


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

    from racesl.generation import Request, TransformersBackend

    if not prompts:
        return []
    device = "cuda" if torch.cuda.is_available() else "cpu"
    backend = TransformersBackend(model_path, device=device, batch_size=batch_size)
    try:
        replies = backend.generate([Request(p, temperature=0.0, max_tokens=max_new_tokens) for p in prompts],
                                   progress=progress)
    finally:
        backend.close()
    for reply in replies:
        if not reply.ok:  # an audit of partly missing answers would be silently wrong
            raise RuntimeError(f"generation failed: {reply.detail}")
    return [reply.texts[0] for reply in replies]
