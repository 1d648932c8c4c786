"""One checked stdlib pool for the prompt tests (checking it costs ~1 s), and the stub server's
fixture (tests/support/openai_stub.py)."""

import pytest

from tests.support.openai_stub import openai_stub  # noqa: F401


@pytest.fixture(scope="session")
def stdlib_checked():
    from racesl import resources
    from racesl.check import check_paths

    checked = check_paths(sorted(resources.stdlib_dir().glob("*.races")))
    assert checked.ok
    return checked
