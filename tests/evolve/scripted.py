"""A generator backend with scripted completions (the Backend interface of racesl.generation),
for loop tests that need no server and no model."""

from racesl.generation import Reply


class ScriptedBackend:
    """Replies from `script`, one per request in order (a Reply as is, a str as an ok reply);
    past its end every request gets an error reply. Keeps the requests it saw."""

    name = "scripted"

    def __init__(self, script):
        self.script = list(script)
        self.requests = []
        self.closed = False

    def generate(self, requests):
        out = []
        for r in requests:
            self.requests.append(r)
            item = self.script.pop(0) if self.script else Reply(("",), "error", "script exhausted")
            out.append(item if isinstance(item, Reply) else Reply((item,), "ok", None, 0.01))
        return out

    def close(self):
        self.closed = True
