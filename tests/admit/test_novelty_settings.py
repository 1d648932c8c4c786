"""Issue 47: copies that hide behind a setting or a sub-domain. Novelty compares a candidate
with settings once per setting value (against pool environments, their depth-2 compositions
and repeats), and runs the pool's environments on the candidate's own inputs whatever their
refinements declare; a genuinely new environment still passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from racesl.admit import front, novelty, running
from racesl.admit.gates import Candidate

CANDIDATES = Path(__file__).parent / "candidates"
BEFORE = (front.parse, front.check, running.sample, running.determinism, running.nontrivial, front.composes)


def judged(ctx, name: str) -> tuple[Candidate, str | None]:
    path = CANDIDATES / f"{name}.races"
    cand = Candidate(str(path), path.read_text(encoding="utf-8"))
    for gate in BEFORE:
        assert gate(cand, ctx) is None, (gate.__name__, cand.scores)
    return cand, novelty.novelty(cand, ctx)


def test_a_copy_behind_a_setting_is_refused_at_every_setting_value(stdlib_ctx):
    cand, reason = judged(stdlib_ctx, "hostile_setting_copy")
    assert reason is not None and "a pool environment behind a setting" in reason
    row = cand.scores["novelty"]["envs"]["rotate_quarter_turns"]["behaviour"]
    per = {p["settings"]["k"]: p for p in row["per_setting"]}
    assert set(per) == {"1", "2", "3"}
    assert per["1"]["nearest"] == "geometry.rotate_polygon" and per["1"]["agreement"] == 1.0
    assert per["2"]["nearest"] == "geometry.rotate_polygon ; geometry.rotate_polygon"
    assert per["3"]["nearest"] == "geometry.rotate_polygon x 3"
    assert row["agreement"] == 1.0
    assert set(cand.refused) == {"rotate_quarter_turns"}  # judged one by one


def test_a_sub_domain_copy_outside_the_pools_declared_domain_is_refused(stdlib_ctx):
    cand, reason = judged(stdlib_ctx, "hostile_wide_subdomain_copy")
    assert reason is not None and "behaves like numbers.digit_sum" in reason
    row = cand.scores["novelty"]["envs"]["eight_digit_sum"]["behaviour"]
    assert row["nearest"] == "numbers.digit_sum" and row["agreement"] == 1.0 and row["shared"] >= 6


@pytest.mark.parametrize("name", ["valid_weighted_digits", "valid_alternating"])
def test_a_new_environment_still_passes(stdlib_ctx, name):
    cand, reason = judged(stdlib_ctx, name)
    assert reason is None, reason
    assert not cand.refused


def test_the_text_index_finds_what_a_scan_finds(stdlib_ctx):
    index = novelty.pool_index(stdlib_ctx)
    some = sorted(index.texts)[::37]
    for q in some:
        text = index.texts[q]
        scan = max(((novelty.jaccard(text, t), p) for p, t in sorted(index.texts.items()) if p != q),
                   default=(0.0, None))
        got = novelty._nearest_text(index.postings, index.texts, text, skip=q)
        assert got[0] == pytest.approx(scan[0])
