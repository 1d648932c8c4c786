"""A self-contained HTML page of the signature graph (no network needed to view it).

One row per environment: its signature shapes, description, tags, and links to the
environments that can come before and after it (each link jumps to that row). Two
menus and a search box filter the rows by module, tag and name, in the page itself.
"""

from __future__ import annotations

import html

from racesl.check.model import declared_types
from racesl.graph.signature import SignatureGraph

SHOWN = 24  # neighbour links per cell before "… and N more"

_STYLE = """body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;width:100%}
td,th{border:1px solid #ccc;padding:4px;vertical-align:top}code{font-size:85%}
small a{margin-right:.4em}tr:target{background:#ffd}.tag{background:#eef;border-radius:3px;padding:0 3px;
margin-right:3px;font-size:80%}#bar{position:sticky;top:0;background:#fff;padding:.5em 0}"""

_SCRIPT = """function f(){const m=document.getElementById('m').value,t=document.getElementById('t').value,
q=document.getElementById('q').value.toLowerCase();let n=0;for(const r of document.querySelectorAll('tr.env')){
const ok=(!m||r.dataset.module===m)&&(!t||r.dataset.tags.split(' ').includes(t))&&(!q||r.id.includes(q));
r.style.display=ok?'':'none';n+=ok}document.getElementById('n').textContent=n}"""


def _links(names: list[str], keep) -> str:
    shown = [n for n in names if keep is None or n in keep][:SHOWN]
    more = len(names) - len(shown)
    out = " ".join(f'<a href="#{html.escape(n)}">{html.escape(n)}</a>' for n in shown)
    return out + (f" … and {more} more" if more > 0 else "")


def _options(values) -> str:
    return "".join(f'<option value="{html.escape(v)}">{html.escape(v)}</option>' for v in sorted(values))


def _type(said: str, t) -> str:
    """A type cell: the name the source writes (`Word`), the full type as its tooltip."""
    return f'<code title="{html.escape(str(t))}">{html.escape(said)}</code>'


def to_html(graph: SignatureGraph, keep: set[str] | None = None) -> str:
    """The page; `keep` limits the rows (and the links) to those environments."""
    rows = []
    names = [q for q in graph.envs if keep is None or q in keep]
    for q in names:
        e = graph.envs[q]
        before = [s for s, _ in graph.predecessors(q)]
        after = [d for d, _ in graph.successors(q)]
        tags = "".join(f'<span class="tag">{html.escape(t)}</span>' for t in e.tags)
        said_in, said_out = declared_types(e)
        rows.append(
            f'<tr class="env" id="{html.escape(q)}" data-module="{html.escape(e.module)}" '
            f'data-tags="{html.escape(" ".join(e.tags))}"><td><b>{html.escape(q)}</b> {tags}<br>'
            f"<small>{html.escape(e.description)}</small></td>"
            f"<td>{_type(said_in, e.input)}</td><td>{_type(said_out, e.output)}</td>"
            f"<td><small>{len(before)}: {_links(before, keep)}</small></td>"
            f"<td><small>{len(after)}: {_links(after, keep)}</small></td></tr>")
    c = graph.counts()
    modules = {graph.envs[q].module for q in names}
    tags = {t for q in names for t in graph.envs[q].tags}
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>racesl signature graph</title>
<style>{_STYLE}</style><script>{_SCRIPT}</script></head><body>
<h1>Signature graph</h1><p>{len(graph.envs)} environments; {c.get('proved', 0)} proved and
{c.get('guarded', 0)} guarded edges; {c.get('dropped', 0)} dropped by the solver.</p>
<div id="bar">module <select id="m" onchange="f()"><option value="">all</option>{_options(modules)}</select>
tag <select id="t" onchange="f()"><option value="">all</option>{_options(tags)}</select>
name <input id="q" oninput="f()" placeholder="part of a name"> · <span id="n">{len(rows)}</span> shown</div>
<table><tr><th>environment</th><th>input</th><th>output</th><th>can come after</th><th>can be followed by</th></tr>
{''.join(rows)}</table></body></html>
"""
