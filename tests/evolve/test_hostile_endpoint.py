"""`racesc evolve` against a hostile OpenAI-compatible server on 127.0.0.1 (raw sockets, so it
can misbehave below HTTP): one reply dripped a byte a second, one chunked flood far beyond the
reply cap, one completion carrying a lone surrogate. Each becomes one row at the right gate
(the drip and the flood: `generate`, the surrogate: `parse`), within the timeout, with the
client's memory bounded by the cap."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

from racesl.cli.main import main
from racesl.evolve.loop import request_seed
from racesl.generation import OpenAIBackend, Request

SEED = 3
CAP = 64 * 1024
CORPUS = Path(__file__).parent / "corpus"


def _reply(text: str) -> bytes:
    # json.dumps writes a lone surrogate as the escape \ud800, as a server's JSON may
    return json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}).encode()


class Hostile:
    """A server whose behaviour per chat request is `script(body) -> "drip" | "flood" | bytes`."""

    def __init__(self, script):
        self.script, self.sent = script, {"flood": 0}
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.sock.close()

    def _serve(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn):
        try:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, body = data.split(b"\r\n\r\n", 1)
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length")), 0)
            while len(body) < length:
                body += conn.recv(65536)
            if head.startswith(b"GET"):
                self._send(conn, json.dumps({"data": [{"id": "hostile"}]}).encode())
                return
            what = self.script(json.loads(body))
            if what == "drip":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n")
                for _ in range(60):
                    conn.sendall(b" ")
                    time.sleep(1.0)
            elif what == "flood":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
                chunk = b" " * 65536
                for _ in range(4096):  # 256 MiB, if nobody stops reading
                    conn.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.sent["flood"] += len(chunk)
            else:
                self._send(conn, what)
        except OSError:
            pass
        finally:
            conn.close()

    @staticmethod
    def _send(conn, payload: bytes):
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                     % (len(payload), payload))


def test_backend_deadline_cap_and_surrogates():
    script = {0: "drip", 1: "flood", 2: _reply("```races\nmodule x\n\ud800\n```")}
    with Hostile(lambda body: script[body["seed"]]) as server:
        backend = OpenAIBackend(server.url, model="m", timeout=2.0, retries=0, max_reply_bytes=CAP)
        began = time.perf_counter()
        drip, flood, odd = backend.generate([Request("q", seed=i) for i in range(3)])
        took = time.perf_counter() - began
    assert drip.status == "timeout" and "timed out after 2 s" in drip.detail
    assert flood.status == "error" and "limit" in flood.detail
    assert server.sent["flood"] < 64 * CAP  # the client stopped reading long before the end
    assert odd.ok and "\ud800" in odd.texts[0]  # the text as sent: the parse gate judges it
    assert took < 8.0  # one deadline per request, not per read: the drip ends at 2 s


def test_evolve_survives_drip_flood_and_surrogates(tmp_path, capsys):
    module = (CORPUS / "ternary.races").read_text(encoding="utf-8")
    seeds = [request_seed(SEED, 0, i) for i in range(3)]
    broken = module.replace("\n", "\n# \ud800\n", 1)  # a valid module, but for one lone surrogate
    script = {seeds[0]: "drip", seeds[1]: "flood", seeds[2]: _reply(f"```races\n{broken}```\n")}
    cfg = tmp_path / "evolve.toml"
    cfg.write_text(f'[pool]\ndir = "pool"\n[generator]\ncandidates_per_step = 3\nseed = {SEED}\ntimeout = 2.0\n'
                   f'retries = 0\nmax_reply_bytes = {CAP}\nmodel_gates = false\n'
                   '[admit]\nsamples = 12\nprobes = 8\n', encoding="utf-8")
    with Hostile(lambda body: script[body["seed"]]) as server:
        began = time.perf_counter()
        assert main(["evolve", str(cfg), "--endpoint", server.url, "--steps", "1", "--json"]) == 0
        took = time.perf_counter() - began
    out = json.loads(capsys.readouterr().out)
    assert out["candidates"] == 3 and out["admitted"] == []
    rows = sorted((json.loads(line) for line in (tmp_path / "pool" / "evolve.jsonl").read_text().splitlines()),
                  key=lambda r: r["index"])
    assert [r["gate"] for r in rows] == ["generate", "generate", "parse"], rows
    assert "timed out" in rows[0]["reason"] and "limit" in rows[1]["reason"]
    assert "UTF-8" in rows[2]["reason"] and "U+D800" in rows[2]["reason"]
    assert rows[2]["reward"] == -1.0  # the parse penalty, not check's -0.9
    assert took < 120
