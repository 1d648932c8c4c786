"""The re-derivation gate (racesl.operators.rederive) with a drawn latent value (issue 48):
a generator's pair is derived again with the recorded latent given to its checker, at its
full grade; a task whose latent is missing, unreadable, outside its type or one the
checker does not back is dropped, never written."""

from __future__ import annotations

from collections import Counter

import pytest

from racesl.check import check_paths
from racesl.library import Library
from racesl.operators.rederive import disagrees, latent_extra
from racesl.records import Task
from racesl.sample.seeding import item_rng
from racesl.search.config import CompileConfig
from tests.support.graded import SOURCES

ENV = "latent.unsort"


@pytest.fixture(scope="module")
def built():
    from racesl.compile import Generator

    checked = check_paths(list(SOURCES))
    assert checked.ok
    lib = Library(checked)
    gen = Generator(lib, CompileConfig(n=10, seed=0, operators=(("individual", 1, 1),)))
    quota = {q: 1e6 if q == ENV else 1.0 for q in gen.search.names}
    tasks = []
    for i in range(40):
        t = gen.builder.individual(item_rng(0, "latent", i), 1, quota, Counter())
        if t is not None and t.chain == (ENV,):
            tasks.append(t)
    assert tasks
    return lib, tasks


def _with(task: Task, extra: dict) -> Task:
    return Task(task.operator, task.size, task.chain, task.settings, task.input, task.trace, task.prompt,
                task.answer, task.steps, task.level, extra)


def test_drawn_pairs_hold_with_their_latent(built):
    lib, tasks = built
    for t in tasks:
        assert t.extra["latents"][0] is not None and disagrees(lib, t) is None


@pytest.mark.parametrize("latents, why", [
    (None, "cannot be read back"), (["[1, 2]"], "outside"), (["not a literal ("], "cannot be read back"),
    (["['zzzzz']"], "rejects the drawn answer")])
def test_a_latent_that_does_not_hold_drops_the_task(built, latents, why):
    lib, tasks = built
    extra = {"verify": True} if latents is None else {"verify": True, "latents": latents}
    assert why in disagrees(lib, _with(tasks[0], extra))


def test_latent_extra_leaves_other_records_alone():
    class S:
        latent = None

    assert latent_extra([S(), S()]) == {}


def test_latent_records_are_byte_identical_for_any_worker_count_and_hash_seed(tmp_path):
    from tests.support.tasks import run_racesc

    outs = []
    for k, (workers, seed) in enumerate((("1", "0"), ("2", "0"), ("1", "7"))):
        out = tmp_path / f"{k}.jsonl"
        run_racesc("compile", *SOURCES, "-n", 30, "-o", out, "-q", "--workers", workers, "--allow-shortcuts",
                   "--operators", "individual=1,parallel=2-3", cwd=tmp_path, env={"PYTHONHASHSEED": seed})
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] == outs[2] and b'"latents"' in outs[0]
