"""`racesc admit --time-budget S`: a number of seconds above 0 (at most a day); anything else
is one `racesc: error:` line and exit 2, before any pool is opened or gate run."""

from __future__ import annotations

import subprocess
import sys

import pytest

CANDIDATE = "tests/admit/candidates/valid_alternating.races"


@pytest.mark.parametrize("value", ["0", "-5", "nan", "inf", "1e400", "86401"])
def test_a_bad_budget_is_one_line_and_exit_2(value):
    proc = subprocess.run([sys.executable, "-m", "racesl", "admit", CANDIDATE, f"--time-budget={value}"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("racesc: error: --time-budget must be"), proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_word_is_refused_by_the_parser():
    proc = subprocess.run([sys.executable, "-m", "racesl", "admit", CANDIDATE, "--time-budget", "soon"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
