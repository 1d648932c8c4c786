"""`racesc serve` as a process: each trainer's shape over HTTP, refusals in JSON, a worker
killed mid-request, the time limit, graceful shutdown, and start-up errors."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time

import pytest

from racesl.rewards import verdict
from tests.serve.conftest import gone, serving
from tests.support.tasks import run_racesc, wrap


@pytest.fixture(scope="module")
def server(tasks_file):
    with serving([tasks_file], "--workers", 2, "--max-request-mb", 1) as s:
        yield s


def _by_op(records, op):
    return next(r for r in records if r["operator"] == op)


def test_native_single_and_list(server, records):
    r = _by_op(records, "sort")
    code, one = server.post("/score", {"id": r["id"], "completion": wrap(r["answer"])})
    assert code == 200 and one == {"id": r["id"], "score": 1.0, "status": "ok", "detail": "right"}
    body = [{"id": q["id"], "completion": wrap(q["answer"][:-1])} for q in records[:100]]
    code, rows = server.post("/score", body)
    assert code == 200 and len(rows) == 100  # (spread over the two workers in batches of 64)
    assert [(x["score"], x["status"]) for x in rows] == \
        [(v.score, v.status) for v in (verdict(q, b["completion"]) for q, b in zip(records, body))]


def test_ids_compare_as_text(server, tmp_path):
    _, reply = server.post("/score", {"id": 12, "completion": "x"})
    assert reply["status"] == "unknown_id" and reply["score"] == 0.0


def test_openrlhf_shape(server, records):
    rs = records[:6]
    prompts = [f"<|user|>{r['prompt']}<|assistant|>" for r in rs]
    responses = [wrap(r["answer"]) if k % 2 else "no idea" for k, r in enumerate(rs)]
    queries = [p + c for p, c in zip(prompts, responses)]
    for labels, given in (([r["id"] for r in rs], prompts), ([json.dumps(r) for r in rs], None)):
        code, reply = server.post("/openrlhf", {"query": queries, "prompts": given, "labels": labels})
        assert code == 200
        want = [verdict(r, c) for r, c in zip(rs, responses)]
        assert reply["rewards"] == reply["scores"] == [v.score for v in want]
        assert reply["extra_logs"]["races/status/ok"] == [1.0 if v.status == "ok" else 0.0 for v in want]
        assert reply["extra_logs"]["races/status/no_answer"] == [1.0, 0.0] * 3  # "no idea" at even places
    code, same = server.post("/get_reward", {"query": queries, "labels": [r["id"] for r in rs]})
    assert code == 200 and same["rewards"] == [v.score for v in want]  # the prompt found in the query


def test_openrlhf_prompt_example_does_not_count(server, records):
    """The prompt shows an `<answer>` example; without `prompts` the record's own prompt is
    found in the query and cut off, so a reply with no block of its own scores 0."""
    r = next(r for r in records if "<answer>" in r["prompt"])
    code, reply = server.post("/openrlhf", {"query": [r["prompt"] + " I am not sure."], "labels": [r["id"]]})
    assert code == 200 and reply["rewards"] == [0.0] and reply["extra_logs"]["races/status/no_answer"] == [1.0]


def test_slime_shape(server, records):
    r = _by_op(records, "loop")
    code, reply = server.post("/slime", {"prompt": r["prompt"], "response": wrap(r["answer"]), "label": r["id"]})
    assert code == 200 and reply["score"] == 1.0 and reply["status"] == "ok"
    code, reply = server.post("/slime", {"prompt": "", "response": "", "label": {"id": r["id"]}})
    assert code == 200 and (reply["score"], reply["status"]) == (0.0, "no_answer")


@pytest.mark.parametrize("path, body, why", [
    ("/score", b"{nope", "not JSON"),
    ("/score", b"[" * 100_000 + b"]" * 100_000, "not JSON"),
    ("/score", b'{"id": "x", "completion": NaN}', "not JSON"),
    ("/score", b"[]", "non-empty list"),
    ("/score", b'{"id": "x"}', '"completion"'),
    ("/score", b'[{"id": "x", "completion": "a"}, 3]', "item 1"),
    ("/score", b'{"id": "x", "completion": 3}', "must be a string"),
    ("/openrlhf", b'{"query": ["a"], "labels": []}', "same length"),
    ("/openrlhf", b'{"query": [1], "labels": ["x"]}', "query 0"),
    ("/slime", b'{"response": "a"}', "label"),
])
def test_malformed_requests_get_400_in_json(server, path, body, why):
    code, reply = server.post(path, body)
    assert code == 400 and reply["status"] == "bad_request" and why in reply["detail"]


def test_oversized_request_gets_413_and_the_server_stays_up(server, records):
    code, reply = server.post("/score", {"id": records[0]["id"], "completion": "x" * (2 << 20)})
    assert code == 413 and reply["status"] == "too_large"
    assert server.get("/health")["status"] == "ok"


def test_unknown_paths_and_methods_answer_json(server):
    code, reply = server.post("/nothing", b"{}")
    assert code == 404 and reply["status"] == "not_found"
    code, reply = server.post("/health", b"{}")
    assert code == 405 and reply["status"] == "bad_method"


def _in_background(fn):
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("reply", fn()), daemon=True)
    t.start()
    return t, out


def test_a_worker_killed_mid_request_is_survived(server, records):
    pids = server.worker_pids()
    for p in pids:  # stopped: the request waits in a worker's socket...
        os.kill(p, signal.SIGSTOP)
    r = _by_op(records, "sort")  # (re-executed in the worker when the order is not the recorded one)
    t, out = _in_background(lambda: server.post("/score", {"id": r["id"], "completion": wrap(r["answer"])}))
    time.sleep(0.5)
    assert t.is_alive()
    for p in pids:  # ...and both die with it: the batch runs again on a fresh worker
        os.kill(p, signal.SIGKILL)
    t.join(60)
    assert out["reply"] == (200, {"id": r["id"], "score": 1.0, "status": "ok", "detail": "right"})
    health = server.get("/health")  # the idle dead one is replaced by the health check
    assert health["workers"]["alive"] == 2 and health["workers"]["replaced"] == 2
    assert not set(health["workers"]["pids"]) & set(pids)


def test_time_limit_and_graceful_shutdown(tasks_file, records):
    r = records[0]
    with serving([tasks_file], "--workers", 1, "--timeout", 1) as server:
        (pid,) = server.worker_pids()
        os.kill(pid, signal.SIGSTOP)
        t0 = time.monotonic()
        code, reply = server.post("/score", {"id": r["id"], "completion": wrap(r["answer"])})
        assert code == 200 and reply["status"] == "timeout" and reply["score"] == 0.0
        assert 0.9 < time.monotonic() - t0 < 30 and gone(pid)
        code, reply = server.post("/score", {"id": r["id"], "completion": wrap(r["answer"])})
        assert reply["status"] == "ok"  # the replacement scores
        # SIGTERM with a request in flight: it is answered, then the server and its workers stop
        (pid,) = server.worker_pids()
        os.kill(pid, signal.SIGSTOP)
        t, out = _in_background(lambda: server.post("/score", {"id": r["id"], "completion": "x"}))
        time.sleep(0.3)
        code, err = server.stop()
        t.join(30)
        assert out["reply"][0] == 200 and out["reply"][1]["status"] == "timeout"
        assert code == 0 and "stopped" in err and "Traceback" not in err
        assert gone(pid)


def test_startup_errors_are_one_line(tmp_path, tasks_file):
    p = run_racesc("serve", tmp_path / "none.jsonl", "--port", "0", check=False)
    assert p.returncode == 1 and "does not exist" in p.stderr and "Traceback" not in p.stderr
    (tmp_path / "bad.jsonl").write_text('{"id": 1}\n')
    p = run_racesc("serve", tmp_path / "bad.jsonl", "--port", "0", check=False)
    assert p.returncode == 1 and "bad.jsonl:1" in p.stderr and "Traceback" not in p.stderr  # FILE:N, one line
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        p = run_racesc("serve", tasks_file, "--port", s.getsockname()[1], "--workers", 1, check=False)
    assert p.returncode == 1 and "cannot listen" in p.stderr and "Traceback" not in p.stderr
    p = run_racesc("serve", tasks_file, "--timeout", "0", check=False)
    assert p.returncode == 2 and "--timeout" in p.stderr


def _sockets_of(pid: int) -> int:
    """How many sockets the process holds."""
    n = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            n += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        except FileNotFoundError:
            pass
    return n


def test_a_replacement_worker_holds_no_client_socket(tasks_file, records):
    """Workers replaced while a keep-alive connection has a request open: the connection still
    closes when the server closes it (a worker holding the client's socket kept it open for
    ever), and every worker holds one socket, its own."""
    r = _by_op(records, "sort")
    body = json.dumps({"id": r["id"], "completion": wrap(r["answer"])}).encode()
    with serving([tasks_file], "--workers", 2) as server:
        host, port = server.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=30) as conn:
            def ask(close: bool) -> bytes:
                conn.sendall(b"POST /score HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n%s\r\n%s"
                             % (len(body), b"Connection: close\r\n" if close else b"", body))
                return conn.recv(65536)

            assert b'"status": "ok"' in ask(close=False)  # the connection stays open (keep-alive)
            pids = server.worker_pids()
            for p in pids:  # the next request waits in a stopped worker...
                os.kill(p, signal.SIGSTOP)
            t, out = _in_background(lambda: ask(close=True))
            time.sleep(0.5)
            for p in pids:  # ...both die: replacements fork while this connection is open
                os.kill(p, signal.SIGKILL)
            t.join(30)
            assert b'"status": "ok"' in out["reply"] and b"Connection: close" in out["reply"]
            conn.settimeout(10)
            rest = conn.recv(65536)  # the server closed: nothing more, end of stream
            assert rest == b"" or b'"status"' in rest and conn.recv(65536) == b""
        health = server.get("/health")
        assert health["workers"]["replaced"] >= 2 and not set(health["workers"]["pids"]) & set(pids)
        for pid in health["workers"]["pids"]:  # (one just forked by the health check closes them first)
            deadline = time.monotonic() + 10
            while _sockets_of(pid) != 1 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert _sockets_of(pid) == 1, f"worker {pid} holds {_sockets_of(pid)} sockets"
        code, err = server.stop()
    assert code == 0 and "Traceback" not in err
