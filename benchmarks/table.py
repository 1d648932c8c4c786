"""Print the Markdown table of every benchmarks/results/*.json (figure, value, goal, met?).

    .venv/bin/python benchmarks/table.py [results folder]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ORDER = ("fuel", "check", "compile", "solver", "lsp", "audit", "admit", "graph", "scale", "ray", "serve")


def fmt(value, unit: str) -> str:
    if value is None:
        return "—"
    if unit == "x":
        return f"{value:.3f}×" if abs(value) < 0.1 else f"{value:.2f}×"
    if unit == "s":
        return f"{value:.2f} s"
    if unit == "%":
        return f"{value:.1f} %"
    if isinstance(value, (int, float)) and abs(value) >= 1000:
        return f"{value:,.0f} {unit}"
    return f"{value:g} {unit}"


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "results"
    # the figures of the run_all.sh scripts; diagnostics (fuel_parts) are read in their JSON
    files = sorted((p for p in folder.glob("*.json") if p.stem in ORDER), key=lambda p: ORDER.index(p.stem))
    if not files:
        print(f"no results in {folder}; run benchmarks/run_all.sh first")
        return
    print("| Script | Figure | Value | Goal | Met? |")
    print("|---|---|---|---|---|")
    for p in files:
        data = json.loads(p.read_text(encoding="utf-8"))
        for f in data["figures"]:
            goal = "—" if f["goal"] is None else f"{f['op']} {fmt(f['goal'], f['unit'])}"
            met = {True: "yes", False: "**no**", None: ""}[f["met"]]
            if f.get("note"):
                met = f"{met} ({f['note']})" if met else f["note"]
            print(f"| {data['name']} | {f['figure']} | {fmt(f['value'], f['unit'])} | {goal} | {met} |")
    print()
    for p in files:
        data = json.loads(p.read_text(encoding="utf-8"))
        m = data.get("machine", {})
        print(f"- `{p.name}`: {data.get('script_seconds')} s, {m.get('date')}, commit {m.get('git_commit')}"
              f"{' (racesl tree dirty)' if m.get('racesl_tree_dirty') else ''}, Python {m.get('python')}, "
              f"{m.get('cpus')} CPUs, load {m.get('loadavg_at_end')}")


if __name__ == "__main__":
    main()
