"""One admission context over the stdlib pool, warmed once for the test files that judge
candidates in process (checking, lowering and indexing the pool is the slow part)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def stdlib_ctx():
    from racesl.admit.context import Context
    from racesl.pool import Pool

    ctx = Context(Pool.open("stdlib"))
    ctx.warm()
    yield ctx
    ctx.close()
