"""A stand-in OpenAI-compatible server on 127.0.0.1 for test_verifiers.py's `vf-eval` run:
`/v1/models`, and `/v1/chat/completions` (streamed or not) that answers a task's prompt
with its gold reply when the prompt is one of the records it was given, else junk.
argv: PORT RECORDS.jsonl LOG (each request's path is appended to LOG)."""

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, RECORDS, LOG = int(sys.argv[1]), sys.argv[2], sys.argv[3]
with open(RECORDS, encoding="utf-8") as f:
    GOLD = {r["prompt"]: f"Let me see. <answer>{r['answer']}</answer>" for r in map(json.loads, f)}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _json(self, obj):
        data = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._log()
        self._json({"object": "list", "data": [{"id": "stub", "object": "model", "created": 0, "owned_by": "test"}]})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        self._log()
        prompt = next((m.get("content") for m in reversed(body.get("messages") or []) if m.get("role") == "user"), "")
        text = GOLD.get(prompt if isinstance(prompt, str) else "", "I do not know.")
        base = {"id": "chatcmpl-1", "created": int(time.time()), "model": body.get("model", "stub")}
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if not body.get("stream"):
            return self._json({**base, "object": "chat.completion", "usage": usage, "choices": [
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}]})
        chunks = [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None},
                  {"index": 0, "delta": {}, "finish_reason": "stop"}]
        events = [{**base, "object": "chat.completion.chunk", "choices": [c]} for c in chunks]
        events.append({**base, "object": "chat.completion.chunk", "choices": [], "usage": usage})
        data = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events) + b"data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _log(self):
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(f"{self.command} {self.path}\n")


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
