"""A compiled task file of the graded fixtures (tests/fixtures/graded): a graded checker
(`graded.factor_pair`, reward = value / 2) and a generator whose helper draws a latent value
for its graded checker (`latent.unsort`), as individual and parallel tasks, with the answers
each grade gives (shared by tests/rewards, tests/serve and tests/integrations)."""

from __future__ import annotations

from ast import literal_eval
from pathlib import Path

from tests.support.tasks import run_racesc

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "graded"
SOURCES = (FIXTURES / "graded.races", FIXTURES / "latent.races")


def compile_graded(d: Path, n: int = 40, *flags, check: bool = True):
    """`racesc compile` of both fixtures into d/tasks.jsonl (the library sidecar beside it).
    By default with `--allow-shortcuts`: echoing the input gets latent.unsort's half grade,
    which the compile's audit rightly calls a shortcut (tests/audit/test_graded.py)."""
    p = run_racesc("compile", *SOURCES, "-n", n, "-o", d / "tasks.jsonl", "-q",
                   "--operators", "individual=1,parallel=2-3", *(flags or ("--allow-shortcuts",)), cwd=d,
                   check=check)
    return d / "tasks.jsonl" if check else p


def half_answer(record: dict) -> str | None:
    """An answer text its checker grades 1/2, for an individual task (None: none known)."""
    q, x = record["chain"][0], record["input"]
    if q == "graded.factor_pair":
        return f"(1, {int(x)})"  # product n, order broken: 1 of 2
    if q == "latent.unsort":
        letters = literal_eval(x)  # (a Str literal written by the compiler)
        hidden = literal_eval(record["extra"]["latents"][0])
        return repr(letters) if letters not in hidden else None  # an arrangement, not hidden: 1 of 2
    return None


def other_full_answer(record: dict) -> str | None:
    """Another answer than the recorded one that gets the full grade (latent.unsort: the
    hidden word's reverse, which only the latent value knows), or None."""
    if record["chain"][0] != "latent.unsort":
        return None
    word = literal_eval(record["answer"])
    return repr(word[::-1]) if word[::-1] != word else None
