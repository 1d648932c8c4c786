"""The audit weighs partial credit (issue 48): its strategies are compared by mean reward, so
a guess that a graded checker half-rewards everywhere (echoing the input: an arrangement of
its letters, which latent.unsort's checker grades 1 of 2) is a shortcut, and compile says so."""

from __future__ import annotations

from tests.support.graded import compile_graded


def test_partial_credit_everywhere_is_a_shortcut(tmp_path):
    p = compile_graded(tmp_path, 40, "--seed", "0", check=False)
    assert p.returncode == 1, p.stderr
    assert "echo_input" in p.stderr and "carried by latent.unsort" in p.stderr
    assert "a shortcut beats chance" in p.stderr
