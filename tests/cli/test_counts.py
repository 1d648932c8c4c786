"""Counts at the CLI edge: a task count, sample count, budget or worker number outside its
range is a usage error (exit 2, one line naming the range), never a run that does not end or
reports success having done nothing."""

from __future__ import annotations

import subprocess

import pytest

from tests.support.tasks import RACESC

MODULE = '''\
env add_two(n: Int where 0 <= it <= 9) -> Int:
    """Add 2 to n."""
    return n + 2
'''


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    p = tmp_path_factory.mktemp("counts") / "m.races"
    p.write_text(MODULE, encoding="utf-8")
    return str(p)


@pytest.mark.parametrize("argv, option, says", [
    (["compile", "{m}", "-n", "0"], "-n", "must be at least 1, not 0"),
    (["compile", "{m}", "-n", "-5"], "-n", "must be at least 1, not -5"),
    (["compile", "{m}", "-n", "two"], "-n", "not a whole number"),
    (["compile", "{m}", "--workers", "0"], "--workers", "must be at least 1 and at most 256"),
    (["check", "{m}", "--samples", "0"], "--samples", "must be at least 1, not 0"),
    (["check", "{m}", "--samples", "-3"], "--samples", "must be at least 1, not -3"),
    (["run", "{m}", "add_two", "--input", "3", "--fuel", "-1"], "--fuel", "must be at least 0"),
])
def test_out_of_range_counts_are_usage_errors(module, tmp_path, argv, option, says):
    argv = [a.format(m=module) for a in argv]
    done = subprocess.run([RACESC, *argv], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"argument {option}: {says}" in done.stderr
    assert "Traceback" not in done.stderr
    assert not list(tmp_path.iterdir())  # nothing written


def test_task_count_from_races_toml(module, tmp_path):
    (tmp_path / "races.toml").write_text("[compile]\nn = 0\n", encoding="utf-8")
    done = subprocess.run([RACESC, "compile", module, "-o", "t.jsonl"], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert done.returncode == 2
    assert "task count n must be a whole number of at least 1, not 0" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "t.jsonl").exists()
