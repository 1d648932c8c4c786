"""Blocks and shards: a block's tasks depend on its number alone, so shards built apart and
concatenated in order are the whole compile; inside a block no task repeats."""

from __future__ import annotations

import pytest

from racesl.compile import blocks_of, compile_stream, compile_tasks, shard_blocks
from racesl.compile.driver import block_target, digest
from racesl.search.config import CompileConfig, ConfigError
from tests.support.tasks import stdlib


def _collect(lib, cfg, **kw):
    out = []
    summary = compile_stream(lib, cfg, lambda index, task: out.append((index, task)), **kw)
    return out, summary


@pytest.mark.parametrize("n, block", [(1, 1), (10, 3), (1000, 100), (999, 100), (5, 100)])
@pytest.mark.parametrize("of", [1, 2, 3, 7])
def test_shards_cover_every_block_once_in_order(n, block, of):
    cfg = CompileConfig(n=n, block=block)
    ranges = [shard_blocks(cfg, k, of) for k in range(1, of + 1)]
    assert [b for r in ranges for b in r] == list(range(blocks_of(cfg)))
    assert sum(block_target(cfg, b) for b in range(blocks_of(cfg))) == n


def test_block_must_be_a_positive_count():
    with pytest.raises(ConfigError, match="block"):
        CompileConfig(block=0)


def test_a_compile_of_one_block_is_what_it_was_before_blocks():
    """block >= n: one block, the tasks the compile always made (block 0 keeps the old keys)."""
    lib = stdlib()
    a, _ = compile_tasks(lib, CompileConfig(n=120, seed=4))
    b, _ = compile_tasks(lib, CompileConfig(n=120, seed=4, block=120))
    assert a == b


def test_shards_concatenated_are_the_whole_compile():
    lib = stdlib()
    cfg = CompileConfig(n=250, seed=9, block=60, batch=32)  # five blocks, the last of 10 tasks
    whole, s = _collect(lib, cfg)
    assert [i for i, _ in whole] == list(range(250))  # every block full: indices run on
    assert s.blocks == (0, 5) and s.requested == 250 and not s.short
    parts = []
    for k in (1, 2, 3):
        got, sk = _collect(lib, cfg, blocks=shard_blocks(cfg, k, 3))
        assert sk.requested == sum(block_target(cfg, b) for b in shard_blocks(cfg, k, 3))
        parts.extend(got)
    assert parts == whole


def test_no_task_repeats_inside_a_block_and_blocks_differ():
    lib = stdlib()
    cfg = CompileConfig(n=300, seed=2, block=100, batch=32)
    got, s = _collect(lib, cfg)
    for b in range(3):
        keys = [t.key() for i, t in got if i // 100 == b]
        assert len(keys) == 100 == len(set(keys))
        assert len({digest(t) for i, t in got if i // 100 == b}) == 100
    first = [t for i, t in got if i < 100]
    second = [t for i, t in got if 100 <= i < 200]
    assert sum(a == b for a, b in zip(first, second)) == 0  # a block is no copy of another


def test_an_exhausted_library_ends_its_blocks_short(tmp_path):
    """A library that cannot fill a block stops that block (not the compile) and says so."""
    from racesl.library import load
    from tests.support.tasks import toy_library

    path = tmp_path / "tiny.races"
    path.write_text(toy_library("tiny", '''\
env add_one(n: Nat) -> Nat:
    """Add one to n, capped at 300."""
    return min(n + 1, 300)
''', '''\
env double(n: Nat) -> Nat:
    """Double n, capped at 300."""
    return min(2 * n, 300)
''', top=6, pick_top=4), encoding="utf-8")
    lib = load([path])
    cfg = CompileConfig(n=400, seed=1, block=200, batch=16, operators=(("sequential", 2, 2),))
    got, s = _collect(lib, cfg)
    assert s.short == [0, 1] and s.tasks == len(got) < 400
    assert s.requested == 400
