"""Training tests run on the CPU with one thread: a tiny model is much slower with more."""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRAIN_DIR = ROOT / "train"


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    """A random 2-layer Qwen2 (hidden 64) with a byte-level BPE tokenizer trained here."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import torch

    torch.set_num_threads(1)
    from racesl.train.tiny import save_tiny

    return save_tiny(tmp_path_factory.mktemp("tiny") / "model")
