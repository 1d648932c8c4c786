"""What a text generation backend takes and gives back, whichever model sits behind it.

A backend answers a list of requests with one reply each, in the same order, and never raises
for one request's failure: `admit` and `evolve` send hundreds of prompts and must be able to
count, log and skip the ones that failed instead of losing the whole batch.
"""

from __future__ import annotations

import hashlib
from typing import Literal, Protocol, runtime_checkable

from attrs import field, frozen

Status = Literal["ok", "error", "timeout"]


def _at_least(low: float):
    def check(_inst, attribute, value) -> None:
        if value < low:
            raise ValueError(f"Request.{attribute.name} must be >= {low}, got {value!r}")
    return check


@frozen
class Request:
    """One prompt: `prompt` is the user message; the backend applies the chat format.

    Temperature, seed and the token budget are explicit on every request, never a server's
    or a checkpoint's default, so a run can be repeated. `temperature == 0` is greedy.
    """

    prompt: str
    system: str | None = None
    temperature: float = field(default=0.0, validator=_at_least(0.0))
    seed: int = 0
    max_tokens: int = field(default=256, validator=_at_least(1))
    n: int = field(default=1, validator=_at_least(1))
    # a grammar in llguidance's Lark dialect the reply must follow (racesl.evolve.grammar), or
    # None; a backend that cannot constrain answers such a request with an error reply
    grammar: str | None = None


@frozen
class Reply:
    """The answer to one request: `n` texts (an empty string for a sample that failed).

    `status` is "ok" only when every sample came back; `detail` says what went wrong
    otherwise. `seconds` is wall time spent on the request (informational, never compared).
    """

    texts: tuple[str, ...]
    status: Status = "ok"
    detail: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def failed(request: Request, detail: str, status: Status = "error", seconds: float = 0.0) -> Reply:
    """A reply with no text for any of the request's samples."""
    return Reply(texts=("",) * request.n, status=status, detail=detail, seconds=seconds)


def messages(request: Request) -> list[dict[str, str]]:
    """The request as chat messages: an optional system message, then the user message."""
    out = [{"role": "system", "content": request.system}] if request.system is not None else []
    return out + [{"role": "user", "content": request.prompt}]


def sample_seed(seed: int, index: int) -> int:
    """The seed of sample `index` of a request: a fixed mix of both (63 bits), so the `n`
    samples differ, and one request's samples never repeat a neighbouring seed's."""
    digest = hashlib.sha256(f"racesl.generation:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@runtime_checkable
class Backend(Protocol):
    """Anything that turns requests into replies: in process or over HTTP."""

    name: str

    def generate(self, requests: list[Request]) -> list[Reply]:
        """One reply per request, in request order; a failure is an error reply, not an exception."""
        ...

    def close(self) -> None:
        """Release the model or connections; the backend is not used afterwards."""
        ...
