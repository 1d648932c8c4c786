"""A self-contained HTML page of the signature graph (no network needed to view it)."""

from __future__ import annotations

import html
import json


def to_html(graph) -> str:
    data = json.loads(graph.to_json())
    rows = []
    for n in data["nodes"]:
        succ = [e["target"] for e in data["edges"] if e["source"] == n["id"]]
        pred = [e["source"] for e in data["edges"] if e["target"] == n["id"]]
        rows.append(
            f"<tr><td><b>{html.escape(n['id'])}</b><br><small>{html.escape(n['description'])}</small></td>"
            f"<td><code>{html.escape(n['input'])}</code></td><td><code>{html.escape(n['output'])}</code></td>"
            f"<td>{len(pred)}</td><td>{len(succ)}</td>"
            f"<td><small>{html.escape(', '.join(succ[:12]))}{' …' if len(succ) > 12 else ''}</small></td></tr>")
    c = data["counts"]
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>racesl signature graph</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;
padding:4px;vertical-align:top}}code{{font-size:85%}}</style></head><body>
<h1>Signature graph</h1><p>{len(data['nodes'])} environments; {c.get('proved', 0)} proved and
{c.get('guarded', 0)} guarded edges; {c.get('dropped', 0)} dropped by the solver.</p>
<table><tr><th>environment</th><th>input</th><th>output</th><th>after</th><th>before</th><th>can be followed by</th></tr>
{''.join(rows)}</table></body></html>
"""
