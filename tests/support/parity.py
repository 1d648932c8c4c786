"""The reward-parity corpus and the fresh process that scores it from 16 threads at once.

`corpus()` compiles a few hundred tasks once per test session (the stdlib, and the user
library tests/fixtures/parity/tally.races; each with its sidecar, as `racesc compile`
writes it), and writes beside them the
completions every path must score alike: gold, wrong, partly right, no answer, empty, junk,
wrong-typed, and answers a `@verify` checker accepts although they are not the recorded
value. `python -m tests.support.parity score-threads ...` is the fresh process: nothing of
racesl is loaded before its 16 threads start together (RACESL_LIBRARY_PATH names the user
library's sidecar), so the library lookups of their first calls race. It runs in the main
venv and, for OpenEnv, in the openenv hub venv: its top level imports the standard library
only. Not a test module.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import queue
import shutil
import sys
import tempfile
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
USER_LIBRARY = REPO / "tests" / "fixtures" / "parity" / "tally.races"
OPERATORS = "sequential=2-3,parallel=2-3,sort=2-3,select=2-3,branch=2-3,loop=2-3"
SEED = 7
SIZES = {"std": 200, "user": 120}  # tasks of each library
THREADS = 16
# the paths a completion is scored through inside one process (racesc score and racesc
# serve are processes of their own; OpenEnv runs in its hub venv)
IN_PROCESS = ("verdict", "score", "trl", "verl", "openrlhf", "skyrl")
HTTP = ("serve", "serve_openrlhf")
EXPECTED = {"gold": (1.0, "ok"), "verified": (1.0, "ok"), "no_answer": (0.0, "no_answer"), "empty": (0.0, "no_answer")}


# ---------------------------------------------------------------- the corpus

@functools.lru_cache(maxsize=1)
def corpus() -> Path:
    """A folder: std/ and user/, each with tasks.jsonl, its sidecar tasks.jsonl.library.json
    and completions.jsonl, and cases.json: [library, task id, kind] per line of
    the completions files, std's first."""
    from racesl import resources
    from racesl.compile import compile_tasks
    from racesl.library import load
    from racesl.records import to_record, write_jsonl
    from racesl.rewards import write_sidecar
    from racesl.search.config import CompileConfig, parse_operators

    root = Path(tempfile.mkdtemp(prefix="racesl-parity-"))
    atexit.register(shutil.rmtree, root, True)
    cases = []
    for name, paths in (("std", [resources.stdlib_dir()]), ("user", [USER_LIBRARY])):
        lib = load(paths)
        tasks, _ = compile_tasks(lib, CompileConfig(n=SIZES[name], seed=SEED, operators=parse_operators(OPERATORS)))
        records = [dict(to_record(t, k, SEED, lib.hash), id=f"{name}-{k:04d}") for k, t in enumerate(tasks)]
        (root / name).mkdir()
        write_jsonl(records, root / name / "tasks.jsonl")
        write_sidecar(lib, root / name / "tasks.jsonl.library.json")  # as racesc compile does
        rows = []
        for r in records:
            for kind, text in completions(r):
                rows.append({"id": r["id"], "completion": text})
                cases.append([name, r["id"], kind])
        with open(root / name / "completions.jsonl", "w", encoding="utf-8") as f:
            f.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    (root / "cases.json").write_text(json.dumps(cases), encoding="utf-8")
    return root


def wrap(text: str) -> str:
    return f"<answer>{text}</answer>"


def _other(text: str) -> str:
    """A different value of the same shape as the canonical text."""
    from racesl.runtime.contract import canonical, parse_literal
    from tests.support.tasks import perturb_value

    return canonical(perturb_value(parse_literal(text)))


def completions(r: dict) -> list[tuple[str, str]]:
    """(kind, completion) pairs for one record."""
    a, op = r["answer"], r["operator"]
    out = [("gold", f"Step by step, the chain gives this.\n{wrap(a)}"),
           ("no_answer", f"The answer is {a}."), ("empty", "<answer> </answer>"), ("junk", wrap(")(]"))]
    if op in ("sequential", "parallel"):
        items = r["trace"]
        wrong = [_other(t) for t in items]
        out += [("wrong", wrap("[" + ", ".join(wrong) + "]")),
                ("partial", wrap("[" + ", ".join(items[:-1] + wrong[-1:]) + "]")),
                ("partial_lines", wrap("\n".join(items[:1] + wrong[1:]))),
                ("one_value", wrap(items[0]))]
        alt = _verified_items(r)
        if alt is not None:
            out.append(("verified", wrap("[" + ", ".join(alt) + "]")))
    elif op in ("branch", "loop"):
        out += [("wrong", wrap(_other(a))), ("wrong_type", wrap(f"[{a}]")), ("spaced", wrap(f"  {a}\n"))]
    else:
        labels = a.split(", ")
        n = len(r["extra"]["candidates"])
        unused = [chr(65 + k) for k in range(n) if chr(65 + k) not in labels]
        out += [("reversed", wrap(", ".join(reversed(labels)))), ("short", wrap(", ".join(labels[:-1]))),
                ("repeated", wrap(", ".join(labels[:1] * len(labels)))),
                ("not_candidate", wrap(", ".join(labels[:-1] + ["Z"]))), ("lowercase", wrap(a.lower()))]
        if unused:
            out.append(("swapped_in", wrap(", ".join(labels[:-1] + unused[:1]))))
    return out


def _split_alt(x, got):
    """tally.split: any (a, b) with 0 <= a <= b and a + b = n."""
    a, b = got
    return (a - 1, b + 1) if a >= 1 else None


def _factor_alt(n, got):
    """numbers.factor_pair: any (a, b) with 2 <= a <= b and a * b = n."""
    return next(((a, n // a) for a in range(2, int(n ** 0.5) + 1) if n % a == 0 and (a, n // a) != got), None)


ALTERNATIVES = {"tally.split": _split_alt, "numbers.factor_pair": _factor_alt}


def _verified_items(r: dict) -> list[str] | None:
    """The record's items with every verified item (a parallel item, or a sequential
    chain's last step) replaced by another answer its checker accepts; None when there is
    none to replace."""
    from racesl.runtime.contract import canonical, parse_literal

    items, chain = list(r["trace"]), r["chain"]
    if r["operator"] == "parallel":
        where = [(k, r["extra"]["inputs"][k]) for k, q in enumerate(chain) if q in ALTERNATIVES]
    elif chain[-1] in ALTERNATIVES:
        where = [(len(items) - 1, items[-2] if len(items) > 1 else r["input"])]
    else:
        return None
    changed = False
    for k, x in where:
        alt = ALTERNATIVES[chain[k]](parse_literal(x), parse_literal(items[k]))
        if alt is not None:
            items[k], changed = canonical(alt), True
    return items if changed else None


# ---------------------------------------------------------------- the reference and the comparison

@functools.lru_cache(maxsize=1)
def reference() -> list[list]:
    """[score, status] of every completion by `racesc score` (one process, one thread), in
    cases.json's order."""
    import subprocess

    folder, rows = corpus(), []
    racesc = str(Path(sys.executable).with_name("racesc"))
    for name in ("std", "user"):
        d = folder / name
        p = subprocess.run([racesc, "score", d / "tasks.jsonl", d / "completions.jsonl", "-o", d / "scores.jsonl",
                            "--json"], capture_output=True, text=True, timeout=600, env=dict(os.environ, NO_COLOR="1"))
        assert p.returncode == 0, p.stderr[-2000:]
        rows += [json.loads(line) for line in open(d / "scores.jsonl", encoding="utf-8")]
    return [[r["score"], r["status"]] for r in rows]


@functools.lru_cache(maxsize=1)
def operators() -> dict[str, str]:
    """{task id: operator} of the corpus."""
    ops = {}
    for name in ("std", "user"):
        for line in open(corpus() / name / "tasks.jsonl", encoding="utf-8"):
            r = json.loads(line)
            ops[r["id"]] = r["operator"]
    return ops


FLOAT32 = frozenset({"openrlhf"})  # paths that hand the reward over as a float32 tensor


def _same(path: str, got: float, want: float) -> bool:
    """The same reward: equal, or equal once rounded to float32 where the path's reward is one."""
    import struct

    return got == want or (path in FLOAT32 and got == struct.unpack("f", struct.pack("f", want))[0])


def differences(path: str, got: list) -> list[str]:
    """Where a path's [score, status] pairs differ from racesc score's (a status of None: the
    path reports none), summed up by library, operator, kind of completion and verdicts."""
    from collections import Counter

    ops, diff = operators(), Counter()
    cases = json.loads((corpus() / "cases.json").read_text(encoding="utf-8"))
    for (lib, rid, kind), mine, ref in zip(cases, got, reference()):
        if mine is None or not _same(path, mine[0], ref[0]) or (mine[1] is not None and mine[1] != ref[1]):
            diff[(lib, ops[rid], kind, f"{ref[1]} {ref[0]:g}",
                  "nothing" if mine is None else f"{mine[1]} {mine[0]:g}")] += 1
    if len(got) != len(cases):
        diff[("-", "-", "-", f"{len(cases)} results", f"{len(got)}")] += 1
    return [f"{path}: {n} x {lib} {op} {kind}: racesc score says {ref}, {path} says {it}"
            for (lib, op, kind, ref, it), n in diff.most_common()]


# ---------------------------------------------------------------- the fresh process

def _score_with(path: str, records: list[dict], texts: list[str], url: str | None) -> list[list]:
    """[score, status] of each (record, completion) through one path (status None where the
    path reports none)."""
    if path == "verdict":
        from racesl.rewards import verdict

        return [[v.score, v.status] for v in (verdict(r, t) for r, t in zip(records, texts))]
    if path == "score":
        from racesl.rewards import score

        return [[score(r, t), None] for r, t in zip(records, texts)]
    if path == "trl":
        from racesl.rewards.adapters import races_reward

        shown = []
        got = races_reward(prompts=[r["prompt"] for r in records], completions=texts,
                           record=[json.dumps(r) for r in records], log_extra=lambda k, v: shown.extend(v))
        return [[s, st] for s, st in zip(got, shown)]
    if path == "verl":
        from racesl.rewards.adapters import compute_score

        out = [compute_score("racesl", t, r["answer"], {"index": 0, "record": json.dumps(r)})
               for r, t in zip(records, texts)]
        return [[d["score"], d["status"]] for d in out]
    if path == "openrlhf":
        from racesl.rewards.adapters import reward_func
        from racesl.rewards.score import STATUSES

        got = reward_func([r["prompt"] + t for r, t in zip(records, texts)], [r["prompt"] for r in records],
                          [json.dumps(r) for r in records])
        logs = got["extra_logs"]
        return [[float(got["rewards"][k]), next(s for s in STATUSES if logs[f"races/status/{s}"][k] == 1.0)]
                for k in range(len(records))]
    if path == "skyrl":
        import skyrl_gym

        import racesl.integrations.skyrl  # noqa: F401 - registers env_class "racesl"

        out = []
        for r, t in zip(records, texts):
            step = skyrl_gym.make("racesl", env_config={}, extras={"extra_info": {"record": json.dumps(r)}}).step(t)
            out.append([step["reward"], step["metadata"]["status"]])
        return out
    if path == "openenv":
        from racesl.integrations.openenv import RacesAction, RacesEnvironment

        out = []
        for r, t in zip(records, texts):
            env = RacesEnvironment()
            env.record = r  # the task a reset drew (in process: no stream needed)
            obs = env.step(RacesAction(answer=t))
            out.append([obs.reward, obs.status])
        return out
    if path == "serve":
        body = [{"id": r["id"], "completion": t} for r, t in zip(records, texts)]
        return [[row["score"], row["status"]] for row in _post(url + "/score", body)]
    if path == "serve_openrlhf":
        body = {"query": [r["prompt"] + t for r, t in zip(records, texts)], "prompts": [r["prompt"] for r in records],
                "labels": [r["id"] for r in records]}
        return [[s, None] for s in _post(url + "/openrlhf", body)["rewards"]]
    raise ValueError(f"unknown path {path}")


def _post(url: str, body) -> dict | list:
    import urllib.request

    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.loads(r.read())


def _jobs(cases: list, records: dict, paths: tuple[str, ...], batch: int) -> list[tuple[str, list[int]]]:
    """(path, case indices) batches. The first 2 per path are one right sort or select answer
    each (one of each library), so the 16 threads' first calls all look a library up."""
    first = [[k for k, (lib, rid, kind) in enumerate(cases)
              if lib == name and kind == "gold" and records[rid]["operator"] in ("sort", "select")]
             for name in ("std", "user")]
    jobs, taken = [], set()
    for n, path in enumerate(paths):
        for group in first:
            k = group[n % len(group)]
            jobs.append((path, [k]))
            taken.add((path, k))
    for path in paths:
        rest = [k for k in range(len(cases)) if (path, k) not in taken]
        jobs += [(path, rest[i:i + batch]) for i in range(0, len(rest), batch)]
    head, tail = jobs[:2 * len(paths)], jobs[2 * len(paths):]
    # interleave the paths' batches so all paths run at once throughout
    tail.sort(key=lambda job: (job[1][0], paths.index(job[0])))
    return head + tail


def score_threads(folder: str, paths: tuple[str, ...], out: str, url: str | None = None, batch: int = 8) -> None:
    """Score every completion of the corpus through every path, 16 threads at once; writes
    {path: [[score, status], ...]} (cases.json's order) and the wall time to `out`."""
    import time

    root = Path(folder)
    cases = json.loads((root / "cases.json").read_text(encoding="utf-8"))
    records, texts = {}, []
    for name in ("std", "user"):  # plain JSON: read_tasks would register the sidecar before the threads start
        for line in open(root / name / "tasks.jsonl", encoding="utf-8"):
            r = json.loads(line)
            records[r["id"]] = r
        texts += [json.loads(line)["completion"] for line in open(root / name / "completions.jsonl", encoding="utf-8")]
    work: queue.Queue = queue.Queue()
    for job in _jobs(cases, records, paths, batch):
        work.put(job)
    results = {p: [None] * len(cases) for p in paths}
    busy = dict.fromkeys(paths, 0.0)  # thread-seconds spent in each path
    errors: list[str] = []
    start = threading.Barrier(THREADS)

    def run() -> None:
        start.wait()
        while True:
            try:
                path, ks = work.get_nowait()
            except queue.Empty:
                return
            t = time.perf_counter()
            try:
                got = _score_with(path, [records[cases[k][1]] for k in ks], [texts[k] for k in ks], url)
                for k, v in zip(ks, got):
                    results[path][k] = v
            except Exception as e:  # noqa: BLE001 - reported, and the test fails on it
                errors.append(f"{path}: {type(e).__name__}: {e}")
            busy[path] += time.perf_counter() - t

    from racesl.rewards import libraries  # (registers nothing: whatever is there now was loaded before)

    before = len(libraries._LIBS)
    t0 = time.perf_counter()
    threads = [threading.Thread(target=run) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = {"results": results, "errors": errors[:20], "busy": busy, "libraries_before": before,
           "seconds": time.perf_counter() - t0}
    Path(out).write_text(json.dumps(got), encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) < 5 or sys.argv[1] != "score-threads":
        sys.exit("usage: python -m tests.support.parity score-threads FOLDER PATHS(,-separated) OUT [URL]")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    score_threads(sys.argv[2], tuple(sys.argv[3].split(",")), sys.argv[4], *sys.argv[5:6])
