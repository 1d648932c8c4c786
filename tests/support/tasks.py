"""Shared helpers for the composition-stage tests: the stdlib library, small cached
compiles, toy libraries, an independent re-execution oracle for sort/select, and value
perturbation.

Not a test module (no `test_` prefix). Cached results are shared by every test module of
one pytest session; callers get deep copies, so mutating a record never leaks.
"""

from __future__ import annotations

import copy
import functools
import os
import re
import subprocess
import sys
from pathlib import Path

from racesl import resources
from racesl.compile import compile_tasks
from racesl.records import to_record
from racesl.rewards import register
from racesl.runtime.contract import canonical, parse_literal
from racesl.search.config import CompileConfig

REPO = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
RACESC = str(Path(PYTHON).with_name("racesc"))
OPERATORS = ("sequential", "parallel", "sort", "select", "branch", "loop")


@functools.lru_cache(maxsize=1)
def stdlib():
    from racesl.library import load

    lib = load([resources.stdlib_dir()])
    register(lib)
    return lib


@functools.lru_cache(maxsize=8)
def _compiled(n: int, seed: int):
    lib = stdlib()
    tasks, summary = compile_tasks(lib, CompileConfig(n=n, seed=seed))
    return tuple(tasks), summary, tuple(to_record(t, k, seed, lib.hash) for k, t in enumerate(tasks))


def stdlib_records(n: int = 600, seed: int = 0) -> list[dict]:
    """Records of a small stdlib compile (cached per session; deep copies)."""
    return copy.deepcopy(list(_compiled(n, seed)[2]))


def stdlib_tasks(n: int = 600, seed: int = 0):
    tasks, summary, _ = _compiled(n, seed)
    return list(tasks), summary


def toy_library(module: str, *envs: str, top: int = 300, pick_top: int = 90) -> str:
    """Source of a small library: a `Nat` up to `top`, a sampler `pick_n` of 2..`pick_top`,
    and `envs` (texts of one or more environments), every `env` sampled by `pick_n`.

    Compile tests each want a few environments of their own; only those should differ.
    """
    head = (f"module {module}\n\ntype Nat = Int where 0 <= it <= {top}\n\n"
            f"def pick_n(rng, level) -> Int:\n    return rng.randint(2, {pick_top})\n\n")
    return head + re.sub(r"^env ", "@sample(n=pick_n)\nenv ", "\n".join(envs), flags=re.M)


# Environments more than one toy library has.
TRIPLE = '''\
env triple(n: Nat) -> Nat:
    """Multiply n by 3, capped at 300."""
    return min(3 * n, 300)
'''
HALVE = '''\
env halve(n: Nat) -> Nat:
    """Halve n, rounding down."""
    return n // 2
'''

# a toy library of four environments (the rewards and CLI tests)
TOY = toy_library("shop", '''\
env add_k(n: Nat, k: Int where 2 <= it <= 9) -> Nat:
    """Add {k} to n."""
    return min(n + k, 300)
''', TRIPLE, '''\
env sub_k(n: Nat, k: Int where 2 <= it <= 9) -> Nat:
    """Subtract {k} from n, stopping at 0."""
    return max(n - k, 0)
''', HALVE)


def one_per_operator(records: list[dict]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for r in records:
        out.setdefault(r["operator"], r)
    return out


def wrap(text: str) -> str:
    return f"<answer>{text}</answer>"


def letters(n: int) -> list[str]:
    return [chr(ord("A") + k) for k in range(n)]


def oracle_reaches(lib, record: dict, labels: list[str]) -> bool:
    """Independent re-execution: do these candidates, in this order, take x0 to the target?"""
    cands = record["extra"]["candidates"]
    value = parse_literal(record["input"])
    for lab in labels:
        c = cands[ord(lab) - ord("A")]
        env = lib.envs[c["env"]]
        settings = tuple(parse_literal(c["settings"][s.name]) for s in env.settings)
        if lib.conforms(value, env.input) is not None:
            return False
        r = lib.run(env, value, settings, fuel=400)
        if not r.ok:
            return False
        value = r.value
    return canonical(value) == record["extra"]["target"]


def replay_chain(lib, x_text: str, chain, settings) -> list[str]:
    """Run environments one after another from x (settings as canonical texts); the trace."""
    value = parse_literal(x_text)
    out = []
    for q, st in zip(chain, settings):
        env = lib.envs[q]
        args = tuple(parse_literal(st[s.name]) for s in env.settings)
        r = lib.run(env, value, args, fuel=400)
        assert r.ok, (q, x_text, r)
        value = r.value
        out.append(canonical(value))
    return out


def perturb_value(v):
    """A different value of the same shape (as far as possible)."""
    if type(v) is bool:
        return not v
    if type(v) is int:
        return v + 1
    if type(v) is str:
        return v + "q" if v else "q"
    if type(v) is list:
        return [perturb_value(v[0])] + v[1:] if v else [0]
    if type(v) is tuple:
        return (perturb_value(v[0]),) + v[1:] if v else (0,)
    if type(v) is dict:
        if v:
            k = next(iter(v))
            return {**v, k: perturb_value(v[k])}
        return {0: 0}
    raise TypeError(type(v))


def perturb(text: str) -> str:
    new = canonical(perturb_value(parse_literal(text)))
    assert new != text
    return new


def run_racesc(*args, cwd=None, timeout=120, env=None, check=True) -> subprocess.CompletedProcess:
    e = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    e.update(env or {})
    p = subprocess.run([RACESC, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=e)
    if check:
        assert p.returncode == 0, f"racesc {' '.join(map(str, args))} exited {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p


def default_sigint() -> None:
    """preexec_fn of a child a test interrupts with SIGINT: Ctrl-C's default action, whatever the
    test process holds. A child inherits an ignored SIGINT across exec (as a background job's
    commands do), and Python then installs no KeyboardInterrupt for it. In a full `-n 2` run three
    interrupt tests' children ran on through SIGINT (a compile exited 0 after it), so a worker
    held SIGINT ignored below Python's handler table; which earlier test left it so is not known
    (each file alone passes)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_racesc(*args, cwd=None, env=None) -> subprocess.Popen:
    """`racesc ARGS` running, its output piped; SIGINT at its default (tests interrupt it)."""
    e = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    e.update(env or {})
    return subprocess.Popen([RACESC, *map(str, args)], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=e, preexec_fn=default_sigint)
