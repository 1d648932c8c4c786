"""`racesc evolve CONFIG --train`: one policy in both roles under TRL 1.16 GRPO (EvoEnv).

The dataset streams rows with a `role` column: "generator" rows ask for a new `.races`
module (the evolve generator prompt for (step, slot)), "solver" rows carry a task compiled
from the current pool (its record travels as JSON for the reward). Every generation batch
holds both roles: of its P unique prompts the first `generators` are generator rows.

Two reward functions, each None on the other role's rows (TRL turns None into NaN and
ignores it; a row is never None in both):
- `solver_reward`: racesl.rewards' score of the completion against the task record;
- `generator_reward`: the ```races block of the completion through the admission gates
  against the pool (admitted ones join it, and the solver rows are compiled from the grown
  pool from then on), rewarded by racesl.evolve.reward.generator_reward.

EvoEnv weights the generator's *advantage* by 0.3. TRL's `reward_weights` weight rewards
before the group normalisation: every group here is one prompt, hence one role, so under
the default `scale_rewards = "group"` the weight cancels exactly ((w·r − mean)/(std(w·r))).
`TwoRoleTrainer` therefore multiplies the generator rows' advantages after TRL computed
them, which is EvoEnv's rule whatever `scale_rewards` says; `reward_weights` stay 1.

The generator's funnel (candidates in, stopped at extract / each gate, admitted) is logged
as TRL metrics (`evolve/...`) and, one line per candidate, in OUTPUT/evolve.jsonl.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs

from racesl.evolve.extract import extract_module
from racesl.rewards.adapters import completion_text

GENERATOR, SOLVER = "generator", "solver"
GENERATOR_WEIGHT = 0.3  # EvoEnv: the generator's advantage weight
EXTRACT = "extract"  # funnel stage before the gates: no ```races block in the completion


# ------------------------------------------------------------ rows


def _messages(content: Any, system_prompt: str | None, chat: bool):
    if isinstance(content, list):  # already chat messages
        return content if chat else "\n\n".join(m["content"] for m in content)
    if chat:
        return ([{"role": "system", "content": system_prompt}] if system_prompt else []) + \
               [{"role": "user", "content": content}]
    return (system_prompt + "\n\n" if system_prompt else "") + content


class RoleSource:
    """The two-role row stream. Block k (one generation batch of `per_batch` unique
    prompts) holds `generators` generator rows (step k, slots 0..) then solver rows from
    `tasks_factory(start)`: (task index, record) pairs from index `start` on, made anew
    after the pool changed, continuing at the next index).
    Deterministic: the same pool, seed and admissions give the same rows."""

    def __init__(self, generator_prompt: Callable[[int, int], Any],
                 tasks_factory: Callable[[int], Iterator[tuple[int, dict]]], per_batch: int, generators: int, *,
                 system_prompt: str | None = None, chat: bool = True):
        if not 0 < generators < per_batch:
            raise ValueError(f"a generation batch of {per_batch} prompts needs 1..{per_batch - 1} generator rows "
                             f"to hold both roles (got {generators})")
        self.generator_prompt = generator_prompt
        self.tasks_factory = tasks_factory
        self.per_batch = per_batch
        self.generators = generators
        self.system_prompt = system_prompt
        self.chat = chat
        self.counts: Counter = Counter()  # rows yielded by role
        self._tasks: Iterator[dict] | None = None
        self._next_task = 0  # index of the next solver task (carried over a rebuild)
        self.rebuilds = 0

    def pool_changed(self) -> None:
        """The pool grew: the next solver row is compiled from the new pool."""
        self._tasks = None

    def _task(self) -> dict:
        if self._tasks is None:
            self._tasks = self.tasks_factory(self._next_task)
            self.rebuilds += 1
        index, rec = next(self._tasks)
        self._next_task = index + 1
        return rec

    def rows(self) -> Iterator[dict]:
        step = 0
        while True:
            for slot in range(self.per_batch):
                if slot < self.generators:
                    prompt = self.generator_prompt(step, slot)
                    row = {"prompt": _messages(prompt, self.system_prompt, self.chat), "role": GENERATOR,
                           "record": "", "gen_step": step, "gen_slot": slot}
                else:
                    rec = self._task()
                    row = {"prompt": _messages(rec["prompt"], self.system_prompt, self.chat), "role": SOLVER,
                           "record": json.dumps(rec, ensure_ascii=False), "gen_step": -1, "gen_slot": -1}
                self.counts[row["role"]] += 1
                yield row
            step += 1


def pool_tasks(library: Callable[[], Any], compile_cfg) -> Callable[[int], Iterator[tuple[int, dict]]]:
    """tasks_factory(start): (index, record) pairs compiled on the fly from the pool's current library
    (racesl.train.stream.TaskStream: task i from item_rng(seed, "task", i))."""

    def factory(start: int) -> Iterator[tuple[int, dict]]:
        from racesl.train.stream import TaskStream

        stream = TaskStream(library(), compile_cfg, None, start=start)
        return ((int(rec["id"].rsplit("-", 1)[1]), rec) for rec, _rung in stream.records())

    return factory


# ------------------------------------------------------------ rewards


def _roles(role, n: int) -> list[str]:
    return list(role) if role is not None else [SOLVER] * n


class SolverReward:
    """racesl.rewards' score on solver rows, None on generator rows."""

    __name__ = "solver_reward"

    def __init__(self):
        from racesl.train.rewards import RacesReward

        self.inner = RacesReward()  # logs races/<op>/reward and the verdict statuses

    @property
    def seconds(self) -> float:
        return self.inner.seconds

    def __call__(self, prompts=None, completions=None, role=None, record=None, log_metric=None, log_extra=None,
                 **_) -> list[float | None]:
        completions = list(completions or [])
        roles = _roles(role, len(completions))
        idx = [k for k, r in enumerate(roles) if r == SOLVER]
        out: list[float | None] = [None] * len(completions)
        if idx:
            scores = self.inner(completions=[completions[k] for k in idx],
                                record=[record[k] for k in idx] if record is not None else None,
                                log_metric=log_metric)
            for k, s in zip(idx, scores):
                out[k] = s
        return out


@attrs.frozen
class Candidate:
    """One generator completion's way through the funnel (a line of evolve.jsonl)."""

    step: int
    slot: int
    sample: int  # which of the prompt's completions
    stage: str  # "extract", the first failed gate, or "admitted"
    reason: str
    reward: float
    module: str | None
    seconds: float
    scores: dict = attrs.field(factory=dict)

    def to_json(self) -> dict:
        return {"step": self.step, "slot": self.slot, "sample": self.sample, "stage": self.stage,
                "reason": self.reason, "reward": round(self.reward, 4), "module": self.module,
                "seconds": round(self.seconds, 3), "scores": self.scores}


class GeneratorReward:
    """Generator rows: extract the module, run the gates, admit, reward; None on solver rows.

    `admit(text, file) -> (Verdict, Outcome)` (racesl.admit.run.admit_text over a Context),
    `on_admitted(outcome, step)` adds an admitted one to the pool, `reward(verdict, scores)`
    is the generator reward. Candidates run one after another, so a later one in the batch
    is compared with those admitted before it."""

    __name__ = "generator_reward"

    def __init__(self, admit: Callable, reward: Callable, *, extract: Callable[[str], str | None] = extract_module,
                 on_admitted: Callable | None = None, log_path: str | Path | None = None):
        self.admit = admit
        self.reward = reward
        self.extract = extract
        self.on_admitted = on_admitted
        self.log_path = Path(log_path) if log_path else None
        self.funnel: Counter = Counter()
        self.seconds = 0.0
        self.admitted: list[str] = []
        self._seen: Counter = Counter()  # (step, slot) → completions scored so far

    def _one(self, text: str, step: int, slot: int, sample: int) -> Candidate:
        from racesl.admit.gates import Verdict

        t0 = time.perf_counter()
        file = f"<step {step} slot {slot} sample {sample}>"
        block = self.extract(text)
        if block is None:
            verdict = Verdict(file, False, "parse", "no ```races block in the completion: write the module "
                              "inside ```races ... ```", {"parse": {"extract": 0}})
            return Candidate(step, slot, sample, EXTRACT, verdict.reason, float(self.reward(verdict, verdict.scores)),
                             None, time.perf_counter() - t0, verdict.scores)
        verdict, outcome = self.admit(block, file)
        if verdict.admitted:
            self.admitted.append(verdict.module)
            if self.on_admitted is not None:
                self.on_admitted(outcome, step)
        stage = "admitted" if verdict.admitted else (verdict.gate or "?")
        return Candidate(step, slot, sample, stage, verdict.reason, float(self.reward(verdict, verdict.scores)),
                         verdict.module, time.perf_counter() - t0, verdict.scores)

    def __call__(self, prompts=None, completions=None, role=None, gen_step=None, gen_slot=None, log_metric=None,
                 **_) -> list[float | None]:
        t0 = time.perf_counter()
        completions = list(completions or [])
        roles = _roles(role, len(completions))
        out: list[float | None] = [None] * len(completions)
        batch: list[Candidate] = []
        for k, c in enumerate(completions):
            if roles[k] != GENERATOR:
                continue
            step = int(gen_step[k]) if gen_step is not None else -1
            slot = int(gen_slot[k]) if gen_slot is not None else -1
            sample = self._seen[(step, slot)]
            self._seen[(step, slot)] += 1
            cand = self._one(completion_text(c), step, slot, sample)
            out[k] = cand.reward
            batch.append(cand)
        self._record(batch, log_metric)
        self.seconds += time.perf_counter() - t0
        return out

    def _record(self, batch: list[Candidate], log_metric) -> None:
        if not batch:
            return
        stages = Counter(c.stage for c in batch)
        self.funnel["candidates"] += len(batch)
        self.funnel.update(stages)
        if log_metric is not None:
            n = len(batch)
            log_metric("evolve/candidates", float(n))
            log_metric("evolve/admitted", stages.get("admitted", 0) / n)
            log_metric("evolve/extracted", 1.0 - stages.get(EXTRACT, 0) / n)
            for stage, k in sorted(stages.items()):
                if stage != "admitted":
                    log_metric(f"evolve/stopped/{stage}", k / n)
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with self.log_path.open("a", encoding="utf-8") as f:
                for c in batch:
                    f.write(json.dumps(c.to_json(), ensure_ascii=False) + "\n")

    def funnel_dict(self) -> dict:
        """Candidates in, stopped at each stage (extract, then the gates in order), admitted."""
        from racesl.admit.gates import GATES

        out = {"candidates": self.funnel.get("candidates", 0), EXTRACT: self.funnel.get(EXTRACT, 0)}
        for g in GATES:
            out[g] = self.funnel.get(g, 0)
        for k, v in sorted(self.funnel.items()):  # anything else a verdict named
            out.setdefault(k, v)
        out["admitted"] = self.funnel.get("admitted", 0)
        return out


# ------------------------------------------------------------ the trainer


def role_weights(roles, generator_weight: float) -> list[float]:
    """Per-row advantage weights: generator rows × generator_weight, solver rows × 1."""
    return [generator_weight if r == GENERATOR else 1.0 for r in roles]


def two_role_trainer_class():
    """GRPOTrainer whose generator rows' advantages are scaled by `generator_weight`
    (imports trl; TRL 1.16's `_generate_and_score_completions` returns the local rows'
    advantages in the order of `inputs`)."""
    import torch
    from trl import GRPOTrainer

    class TwoRoleTrainer(GRPOTrainer):
        generator_weight = GENERATOR_WEIGHT
        # (step, slot) → the generation grammar of that generator row, or None: free generation
        generator_grammar: Callable[[int, int], str] | None = None
        _row_grammars: list | None = None

        def _generate_and_score_completions(self, inputs):
            if self.generator_grammar is not None:
                self._row_grammars = [self.generator_grammar(int(x["gen_step"]), int(x["gen_slot"]))
                                      if x.get("role") == GENERATOR else None for x in inputs]
            try:
                out = super()._generate_and_score_completions(inputs)
            finally:
                self._row_grammars = None
            adv = out["advantages"]
            w = torch.tensor(role_weights([x.get("role", SOLVER) for x in inputs], self.generator_weight),
                             dtype=adv.dtype, device=adv.device)
            out["advantages"] = adv * w
            return out

        def _generate_single_turn(self, prompt_ids, *args, **kwargs):
            """TRL's transformers generation, with the generator rows masked by their grammar
            (racesl.generation.constrained.GrammarMask) through the model's `generate`."""
            grammars = self._row_grammars
            if not grammars or not any(grammars) or len(grammars) != len(prompt_ids):
                return super()._generate_single_turn(prompt_ids, *args, **kwargs)
            from transformers import LogitsProcessorList

            from racesl.generation.constrained import GrammarMask

            model = self.accelerator.unwrap_model(self.model_wrapped)
            inner = model.generate
            tok = self.processing_class
            vocab = model.get_output_embeddings().weight.shape[0]

            def generate(*a, **k):
                mask = GrammarMask(tok, grammars, vocab, list(self.eos_token_ids))
                k["logits_processor"] = LogitsProcessorList([mask, *(k.get("logits_processor") or [])])
                return inner(*a, **k)

            model.generate = generate  # an instance attribute: shadows the class's method for this call
            try:
                return super()._generate_single_turn(prompt_ids, *args, **kwargs)
            finally:
                del model.generate

    return TwoRoleTrainer


@attrs.define
class Built:
    trainer: Any
    source: RoleSource
    solver: SolverReward
    generator: GeneratorReward
    tokenizer: Any
    args: Any
    context: Any = None


def _train_tables(train: dict) -> dict:
    """The evolve TOML's [train] as train-TOML tables: its sub-tables ([train.model],
    [train.grpo], ...) are those sections, its plain keys [grpo] settings."""
    from racesl.train.config import SECTIONS

    tables: dict = {}
    for k, v in (train or {}).items():
        if isinstance(v, dict) and k in SECTIONS:
            tables[k] = dict(v)
        else:
            tables.setdefault("grpo", {})[k] = v
    return tables


def train_config(cfg, overrides=()):
    """A racesl.train TrainConfig from the evolve config's [train] (checked like a train TOML)."""
    from racesl.train.config import apply_overrides, parse

    base = Path(cfg.path).resolve().parent if getattr(cfg, "path", None) else Path.cwd()
    return parse(apply_overrides(_train_tables(getattr(cfg, "train", {}) or {}), list(overrides)), base,
                 getattr(cfg, "path", None))


def build(tcfg, *, generator_prompt: Callable[[int, int], Any], library: Callable[[], Any], admit: Callable,
          reward: Callable, extract: Callable[[str], str | None] = extract_module, on_admitted: Callable | None = None,
          generators: int = 1, generator_weight: float = GENERATOR_WEIGHT, model: str | None = None,
          output_dir: str | None = None, max_steps: int | None = None, context=None,
          constrained: bool | None = False) -> Built:
    """The two-role GRPO trainer from a TrainConfig (model, [grpo], launch) and the evolve
    pieces: the generator prompt for (step, slot), the pool's current Library, the gates
    (`admit(text, file)`), the generator reward (`reward(verdict, scores)`). `constrained`:
    sample the generator rows under the generation grammar (None: when llguidance is installed
    and generation is not by vLLM; True where impossible is a TrainError)."""
    from racesl.train import stream as S
    from racesl.train.trainer import TrainError, check_vllm, grpo_config, load_tokenizer, world_size

    if world_size() > 1:
        raise TrainError("evolve --train runs in one process (the pool is written by one admitter); "
                         "use DeepSpeed in a single process, or `racesc evolve` with --endpoint for scale")
    model_path = model or tcfg.model.path
    if not model_path:
        raise TrainError("no model: set [train.model] path or pass --model")
    if Path(model_path).expanduser().exists():
        model_path = str(Path(model_path).expanduser().resolve())
    check_vllm(tcfg)
    args = grpo_config(tcfg, output_dir, max_steps, streaming=True)
    per_batch = args.generation_batch_size // args.num_generations
    if per_batch < 2:
        raise TrainError(f"generation_batch_size {args.generation_batch_size} / num_generations "
                         f"{args.num_generations} = {per_batch} prompt(s) a batch: both roles need at least 2")
    if not 0 < generators < per_batch:
        raise TrainError(f"[generator] rows per batch must be 1..{per_batch - 1} (a batch has {per_batch} prompts)")
    tokenizer = load_tokenizer(tcfg, model_path)
    source = RoleSource(generator_prompt, pool_tasks(library, tcfg.compile), per_batch, generators,
                        system_prompt=tcfg.model.system_prompt, chat=tcfg.model.chat)
    dataset = S.iterable_dataset(source, key=f"evolve-{id(source)}")
    out = Path(args.output_dir)
    log_path = out / "evolve.jsonl"

    def admitted(outcome, step):
        if on_admitted is not None:
            on_admitted(outcome, step)
        source.pool_changed()

    use_grammar = _use_grammar(constrained, bool(getattr(args, "use_vllm", False)))
    if use_grammar:
        from racesl.evolve.extract import module_text

        def extract(text, _plain=extract):  # noqa: F811 - the completion is the module itself
            return module_text(text, True).text

    solver = SolverReward()
    generator = GeneratorReward(admit, reward, extract=extract, on_admitted=admitted, log_path=log_path)
    cls = two_role_trainer_class()
    try:
        trainer = cls(model=model_path, reward_funcs=[solver, generator], args=args, train_dataset=dataset,
                      processing_class=tokenizer, callbacks=[funnel_callback(generator, source)])
    except OSError as e:
        raise TrainError(f"cannot load the model from {model_path}: {e}") from None
    trainer.generator_weight = float(generator_weight)
    if use_grammar:
        from racesl.evolve.grammar import generation_grammar
        from racesl.evolve.prompt import module_name

        trainer.generator_grammar = lambda step, slot: generation_grammar(module_name(step, slot))
    out.mkdir(parents=True, exist_ok=True)
    from racesl.atomic import atomic_write

    # one file per run, written under the output policy (a FIFO or a folder there is refused)
    atomic_write(log_path, lambda tmp: Path(tmp).write_text("", encoding="utf-8"))
    return Built(trainer, source, solver, generator, tokenizer, args, context)


def _use_grammar(constrained: bool | None, vllm: bool) -> bool:
    """Whether the generator rows decode under the grammar (see `build`)."""
    from racesl.generation.constrained import INSTALL, available
    from racesl.train.trainer import TrainError

    why = ("TRL's vLLM generation takes a regex, not a grammar: set [generator] constrained = false, or generate "
           "with transformers" if vllm else None) or (None if available() else f"it needs llguidance: {INSTALL}")
    if constrained and why:
        raise TrainError(f"[generator] constrained = true, but {why}")
    return bool(constrained if constrained is not None else why is None)


def funnel_callback(generator: GeneratorReward, source: RoleSource):
    """A TrainerCallback putting the cumulative funnel and row counts in every log entry
    (and trainer_state.json). Made here so that importing this module needs no transformers."""
    from transformers import TrainerCallback

    from racesl.train.callbacks import _record

    class FunnelCallback(TrainerCallback):
        def on_log(self, args, state, control, logs=None, **kwargs):
            extra = {f"evolve/funnel/{k}": v for k, v in generator.funnel_dict().items()}
            extra["evolve/rows/generator"] = source.counts[GENERATOR]
            extra["evolve/rows/solver"] = source.counts[SOLVER]
            extra["evolve/gate_seconds"] = round(generator.seconds, 3)
            _record(state, logs, extra)
            return control

    return FunnelCallback()


def run(built: Built, *, save: bool = True) -> dict:
    """Train; returns (and writes to OUTPUT/evolve_summary.json) what happened."""
    trainer, args = built.trainer, built.args
    t0 = time.perf_counter()
    result = trainer.train()
    seconds = time.perf_counter() - t0
    if save:
        trainer.save_model(args.output_dir)
        built.tokenizer.save_pretrained(args.output_dir)
    steps = trainer.state.global_step
    summary = {
        "steps": steps,
        "seconds": round(seconds, 3),
        "seconds_per_step": round(seconds / steps, 3) if steps else None,
        "train_loss": getattr(result, "training_loss", None),
        "generator_weight": trainer.generator_weight,
        "rows": dict(built.source.counts),
        "funnel": built.generator.funnel_dict(),
        "admitted": list(built.generator.admitted),
        "gate_seconds": round(built.generator.seconds, 3),
        "solver_reward_seconds": round(built.solver.seconds, 3),
        "pool_rebuilds": built.source.rebuilds,
        "output_dir": str(args.output_dir),
    }
    out = Path(args.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    from racesl.atomic import atomic_write

    atomic_write(out / "evolve_summary.json", lambda tmp: Path(tmp).write_text(json.dumps(summary, indent=1), "utf-8"))
    return summary


# ------------------------------------------------------------ the policy as the gates' model


class PolicyBackend:
    """The model gates' backend (review, calibration) when the policy itself is the model:
    the trainer's current weights, generating in process. Each request draws from its own
    seed inside a forked RNG, so the training's random stream is untouched; never raises."""

    name = "policy"

    def __init__(self, trainer, tokenizer, chat: bool = True):
        self.trainer = trainer
        self.tokenizer = tokenizer
        self.chat = chat and bool(getattr(tokenizer, "chat_template", None))

    def _text(self, req) -> str:
        system, prompt = getattr(req, "system", None), req.prompt
        if self.chat:
            msgs = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]
            return self.tokenizer.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
        return (system + "\n\n" if system else "") + prompt

    def _one(self, req) -> tuple[str, ...]:
        import torch
        from trl.models.utils import unwrap_model_for_generation

        tr, tok = self.trainer, self.tokenizer
        ids = tok(self._text(req), return_tensors="pt", add_special_tokens=False).to(tr.accelerator.device)
        temperature = float(getattr(req, "temperature", 1.0) or 0.0)
        sampling = {"do_sample": True, "temperature": temperature} if temperature > 0 else {"do_sample": False}
        devices = [tr.accelerator.device] if tr.accelerator.device.type == "cuda" else []
        with torch.random.fork_rng(devices=devices), torch.no_grad(), \
                unwrap_model_for_generation(tr.model_wrapped, tr.accelerator,
                                            gradient_checkpointing_kwargs=tr.args.gradient_checkpointing_kwargs) as m:
            torch.manual_seed(int(getattr(req, "seed", 0) or 0))
            was = m.training
            m.eval()
            try:
                gen = m.generate(**ids, max_new_tokens=int(getattr(req, "max_tokens", 256) or 256),
                                 num_return_sequences=int(getattr(req, "n", 1) or 1), pad_token_id=tok.pad_token_id,
                                 **sampling)
            finally:
                m.train(was)
        start = ids["input_ids"].shape[1]
        return tuple(tok.decode(g[start:], skip_special_tokens=True) for g in gen)

    def generate(self, requests) -> list:
        from racesl.generation import Reply as reply

        out = []
        for req in requests:
            t0 = time.perf_counter()
            try:
                out.append(reply(self._one(req), "ok", "", time.perf_counter() - t0))
            except Exception as e:  # noqa: BLE001 - a backend never raises: the reply says what went wrong
                out.append(reply((), "error", f"{type(e).__name__}: {e}", time.perf_counter() - t0))
        return out

    def close(self) -> None:
        pass


# ------------------------------------------------------------ the command


def default_hooks(cfg, ctx):
    """(generator_prompt(step, slot), extract(text), reward(verdict, scores)) from the
    evolve package: racesl.evolve.prompt, .extract and .reward with the config's weights."""
    from racesl.evolve import prompt as P
    from racesl.evolve import reward as R

    weights = getattr(cfg, "reward", None)
    make_prompt = P.generator_prompt
    gen_cfg = getattr(cfg, "generator", None)

    def prompt(step: int, slot: int):
        return make_prompt(ctx.pool, gen_cfg, step, slot)

    def reward(verdict, scores):
        return R.generator_reward(verdict, scores, weights)

    return prompt, extract_module, reward


def default_context(cfg):
    """The admission Context over the config's pool (racesl.pool.Pool)."""
    from racesl.admit.context import AdmitConfig, Context
    from racesl.pool import Pool

    pc = getattr(cfg, "pool", None)
    where = getattr(pc, "dir", None) or getattr(pc, "path", None) or "stdlib"
    seeds = tuple(getattr(pc, "seeds", ("stdlib",)) or ("stdlib",))
    admit_cfg = getattr(cfg, "admit", None)
    return Context(Pool.open(where, seeds=seeds), admit_cfg if isinstance(admit_cfg, AdmitConfig) else AdmitConfig())


def fail(msg: str, code: int = 2) -> int:
    """As racesl.cli.common.fail (evolve sits below cli in the layering)."""
    import sys

    print(f"racesc: error: {msg}", file=sys.stderr)
    return code


def train_evolve(cfg, args, *, context=None, hooks=None, echo=print) -> int:
    """`racesc evolve CONFIG --train`: both roles under GRPO; prints the funnel. 0, or 2
    with one line for a setup problem. `context` (an admission Context over the pool) and
    `hooks` ((prompt, extract, reward) as in `default_hooks`) default to the evolve
    package's; with no model backend on the context, the policy itself answers the model
    gates (review, calibration)."""
    from racesl.search.config import ConfigError

    try:
        import torch  # noqa: F401
        import trl  # noqa: F401
    except ImportError as e:
        return fail(f"racesc evolve --train needs the training extra ({e.name} is missing): "
                    "pip install -e '.[train]' in the racesl checkout")
    from racesl.admit.run import admit_text
    from racesl.train.trainer import TrainError

    try:
        tcfg = train_config(cfg, getattr(args, "set", ()) or ())
    except ConfigError as e:
        return fail(str(e))
    ctx = context
    try:
        ctx = ctx if ctx is not None else default_context(cfg)
        prompt, extract, reward = hooks if hooks is not None else default_hooks(cfg, ctx)
        name = str(getattr(args, "model", None) or tcfg.model.path)

        def on_admitted(outcome, step):
            ctx.admitted(outcome, write=True, generator=name, step=step, origin="generated")

        gen = getattr(cfg, "generator", None)
        weight = getattr(getattr(cfg, "reward", None), "generator_weight", GENERATOR_WEIGHT)
        built = build(tcfg, generator_prompt=prompt, library=ctx.pool_lib,
                      admit=lambda text, file: admit_text(text, file, ctx), reward=reward, extract=extract,
                      on_admitted=on_admitted, generators=int(getattr(gen, "rows_per_batch", 1) or 1),
                      generator_weight=float(weight), model=getattr(args, "model", None),
                      output_dir=getattr(args, "output_dir", None), max_steps=getattr(args, "max_steps", None),
                      context=ctx, constrained=getattr(gen, "constrained", None))
        if ctx.backend is None and not getattr(args, "no_model_gates", False):
            ctx.backend = PolicyBackend(built.trainer, built.tokenizer, tcfg.model.chat)
        summary = run(built, save=not getattr(args, "no_save", False))
    except TrainError as e:
        return fail(str(e))
    finally:
        if ctx is not None and context is None:
            ctx.close()
    echo(render_summary(summary))
    return 0


def render_summary(summary: dict) -> str:
    f = summary["funnel"]
    stages = [k for k in f if k not in ("candidates", "admitted") and f[k]]
    lines = [(f"trained {summary['steps']} steps in {summary['seconds']:.1f} s "
              f"({summary['seconds_per_step']} s/step) → {summary['output_dir']}"),
             (f"rows: {summary['rows'].get(GENERATOR, 0)} generator, {summary['rows'].get(SOLVER, 0)} solver; "
              f"generator advantage × {summary['generator_weight']}"),
             f"funnel: {f['candidates']} candidates → " + ", ".join(f"{f[k]} stopped at {k}" for k in stages)
             + (", " if stages else "") + f"{f['admitted']} admitted"]
    return "\n".join(lines)
