"""Run in a framework's own venv (tests/integrations/hub_venvs.sh) by test_framework_*.py:
the parity corpus (tests.support.parity) scored through the framework's own reward code,
in a fresh process whose library caches are cold. Prints one JSON object: the rewards (and
statuses, where the framework passes them on) in the corpus's order, and what ran.

    python tests/integrations/run_framework.py verl|openrlhf|skyrl CORPUS_FOLDER WORK_FOLDER

- verl: `RewardLoopWorker` (config `reward.custom_reward_function` = racesl's adapters.py,
  `compute_score`) → `NaiveRewardManager.run_single` → `compute_score` in the event loop's
  default executor, over a `DataProto` of the rows `write_verl` writes;
- openrlhf: `SingleTurnAgentExecutor(remote_rm_url=adapters.py)` loads `reward_func` from
  the file and calls it through `asyncio.to_thread`, one `execute` per completion;
- skyrl: `SkyRLGymGenerator.generate` (batched=False, max_env_workers=32 from SkyRL's own
  default config) steps `racesl` envs in its thread pool.

No model: a byte-level tokenizer made here (exact round trip of any text) and an engine
stub that answers each prompt with its completion. Top-level imports: the standard library.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ADAPTERS = ROOT / "racesl" / "rewards" / "adapters.py"
CHAT = ("{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|eos|>{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>{% endif %}")


def read_corpus(folder: Path) -> tuple[list, dict, list[str]]:
    """(cases, records by id, completions) as tests.support.parity wrote them."""
    cases = json.loads((folder / "cases.json").read_text(encoding="utf-8"))
    records, texts = {}, []
    for name in ("std", "user"):
        for line in open(folder / name / "tasks.jsonl", encoding="utf-8"):
            r = json.loads(line)
            records[r["id"]] = r
        texts += [json.loads(line)["completion"] for line in open(folder / name / "completions.jsonl",
                                                                   encoding="utf-8")]
    return cases, records, texts


def tokenizer_dir(work: Path) -> Path:
    """A byte-level BPE tokenizer without merges (every byte a token, so decode(encode(t)) ==
    t) with a chat template, saved as a Hugging Face tokenizer folder."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {c: k for k, c in enumerate(sorted(alphabet))}
    for t in ("<|eos|>", "<|pad|>", "<|user|>", "<|assistant|>", "<|system|>"):
        vocab[t] = len(vocab)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|eos|>", pad_token="<|pad|>",
                                   additional_special_tokens=["<|user|>", "<|assistant|>", "<|system|>"])
    fast.chat_template = CHAT
    out = work / "tokenizer"
    fast.save_pretrained(str(out))
    return out


# ---------------------------------------------------------------- verl

def run_verl(folder: Path, work: Path) -> dict:
    import numpy as np
    import pyarrow.parquet as pq
    import torch
    from omegaconf import OmegaConf
    from verl import DataProto
    from verl.experimental.reward_loop.reward_loop import RewardLoopWorker

    from racesl.records import write_verl

    cases, records, texts = read_corpus(folder)
    write_verl([records[rid] for _, rid, _ in cases], work / "verl.parquet")  # one row per completion
    rows = pq.read_table(work / "verl.parquet").to_pylist()
    config = OmegaConf.create({
        "actor_rollout_ref": {"model": {"path": str(tokenizer_dir(work)), "tokenizer_path": None}},
        "reward": {"reward_model": {"enable": False},
                   "reward_manager": {"name": "naive", "source": "register"},
                   "custom_reward_function": {"path": str(ADAPTERS), "name": "compute_score", "reward_kwargs": {}}},
    })
    worker = RewardLoopWorker(config)  # loads the tokenizer and racesl's compute_score from the file
    tok = worker.input_tokenizer
    prompt_ids = [tok(row["prompt"][0]["content"], add_special_tokens=False)["input_ids"][:8] for row in rows]
    response_ids = [tok(t, add_special_tokens=False)["input_ids"] for t in texts]
    width = max(map(len, response_ids))
    pad = tok.pad_token_id
    responses = torch.tensor([ids + [pad] * (width - len(ids)) for ids in response_ids])
    prompts = torch.tensor([ids + [pad] * (8 - len(ids)) for ids in prompt_ids])
    mask = torch.cat([torch.ones_like(prompts), (torch.arange(width)[None, :] <
                                                 torch.tensor([len(i) for i in response_ids])[:, None]).long()], 1)
    data = DataProto.from_dict(
        tensors={"prompts": prompts, "responses": responses, "attention_mask": mask},
        non_tensors={k: np.array([row[k] for row in rows], dtype=object)
                     for k in ("data_source", "reward_model", "extra_info")})
    t0 = time.perf_counter()
    out = worker.loop.run_until_complete(worker.compute_score_batch(data))
    seconds = time.perf_counter() - t0
    return {"ran": "verl RewardLoopWorker.compute_score_batch -> NaiveRewardManager.run_single -> "
                   "racesl compute_score (loaded from adapters.py) in the loop's default executor",
            "executor_threads": min(32, (os.cpu_count() or 1) + 4), "seconds": seconds,
            "results": [[o["reward_score"], o["reward_extra_info"]["status"]] for o in out]}


# ---------------------------------------------------------------- OpenRLHF

class _Params:
    max_tokens = 4096
    logprobs = None


class _Engine:
    """vLLM's place: answers a prompt (token ids) with the completion made for it."""

    def __init__(self, tok, by_prompt: dict):
        self.tok, self.by_prompt = tok, by_prompt

    async def generate(self, prompt_token_ids, params, multi_modal_data=None):
        from types import SimpleNamespace

        text = self.by_prompt[tuple(prompt_token_ids)]
        ids = self.tok(text, add_special_tokens=False)["input_ids"]
        return SimpleNamespace(outputs=[SimpleNamespace(token_ids=ids, finish_reason="stop", logprobs=None)])


def run_openrlhf(folder: Path, work: Path) -> dict:
    from openrlhf.utils.agent import SingleTurnAgentExecutor
    from transformers import AutoTokenizer

    from racesl.rewards.score import STATUSES

    cases, records, texts = read_corpus(folder)
    tok = AutoTokenizer.from_pretrained(str(tokenizer_dir(work)))
    executor = SingleTurnAgentExecutor(remote_rm_url=str(ADAPTERS))  # loads reward_func from the .py path
    # each prompt made unique (the engine stub answers by prompt); the label is the record
    prompts = [f"[{k}] {records[rid]['prompt']}" for k, (_, rid, _) in enumerate(cases)]
    engine = _Engine(tok, {tuple(tok(p, add_special_tokens=False)["input_ids"]): t for p, t in zip(prompts, texts)})

    async def every():
        return await asyncio.gather(*(executor.execute(p, json.dumps(records[rid]), _Params(), 1 << 16, tok, engine)
                                      for p, (_, rid, _) in zip(prompts, cases)))

    t0 = time.perf_counter()
    out = asyncio.run(every())
    seconds = time.perf_counter() - t0
    results = []
    for o in out:
        logs = o["extra_logs"]
        status = next((s for s in STATUSES if float(logs[f"races/status/{s}"][0]) == 1.0), None)
        results.append([float(o["reward"][0]), status] if o["reward"] is not None else None)
    return {"ran": "OpenRLHF SingleTurnAgentExecutor(remote_rm_url=adapters.py).execute -> "
                   "_fetch_rewards_via_func -> asyncio.to_thread(reward_func)",
            "executor_threads": min(32, (os.cpu_count() or 1) + 4), "seconds": seconds, "results": results}


# ---------------------------------------------------------------- SkyRL

class _Client:
    """SkyRL's InferenceEngineClient's place: answers each session with its completion."""

    def __init__(self, tok, by_session: dict):
        self.tok, self.by_session = tok, by_session

    async def generate(self, engine_input):
        text = self.by_session[engine_input["session_ids"][0]]
        ids = self.tok(text, add_special_tokens=False)["input_ids"] + [self.tok.eos_token_id]
        return {"responses": [text], "response_ids": [ids], "stop_reasons": ["stop"], "response_logprobs": None}


def run_skyrl(folder: Path, work: Path) -> dict:
    import skyrl_train
    from omegaconf import OmegaConf
    from skyrl_train.generators.base import TrajectoryID
    from skyrl_train.generators.skyrl_gym_generator import SkyRLGymGenerator
    from transformers import AutoTokenizer

    import racesl.integrations.skyrl  # noqa: F401 - registers env_class "racesl", as the trainer's entry script would

    cases, records, texts = read_corpus(folder)
    tdir = tokenizer_dir(work)
    tok = AutoTokenizer.from_pretrained(str(tdir))
    conf = Path(skyrl_train.__file__).parent / "config"
    base = OmegaConf.load(conf / "ppo_base_config.yaml")
    base.trainer.policy.model.path = str(tdir)
    gen_cfg = base.generator
    gen_cfg.max_input_length = 1 << 16  # (prompts are long in a byte-level tokenizer's tokens)
    gym_cfg = OmegaConf.load(conf / "skyrl_gym_config" / "default.yaml")  # max_env_workers: 32
    ids = [TrajectoryID(instance_id=str(k), repetition_id=0) for k in range(len(cases))]
    client = _Client(tok, {t.to_string(): text for t, text in zip(ids, texts)})
    gen = SkyRLGymGenerator(gen_cfg, gym_cfg, client, tok, "racesl-parity")
    batch = {"prompts": [[{"role": "user", "content": records[rid]["prompt"]}] for _, rid, _ in cases],
             "env_classes": ["racesl"] * len(cases),
             "env_extras": [{"extra_info": {"record": json.dumps(records[rid])}} for _, rid, _ in cases],
             "trajectory_ids": ids}
    t0 = time.perf_counter()
    out = asyncio.run(gen.generate(batch, disable_tqdm=True))
    seconds = time.perf_counter() - t0
    rewards = [sum(r) if isinstance(r, list) else r for r in out["rewards"]]
    return {"ran": f"SkyRL SkyRLGymGenerator.generate (batched={gen.batched}) -> agent_loop -> env.step in its "
                   f"ThreadPoolExecutor ({gym_cfg.max_env_workers} workers)",
            "executor_threads": gym_cfg.max_env_workers, "seconds": seconds,
            "results": [[float(r), None] for r in rewards]}


if __name__ == "__main__":
    which, corpus_folder, work_folder = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    work_folder.mkdir(parents=True, exist_ok=True)
    got = {"verl": run_verl, "openrlhf": run_openrlhf, "skyrl": run_skyrl}[which](corpus_folder, work_folder)
    print(json.dumps(got))
