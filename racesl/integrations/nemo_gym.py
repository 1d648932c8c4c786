"""NeMo Gym: the verify step of a resources server, kept here so it runs (and is tested)
without NeMo Gym (nemo-gym 0.4 runs on Python 3.12; later releases want 3.13).

`racesc compile --format nemo-gym` writes the rows (racesl.records.nemo_gym_row:
`responses_create_params.input`, `id`, `record`); the template in `templates/nemo_gym/`
is a resources server whose `verify()` calls `verify_payload` here with its `data/`
folder, where the rows and their sidecar (`train.jsonl.library.json`) live: a sort or
select answer whose library is not registered yet loads the sidecars there and is scored
again, so a fresh server process scores them as `racesc score` does. `row_problems` says
what in a row does not match the shape NeMo Gym documents.
"""

from __future__ import annotations

from pathlib import Path

from racesl.rewards import verdict
from racesl.rewards.adapters import record_from
from racesl.rewards.libraries import scan

TEMPLATE = Path(__file__).parent / "templates" / "nemo_gym"
_SCANNED_FIRST: set[tuple[str, ...]] = set()  # `libraries` arguments scanned once before any verdict


def response_text(response) -> str:
    """The assistant's text in a Responses API response: every `output_text` part of every
    `message` item, joined (reasoning items and tool calls are not the answer)."""
    if not isinstance(response, dict):
        return ""
    parts = []
    for item in response.get("output") or []:
        if not isinstance(item, dict) or item.get("type") != "message":
            continue
        content = item.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [c.get("text", "") for c in content
                      if isinstance(c, dict) and c.get("type") == "output_text" and isinstance(c.get("text"), str)]
    return "".join(parts)


def verify_payload(body: dict, libraries=()) -> dict:
    """{"reward", "status", "detail"} for a verify request (the row's fields plus
    `response`); a body without a record scores 0 with status `error`, never raises.
    `libraries`: where the rows' sidecars are (entries as in RACESL_LIBRARY_PATH: see
    racesl.rewards.libraries.scan), read when an answer needs a library this process has
    not registered."""
    rec = record_from(body.get("record")) if isinstance(body, dict) else None
    if rec is None:
        return {"reward": 0.0, "status": "error", "detail": "no record in the verify request"}
    text = response_text(body.get("response"))
    key = tuple(str(e) for e in libraries)
    if key and key not in _SCANNED_FIRST:  # (read before the first verdict: none says a library is missing)
        scan(*libraries)
        _SCANNED_FIRST.add(key)
    v = verdict(rec, text)
    if v.status == "library_missing" and libraries:
        scan(*libraries)  # (returns once the sidecars are registered, by this call or another)
        v = verdict(rec, text)
    return {"reward": v.score, "status": v.status, "detail": v.detail}


def row_problems(row) -> list[str]:
    """What keeps `row` from being a NeMo Gym dataset row for this server (empty: none)."""
    if not isinstance(row, dict):
        return ["not a JSON object"]
    out = []
    params = row.get("responses_create_params")
    messages = params.get("input") if isinstance(params, dict) else None
    if not isinstance(messages, list) or not messages:
        out.append("responses_create_params.input is not a non-empty list of messages")
    else:
        for k, m in enumerate(messages):
            if not (isinstance(m, dict) and m.get("role") in ("system", "developer", "user", "assistant")
                    and isinstance(m.get("content"), str)):
                out.append(f"responses_create_params.input[{k}] is not a {{role, content}} message")
    if not isinstance(row.get("record"), dict):
        out.append("record is not the task record")
    elif row.get("id") != row["record"].get("id"):
        out.append("id is not the record's id")
    return out
