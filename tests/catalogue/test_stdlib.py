"""The stdlib's descriptions are specifications: each names its input and settings and ends
with an example that the body computes, whose output is not the environment's usual answer;
docs/stdlib.md is the page `racesc doc` writes from them today."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from racesl import resources
from racesl.catalogue.examples import check
from racesl.catalogue.fill import output_counts
from racesl.catalogue.page import render
from racesl.check import check_paths
from racesl.library import Library
from racesl.runtime.watchdog import WATCHDOG
from racesl.types import types as T
from tests.support.tasks import stdlib

ROOT = resources.stdlib_dir().parent
COMMON = 0.15  # an example output at least this common among sampled runs is a free answer


@pytest.fixture(scope="module")
def lib():
    return stdlib()


def test_every_description_names_its_input_and_settings(lib):
    for env in lib.envs.values():
        assert re.search(rf"\b{re.escape(env.input_name)}\b", env.description), env.qualname
        for s in env.settings:
            assert "{" + s.name + "}" in env.description, (env.qualname, s.name)


def test_every_example_holds(lib):
    with WATCHDOG.session():
        bad = [f"{r.env}: {r.problem}" for r in (check(lib, e) for e in lib.envs.values()) if r.problem]
    assert not bad, "\n".join(bad)


def test_no_example_shows_the_usual_answer(lib):
    """Copying an example's output must not often be right (the audit's example_output
    strategy measures it on tasks; this names the environment to fix)."""
    common = []
    with WATCHDOG.session():
        for env in lib.envs.values():
            if isinstance(T.shape(env.output), T.BoolT):
                continue  # conditions: never an answer
            r = check(lib, env)
            counts = output_counts(lib, env)
            share = counts[r.got] / max(1, sum(counts.values()))
            if share >= COMMON:
                common.append(f"{env.qualname}: {r.got} is {share:.0%} of sampled outputs")
    assert not common, "\n".join(common)


def test_the_catalogue_is_fresh():
    checked = check_paths(["stdlib"])
    with WATCHDOG.session():
        text, problems, missing = render(checked, Library(checked), paths="stdlib", out="docs/stdlib.md")
    assert not problems and not missing
    page = (ROOT / "docs" / "stdlib.md").read_text(encoding="utf-8")
    assert page == text, "docs/stdlib.md is stale: run `racesc doc stdlib -o docs/stdlib.md`"


def test_racesc_doc_writes_the_page(tmp_path):
    out = tmp_path / "page.md"
    done = subprocess.run([sys.executable, "-m", "racesl", "doc", "stdlib", "-o", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# The racesl standard library")
    assert "### lists.sort_list" in text and "`env sort_list(xs: Nums) -> Nums`" in text


def test_every_input_has_a_sampler_that_level_widens(lib):
    """Inputs come from a written sampler (natural values, not the type's default draw), and
    level 3 reaches further than level 0: more distinct values, longer texts, larger numbers or
    a wider spread of numbers inside a value (an interval's width)."""
    from racesl.catalogue.fill import atoms
    from racesl.runtime.contract import canonical
    from racesl.sample.seeding import item_rng

    def reach(env, level):
        values = [lib.sample_input(env, item_rng(0, env.qualname, "widen", i), level) for i in range(40)]
        texts = [canonical(v) for v in values]
        inside = [[a for a in atoms(v) if type(a) is int] for v in values]
        numbers = [a for ns in inside for a in ns]
        spread = sum(max(ns) - min(ns) for ns in inside if ns)
        return len(set(texts)), max(map(len, texts)), max(numbers, default=0), sum(map(len, texts)), spread

    flat = []
    with WATCHDOG.session():
        for env in lib.envs.values():
            assert env.input_name in dict(env.samplers), f"{env.qualname}: no @sample for {env.input_name}"
            low, high = reach(env, 0), reach(env, 3)
            if not any(h > lo for lo, h in zip(low, high)):
                flat.append(env.qualname)
    assert not flat, flat
