"""The request and reply shapes `racesc serve` speaks, one pair per trainer.

- native (`POST /score`): `{"id", "completion"}` or a list of them →
  `{"id", "score", "status", "detail"}` or a list, in order;
- OpenRLHF (`POST /openrlhf`, also `/get_reward`, the path of OpenRLHF's own reward server):
  `{"query": [...], "prompts": [...], "labels": [...]}` → `{"rewards", "scores", "extra_logs"}`;
  a query is prompt + response, and the prompt (which shows an `<answer>` example) is cut off;
- slime (`POST /slime`): `{"prompt", "response", "label"}` → `{"score", "status", "detail"}`.

A label is the task id, or a record as JSON text or object (the rows `racesc compile`
writes for OpenRLHF carry the record): its id is used. A request of the wrong shape is
refused whole (BadRequest, HTTP 400); a completion that cannot be judged still gets a reply
with score 0 and a status saying why.
"""

from __future__ import annotations

import json

from racesl.rewards.score import STATUSES

SERVE_STATUSES = STATUSES + ("unknown_id", "timeout")  # verdict's, and the server's own


class BadRequest(ValueError):
    """A request that is not of the endpoint's shape; the message says what is wrong."""


def _task_id(label):
    """The task id a label names: the label itself, or the `id` of a record given as an
    object or as JSON text."""
    if isinstance(label, dict):
        return label.get("id")
    if isinstance(label, str) and label.lstrip().startswith("{"):
        try:
            rec = json.loads(label)
        except (ValueError, RecursionError):
            return label
        return rec.get("id") if isinstance(rec, dict) else label
    return label


# ---- native ----

def native_items(body) -> tuple[list, bool]:
    """((id, completion) pairs, whether the request was a single object)."""
    single = isinstance(body, dict)
    rows = [body] if single else body
    if not isinstance(rows, list) or not rows:
        raise BadRequest('expected {"id": ..., "completion": "..."} or a non-empty list of them')
    items = []
    for k, row in enumerate(rows):
        where = "" if single else f"item {k}: "
        if not isinstance(row, dict) or "id" not in row or "completion" not in row:
            raise BadRequest(f'{where}expected an object with "id" and "completion"')
        if not isinstance(row["completion"], str):
            raise BadRequest(f'{where}"completion" must be a string, not {_kind(row["completion"])}')
        items.append((row["id"], row["completion"]))
    return items, single


def native_reply(items: list, verdicts: list, single: bool):
    rows = [{"id": tid, "score": s, "status": st, "detail": d} for (tid, _), (s, st, d) in zip(items, verdicts)]
    return rows[0] if single else rows


# ---- OpenRLHF ----

def openrlhf_items(body, index) -> list:
    if not isinstance(body, dict):
        raise BadRequest('expected {"query": [...], "prompts": [...], "labels": [...]}')
    queries, labels, prompts = body.get("query"), body.get("labels"), body.get("prompts")
    if not isinstance(queries, list) or not isinstance(labels, list) or len(queries) != len(labels):
        raise BadRequest('"query" and "labels" must be lists of the same length')
    if prompts is not None and (not isinstance(prompts, list) or len(prompts) != len(queries)):
        raise BadRequest('"prompts", when given, must be a list as long as "query"')
    items = []
    for k, (q, label) in enumerate(zip(queries, labels)):
        if not isinstance(q, str):
            raise BadRequest(f"query {k} must be a string, not {_kind(q)}")
        tid = _task_id(label)
        items.append((tid, response_of(q, prompts[k] if prompts else None, index.get(tid))))
    return items


def response_of(query: str, prompt, record) -> str:
    """The response in an OpenRLHF query (prompt + response): after the given prompt when
    the query starts with it, else after the last copy of the record's prompt in it, else
    the whole query."""
    if isinstance(prompt, str) and prompt and query.startswith(prompt):
        return query[len(prompt):]
    if record is not None:
        cut = query.rfind(record["prompt"])
        if cut >= 0:
            return query[cut + len(record["prompt"]):]
    return query


def openrlhf_reply(verdicts: list) -> dict:
    scores = [s for s, _, _ in verdicts]
    logs = {f"races/status/{name}": [1.0 if st == name else 0.0 for _, st, _ in verdicts]
            for name in SERVE_STATUSES}  # per sample: OpenRLHF logs their mean, the share of each
    return {"rewards": scores, "scores": scores, "extra_logs": logs}


# ---- slime ----

def slime_items(body) -> list:
    if not isinstance(body, dict) or "label" not in body or "response" not in body:
        raise BadRequest('expected {"prompt": ..., "response": "...", "label": TASK_ID}')
    if not isinstance(body["response"], str):
        raise BadRequest(f'"response" must be a string, not {_kind(body["response"])}')
    return [(_task_id(body["label"]), body["response"])]


def slime_reply(verdicts: list) -> dict:
    s, st, d = verdicts[0]
    return {"score": s, "status": st, "detail": d}


def _kind(v) -> str:
    return {dict: "an object", list: "a list", type(None): "null", bool: "a boolean"}.get(type(v), type(v).__name__)
