"""A tiny random-init Qwen2 and a byte-level BPE tokenizer trained here, saved as a model
folder: for tests, CPU smoke runs and GPU benchmarks where nothing can be downloaded.

    python -m racesl.train.tiny OUT_DIR [--hidden 64] [--layers 2] [--vocab 512]
"""

from __future__ import annotations

import argparse
from pathlib import Path

SPECIAL = ["<|pad|>", "<|end|>", "<|system|>", "<|user|>", "<|assistant|>"]
CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def default_corpus() -> list[str]:
    """Text like the tasks: the operator templates, numbers, lists and answer tags."""
    from racesl import templates

    texts = list(templates.DEFAULTS.values())
    texts += [" ".join(str(i * 7 % 1000) for i in range(k, k + 50)) for k in range(0, 400, 50)]
    texts += [f"<answer>[{i}, {i + 1}, '{chr(97 + i % 26)}']</answer> <answer>A, B, C</answer>" for i in range(40)]
    texts += ["The input is a list of integers; return the sum, the sorted list, the reversed string, "
              "the number of vowels, the largest element, the grid rotated, the shortest path."] * 4
    return texts


def make_tokenizer(texts: list[str] | None = None, vocab_size: int = 512):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts or default_corpus(), trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<|pad|>", eos_token="<|end|>",
                                   bos_token=None, unk_token=None)
    fast.chat_template = CHAT_TEMPLATE
    return fast


def make_model(tokenizer, hidden: int = 64, layers: int = 2, heads: int = 4, kv_heads: int = 2,
               intermediate: int | None = None, max_positions: int = 8192, seed: int = 0):
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    config = Qwen2Config(vocab_size=len(tokenizer), hidden_size=hidden, intermediate_size=intermediate or 2 * hidden,
                         num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=kv_heads,
                         max_position_embeddings=max_positions, tie_word_embeddings=True,
                         pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
                         bos_token_id=tokenizer.eos_token_id)
    model = Qwen2ForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def save_tiny(out: str | Path, texts: list[str] | None = None, vocab_size: int = 512, **model_kw) -> Path:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tok = make_tokenizer(texts, vocab_size)
    model = make_model(tok, **model_kw)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--kv-heads", type=int, default=2)
    p.add_argument("--vocab", type=int, default=512)
    a = p.parse_args(argv)
    path = save_tiny(a.out, vocab_size=a.vocab, hidden=a.hidden, layers=a.layers, heads=a.heads, kv_heads=a.kv_heads)
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
