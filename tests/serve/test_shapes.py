"""Each trainer's request read into (task id, completion) pairs, and its reply built."""

from __future__ import annotations

import json

import pytest

from racesl.serve import shapes


class _Index:
    def __init__(self, *records):
        self.by_id = {r["id"]: r for r in records}

    def get(self, tid):
        return self.by_id.get(tid)


REC = {"id": "t1", "prompt": "Say <answer>X</answer>."}


def test_native():
    assert shapes.native_items({"id": "t1", "completion": "a"}) == ([("t1", "a")], True)
    assert shapes.native_items([{"id": 3, "completion": ""}]) == ([(3, "")], False)
    items = [("t1", "a"), ("t2", "b")]
    reply = shapes.native_reply(items, [(1.0, "ok", "right"), (0.0, "unknown_id", "no")], False)
    assert reply == [{"id": "t1", "score": 1.0, "status": "ok", "detail": "right"},
                     {"id": "t2", "score": 0.0, "status": "unknown_id", "detail": "no"}]


@pytest.mark.parametrize("body", [None, 3, "x", [], {"completion": "a"}, [{"id": 1}], {"id": 1, "completion": None}])
def test_native_refuses_other_shapes(body):
    with pytest.raises(shapes.BadRequest):
        shapes.native_items(body)


def test_openrlhf_labels_and_prompt_cut():
    idx = _Index(REC)
    q = "<s>" + REC["prompt"] + "</s> reply"
    # given prompt, the record's prompt found in the query, and the record as a label
    assert shapes.openrlhf_items({"query": [q], "prompts": ["<s>"], "labels": ["t1"]}, idx) == \
        [("t1", REC["prompt"] + "</s> reply")]
    assert shapes.openrlhf_items({"query": [q], "labels": ["t1"]}, idx) == [("t1", "</s> reply")]
    assert shapes.openrlhf_items({"query": [q], "labels": [json.dumps(REC)]}, idx) == [("t1", "</s> reply")]
    assert shapes.openrlhf_items({"query": ["z"], "labels": ["{not json"]}, idx) == [("{not json", "z")]
    reply = shapes.openrlhf_reply([(1.0, "ok", ""), (0.0, "timeout", "")])
    assert reply["rewards"] == reply["scores"] == [1.0, 0.0]
    assert set(reply["extra_logs"]) == {f"races/status/{s}" for s in shapes.SERVE_STATUSES}
    assert reply["extra_logs"]["races/status/timeout"] == [0.0, 1.0]


@pytest.mark.parametrize("body", [[], {"query": "a", "labels": ["t1"]}, {"query": ["a"], "labels": ["t1", "t2"]},
                                  {"query": ["a"], "labels": ["t1"], "prompts": "p"}, {"query": [None], "labels": [1]}])
def test_openrlhf_refuses_other_shapes(body):
    with pytest.raises(shapes.BadRequest):
        shapes.openrlhf_items(body, _Index(REC))


def test_slime():
    assert shapes.slime_items({"prompt": "p", "response": "r", "label": "t1"}) == [("t1", "r")]
    assert shapes.slime_items({"response": "r", "label": {"id": "t1"}}) == [("t1", "r")]
    assert shapes.slime_reply([(0.5, "ok", "d")]) == {"score": 0.5, "status": "ok", "detail": "d"}
    for body in ({"response": "r"}, {"label": "t1"}, {"response": 1, "label": "t1"}, ["r"]):
        with pytest.raises(shapes.BadRequest):
            shapes.slime_items(body)
