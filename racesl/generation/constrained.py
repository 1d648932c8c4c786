"""Grammar-constrained decoding in process: a transformers logits processor that masks, for each
row with a grammar, every token the grammar cannot take next (llguidance, the `constrained`
extra: `pip install -e '.[constrained]'`).

The grammar is text in llguidance's Lark dialect (racesl.evolve.grammar writes the `.races`
one). Rows without a grammar pass unchanged, so constrained and free requests share a batch.

**Truncation, honestly.** A row that runs out of tokens before the grammar lets it stop is cut
back to the last point where the grammar accepted (a complete module: its last complete
statement or item), never left as a dangling prefix; the reply's detail says how many tokens
were dropped. A row that never reached such a point comes back empty.

torch, transformers and llguidance are imported inside the functions.
"""

from __future__ import annotations

import weakref

INSTALL = "pip install -e '.[constrained]' (llguidance)"

_TOKENIZERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # HF tokenizer → {(n_vocab, eos): LLTokenizer}
_TEMPLATES: dict = {}  # LLTokenizer → {grammar text: a matcher never fed, copied for each row}


class ConstrainedUnavailable(RuntimeError):
    """llguidance is not installed, or cannot read this tokenizer."""


def available() -> bool:
    import importlib.util

    return importlib.util.find_spec("llguidance") is not None


def ll_tokenizer(tok, n_vocab: int, eos):
    """llguidance's view of a fast Hugging Face tokenizer, made once per (tokenizer, vocab, eos)
    (it costs ~1 s for a 50k vocabulary)."""
    try:
        import llguidance.hf
    except ImportError:
        raise ConstrainedUnavailable(f"constrained decoding needs llguidance: {INSTALL}") from None
    per = _TOKENIZERS.setdefault(tok, {})
    key = (n_vocab, eos if isinstance(eos, int) else tuple(eos or ()))
    if key not in per:
        try:
            per[key] = llguidance.hf.from_tokenizer(tok, n_vocab=n_vocab, eos_token=eos)
        except Exception as e:  # noqa: BLE001 - a slow tokenizer, an odd vocabulary
            raise ConstrainedUnavailable(f"llguidance cannot use this tokenizer: {type(e).__name__}: {e}") from None
    return per[key]


def check_grammar(grammar: str) -> str | None:
    """None when llguidance compiles `grammar`, else its error (one line)."""
    import llguidance

    ok, msgs = llguidance.LLMatcher.validate_grammar_with_warnings(llguidance.LLMatcher.grammar_from_lark(grammar))
    errors = [m for m in msgs if m]
    return None if not errors else errors[0].splitlines()[0]


def _unpack(bitmask, vocab: int):
    """llguidance's bitmask (int32 words, bit k of word w = token 32·w + k) as a bool tensor.
    Plain tensor ops: llguidance.torch's apply goes through torch.compile, which took ~140 ms a
    step on the CPU here."""
    import torch

    bits = torch.arange(32, dtype=torch.int32)
    return ((bitmask[:, :, None] >> bits) & 1).bool().reshape(bitmask.shape[0], -1)[:, :vocab]


class GrammarMask:
    """The logits processor: per row, an llguidance matcher fed the token the row took last.

    `grammars[r]` is row r's grammar or None. `accepting[r]` lists the counts of generated
    tokens after which the row's text was a complete sentence of its grammar."""

    def __init__(self, tok, grammars: list[str | None], n_vocab: int, eos):
        import llguidance
        import torch

        self.ll = ll_tokenizer(tok, n_vocab, eos)
        self.rows = [r for r, g in enumerate(grammars) if g]
        self.matchers = {}
        fresh = _TEMPLATES.setdefault(self.ll, {})  # grammar → an unused matcher (compiling one: ~0.2 s)
        for r in self.rows:
            g = grammars[r]
            if g not in fresh:
                if len(fresh) >= 64:
                    fresh.clear()
                m = llguidance.LLMatcher(self.ll, llguidance.LLMatcher.grammar_from_lark(g), log_level=0)
                if m.is_error():
                    raise ConstrainedUnavailable(f"bad grammar: {m.get_error().splitlines()[0]}")
                fresh[g] = m
            self.matchers[r] = fresh[g].deep_copy()
        # llguidance's bitmask layout (llguidance.torch, whose import costs ~3 s of torch.compile)
        self.mask = torch.full((len(grammars), (n_vocab + 31) // 32), -1, dtype=torch.int32)
        self.steps = 0
        self.accepting: dict[int, list[int]] = {r: [] for r in self.rows}
        self.broken: dict[int, str] = {}

    def __call__(self, input_ids, scores):
        import torch

        if self.steps:  # feed each row the token it took at the previous step
            last = input_ids[:, -1].tolist()
            for r in self.rows:
                m = self.matchers[r]
                if m.is_stopped() or r in self.broken:
                    continue
                if not m.consume_token(last[r]):
                    self.broken[r] = m.get_error().splitlines()[0] if m.get_error() else "token refused"
                    continue
                if m.is_accepting():
                    self.accepting[r].append(self.steps)
        self.steps += 1
        if not self.rows:
            return scores
        for r in self.rows:
            row = self.mask[r]
            self.matchers[r].unsafe_compute_mask_ptr(row.data_ptr(), row.numel() * row.element_size())
        index = torch.tensor(self.rows, device=scores.device)
        allowed = _unpack(self.mask[index], scores.shape[-1]).to(scores.device)
        out = scores.clone()
        out[index] = scores[index].masked_fill(~allowed, float("-inf"))
        return out

    def cut(self, r: int, ids: list[int], budget: int, eos: set[int]) -> tuple[list[int], str | None]:
        """Row r's tokens within its budget: whole when it stopped by itself, else cut back to
        the last complete point (and a note saying so)."""
        ids = ids[:budget]
        if r not in self.matchers or any(t in eos for t in ids):
            return ids, None
        m = self.matchers[r]
        for k in range(max(self.steps - 1, 0), len(ids)):  # generate never showed us its last tokens
            if m.is_stopped() or r in self.broken or not m.consume_token(ids[k]):
                break
            if m.is_accepting():
                self.accepting[r].append(k + 1)
        done = [k for k in self.accepting[r] if k <= len(ids)]
        keep = done[-1] if done else 0
        note = (f"cut at max_tokens ({budget}): kept the first {keep} tokens, the last point where the module "
                "was complete" if keep else f"cut at max_tokens ({budget}) before the module was complete")
        return ids[:keep], note
