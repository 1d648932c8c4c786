#!/usr/bin/env bash
# The venvs the hub integration tests run in (.venv-hubs/verifiers, .venv-hubs/openenv):
# verifiers 0.4 and openenv-core 0.3 pin versions (transformers, pydantic, ...) that the
# main venv's training stack does not admit, so each gets its own, with racesl installed
# editable from this checkout. Versions are pinned by constraints-<hub>.txt. uv (from the
# main venv's dev extra) installs them: about 10 s each where pip took minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
UV="${UV:-.venv/bin/uv}"
for hub in verifiers openenv; do
    venv=".venv-hubs/$hub"
    [ -x "$venv/bin/python" ] || "$UV" venv -q "$venv" --python "${PYTHON:-python3}"
    "$UV" pip install -q --python "$venv/bin/python" -c "tests/integrations/constraints-$hub.txt" -e ".[$hub]"
done
