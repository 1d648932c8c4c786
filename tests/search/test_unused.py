"""`why_unused` names what keeps an environment out of every task."""

from __future__ import annotations

import textwrap

from racesl.library import load
from racesl.search.config import CompileConfig, Filters
from racesl.search.unused import why_unused

SRC = textwrap.dedent('''
    type Word = Str where 1 <= len(it) <= 12 and it.isalpha() and it.islower()

    @tags("t")
    env first_letter(s: Word) -> Word:
        """Return the first letter of s."""
        return s[0]

    @tags("t")
    env odd_only(s: Word) -> Word:
        """s has an odd length; return s twice."""
        assert len(s) % 2 == 1 and len(s) > 20
        return s + s

    @tags("t")
    env doubled(s: Word) -> Str:
        """Return s twice."""
        return s + s
''')


def _lib(tmp_path):
    (tmp_path / "u.races").write_text(SRC)
    return load([tmp_path / "u.races"])


def test_a_filter_that_drops_every_output_is_named_with_its_switch(tmp_path):
    lib = _lib(tmp_path)
    why = why_unused(lib, CompileConfig(), lib.envs["u.first_letter"])
    assert why.startswith("no usable output in 24 sampled runs (repeated_char 24)")
    assert "--filter repeated_char=false" in why
    # with the filter off, the outputs pass
    off = CompileConfig(filters=Filters(repeated_char=False))
    assert why_unused(lib, off, lib.envs["u.first_letter"]).startswith("24 of 24 sampled runs pass")


def test_a_domain_no_sample_reaches_is_the_assert(tmp_path):
    lib = _lib(tmp_path)
    why = why_unused(lib, CompileConfig(), lib.envs["u.odd_only"])
    assert why.startswith("no usable output in 24 sampled runs (assert 24)") and "sampler" in why


def test_it_is_deterministic(tmp_path):
    lib = _lib(tmp_path)
    env = lib.envs["u.first_letter"]
    assert why_unused(lib, CompileConfig(), env) == why_unused(lib, CompileConfig(), env)
