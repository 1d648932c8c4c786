"""The hub tests that need their own venv run a script there (tests/integrations/run_*.py)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def hub_run(hub: str, script: str, *args, timeout: int = 600) -> dict:
    """Run tests/integrations/<script> with the hub venv's Python; its JSON output."""
    python = ROOT / ".venv-hubs" / hub / "bin" / "python"
    if not python.exists():
        pytest.fail(f"no {hub} venv at {python.parent.parent}: run bash tests/integrations/hub_venvs.sh "
                    "(README's test command does)")
    p = subprocess.run([str(python), str(ROOT / "tests" / "integrations" / script), *map(str, args)],
                       capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                       env=dict(os.environ, OMP_NUM_THREADS="1", RACESL_CACHE_DIR=os.environ["RACESL_CACHE_DIR"]))
    assert p.returncode == 0, f"{script} exited {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return json.loads(p.stdout.strip().splitlines()[-1])
