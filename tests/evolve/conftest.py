"""One checked stdlib pool for the prompt tests (checking it costs ~1 s)."""

import pytest


@pytest.fixture(scope="session")
def stdlib_checked():
    from racesl import resources
    from racesl.check import check_paths

    checked = check_paths(sorted(resources.stdlib_dir().glob("*.races")))
    assert checked.ok
    return checked
