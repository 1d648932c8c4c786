#!/usr/bin/env bash
# Run every benchmark once (writes benchmarks/results/*.json), then print the table.
# Needs the bench extra: .venv/bin/pip install -e '.[bench]'
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
for s in bench_fuel bench_check bench_compile bench_solver bench_lsp bench_admit bench_graph bench_scale bench_ray bench_serve; do
    start=$(date +%s)
    "$PY" "benchmarks/$s.py"
    echo "  ($s: $(( $(date +%s) - start )) s)"
done
"$PY" benchmarks/table.py
