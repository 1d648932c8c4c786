"""`racesl.audit.model.generate` on the tiny random Qwen2 of `racesl.train.tiny` (CPU, one thread)."""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from racesl.audit.model import generate  # noqa: E402

# Lengths differ on purpose, and not in sorted order: batches are formed by length inside.
PROMPTS = [
    "Start from the input 7. Apply digit_sum, then double. Answer inside <answer></answer>.",
    "Sort: 3 1 2",
    "Start from the list [4, 1, 5, 9, 2, 6]. Reverse it, then take the largest element. "
    "Answer inside <answer></answer>.",
    "Count the vowels in 'banana'.",
    "Which of A, B, C reach 10 from 3?",
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The tiny Qwen2 with its matrices redrawn at std 0.5.

    As initialised (std 0.02, tied embeddings) it only repeats the last prompt token, here
    always `<|assistant|>`, which decodes to "" and would make every check below vacuous.
    """
    import torch

    from racesl.train.tiny import make_model, make_tokenizer

    tok = make_tokenizer()
    model = make_model(tok)
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() == 2:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.5)
    out = tmp_path_factory.mktemp("audit-tiny") / "model"
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return str(out)


@pytest.fixture(scope="module")
def outputs(tiny):
    return generate(tiny, PROMPTS, max_new_tokens=12, batch_size=3)


def test_one_string_per_prompt(outputs):
    assert len(outputs) == len(PROMPTS)
    assert all(isinstance(o, str) for o in outputs)
    assert all(outputs) and len(set(outputs)) == len(outputs)  # not vacuous


def test_deterministic(tiny, outputs):
    assert generate(tiny, PROMPTS, max_new_tokens=12, batch_size=3) == outputs


def test_input_order_independent_of_batch_size(tiny, outputs):
    singles = generate(tiny, PROMPTS, max_new_tokens=12, batch_size=1)
    assert singles == outputs
    # Each answer belongs to its own prompt, wherever the prompt stands in the list.
    assert generate(tiny, PROMPTS[::-1], max_new_tokens=12, batch_size=3) == outputs[::-1]


def test_max_new_tokens(tiny, outputs):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny, local_files_only=True)
    singles = {tok.decode([i], skip_special_tokens=True) for i in range(len(tok))}
    assert all(o in singles for o in generate(tiny, PROMPTS, max_new_tokens=1, batch_size=3))
    short = generate(tiny, PROMPTS, max_new_tokens=3, batch_size=3)
    for s, long in zip(short, outputs):
        # A cut inside a multi-byte character decodes to U+FFFD.
        assert long.startswith(s.rstrip("\ufffd")) and len(s) < len(long)


def test_progress_and_empty(tiny):
    seen = []
    generate(tiny, PROMPTS[:3], max_new_tokens=2, batch_size=2, progress=seen.append)
    assert seen == [2, 3]
    assert generate(tiny, [], max_new_tokens=2) == []
