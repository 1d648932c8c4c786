"""The candidate corpus (tests/admit/candidates) through `racesc admit --json`: each module
lands at the gate its first line names (`# expect: <gate>` or `# expect: admitted`), and
the valid ones are admitted against the stdlib pool — then written to a pool folder that
`racesc compile POOL stdlib` composes like any library."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from racesl.admit.gates import GATES

HERE = Path(__file__).parent / "candidates"
CANDIDATES = sorted(HERE.glob("*.races"))
EXPECT = re.compile(r"#\s*expect:\s*(\S+)")


def expected(path: Path) -> str:
    m = EXPECT.match(path.read_text(encoding="utf-8"))
    assert m, f"{path.name} must start with '# expect: <gate>'"
    return m.group(1)


def admit(*args: str, cwd=None) -> tuple[int, list[dict], str]:
    proc = subprocess.run([sys.executable, "-m", "racesl", "admit", *args, "--json"], capture_output=True,
                          text=True, cwd=cwd, timeout=900)
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return proc.returncode, rows, proc.stderr


@pytest.fixture(scope="module")
def verdicts():
    rc, rows, err = admit(*map(str, CANDIDATES), "--pool", "stdlib")
    assert len(rows) == len(CANDIDATES), err
    return rc, {Path(r["file"]).name: r for r in rows}


def test_the_corpus_covers_every_model_free_gate_and_admission():
    wanted = {expected(p) for p in CANDIDATES}
    assert {"parse", "check", "sample", "determinism", "nontrivial", "composes", "contract", "novelty",
            "admitted"} <= wanted
    assert wanted <= set(GATES) | {"admitted"}


@pytest.mark.parametrize("path", CANDIDATES, ids=lambda p: p.stem)
def test_each_candidate_lands_at_its_gate(verdicts, path):
    _, by_name = verdicts
    v = by_name[path.name]
    want = expected(path)
    assert set(v) >= {"file", "admitted", "gate", "reason", "scores"}
    if want == "admitted":
        assert v["admitted"] is True and v["gate"] is None, v["reason"]
        assert v["passed"] == list(GATES[:8])  # every model-free gate, none skipped
    else:
        assert v["admitted"] is False and v["gate"] == want, (v["gate"], v["reason"])
        assert v["reason"]
        assert v["passed"] == list(GATES[:GATES.index(want)])


def test_reasons_say_what_is_wrong(verdicts):
    _, by_name = verdicts
    assert "E100" in by_name["unparsable.races"]["reason"] and ":2:" in by_name["unparsable.races"]["reason"]
    assert "E303" in by_name["ill_typed.races"]["reason"]
    assert "no environment" in by_name["no_environment.races"]["reason"]
    assert "E601" in by_name["hash_seed.races"]["reason"] and "E601" in by_name["hash_seed_static.races"]["reason"]
    assert "E502" in by_name["hostile_dunder.races"]["reason"]
    assert "digit_sum" in by_name["renamed_copy.races"]["reason"]
    assert "triangular" in by_name["same_behaviour.races"]["reason"]


def test_hostile_candidates_are_refused_for_what_they_hide(verdicts):
    _, by_name = verdicts
    reason = {name: by_name[name]["reason"] for name in by_name if name.startswith("hostile_")}
    assert "@verify checker accepts the fixed answer (2, 2)" in reason["hostile_verify_fixed.races"]
    assert "declared type" in reason["hostile_declared_degenerate.races"]
    assert "narrow the declared input type" in reason["hostile_declared_degenerate.races"]
    assert "nearly a constant" in reason["hostile_nearly_constant.races"]
    assert "limit is 80%" in reason["hostile_nearly_constant.races"]
    assert "numbers.digit_sum" in reason["hostile_subdomain_copy.races"]
    assert "numbers.digit_sum (offset +7)" in reason["hostile_affine_copy.races"]
    assert "numbers.digit_sum ; numbers.next_prime" in reason["hostile_inline_composition.races"]


def test_a_module_line_that_disagrees_with_its_file_is_fixed_up(verdicts):
    _, by_name = verdicts
    assert by_name["valid_weighted_digits.races"]["module"] == "weighted_digits"


def test_exit_code_is_one_when_a_candidate_is_rejected(verdicts):
    assert verdicts[0] == 1


def test_admitted_modules_join_a_pool_folder_that_compiles(tmp_path):
    pool = tmp_path / "pool"
    valid = [p for p in CANDIDATES if expected(p) == "admitted"]
    rc, rows, err = admit(*map(str, valid), "--pool", str(pool))
    assert rc == 0 and all(r["admitted"] for r in rows), err
    manifest = json.loads((pool / "manifest.json").read_text())
    assert sorted(e["module"] for e in manifest["entries"]) == sorted(r["module"] for r in rows)
    assert sorted(p.name for p in pool.glob("*.races")) == sorted(r["module"] + ".races" for r in rows)
    # admitting the same modules again: now they are the pool's own (novelty says so)
    rc, again, _ = admit(*map(str, valid), "--pool", str(pool))
    assert rc == 1 and {r["gate"] for r in again} == {"novelty"}
    out = tmp_path / "tasks.jsonl"
    proc = subprocess.run([sys.executable, "-m", "racesl", "compile", str(pool), "stdlib", "-n", "200", "-o", str(out),
                           "--no-audit", "-q"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    mine = {f"{r['module']}." for r in rows}
    assert any(any(q.startswith(tuple(mine)) for q in rec["chain"]) for rec in records)
