#!/usr/bin/env bash
# The venvs the hub integration tests run in (.venv-hubs/verifiers, openenv, gem):
# verifiers 0.4, openenv-core 0.3 and gem-llm 0.1 pin versions (transformers, pydantic,
# reasoning-gym, ...) that the main venv's training stack does not admit, so each gets its
# own, with racesl installed editable from this checkout. Versions are pinned by
# constraints-<hub>.txt. uv (from the main venv's dev extra) installs them: about 10 s
# each where pip took minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
UV="${UV:-.venv/bin/uv}"
for hub in verifiers openenv gem; do
    venv=".venv-hubs/$hub"
    [ -x "$venv/bin/python" ] || "$UV" venv -q "$venv" --python "${PYTHON:-python3}"
    "$UV" pip install -q --python "$venv/bin/python" -c "tests/integrations/constraints-$hub.txt" -e ".[$hub]"
done

# The trainer frameworks' venvs (.venv-hubs/verl, openrlhf, skyrl), where each framework's own
# reward-calling code scores the parity corpus (test_framework_*.py, run_framework.py). torch is
# the CPU build from the local wheel folder, never an index's (CUDA wheels are GBs). OpenRLHF
# and skyrl-train go in without their dependencies (vllm, flash-attn, deepspeed: GPU stacks),
# beside what their reward paths import; skyrl-train 0.3.1's wheel says Python 3.12 only, and
# its source runs on 3.11. Versions are pinned by constraints-<framework>.txt. From an empty
# uv cache: verl 16 s, OpenRLHF 12 s, SkyRL 26 s alone, 34 s for the three; 1.6, 1.2 and 1.4 GB,
# mostly torch and ray (hard links into uv's cache, 2 GB for the three).
WHEELS="${TORCH_WHEELS:-/opt/wheels}"
framework() {  # framework NAME PIP-ARGS...: into .venv-hubs/NAME
    local venv=".venv-hubs/$1" name="$1"
    shift
    [ -x "$venv/bin/python" ] || "$UV" venv -q "$venv" --python "${PYTHON:-python3}"
    "$UV" pip install -q --python "$venv/bin/python" --find-links "$WHEELS" \
        -c "tests/integrations/constraints-$name.txt" "$@"
}
framework verl -e . verl torch
framework openrlhf -e . torch transformers aiohttp sympy pylatexenc
framework openrlhf --no-deps openrlhf
framework skyrl -e '.[skyrl]' torch transformers omegaconf loguru tqdm numpy ray fastapi uvicorn
framework skyrl --no-deps --python-version 3.12 skyrl-train
