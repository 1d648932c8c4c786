"""`racesc serve`: task records behind an HTTP reward endpoint.

Trainers that score over HTTP (OpenRLHF's remote reward URL, slime's `--rm-url`) post
completions; the server answers with `racesl.rewards.verdict`'s score and status, computed
in forked worker processes so that one slow or crashing completion holds up nobody else.

tasks: the records, by id; workers: the scoring processes; shapes: each trainer's request
and reply; strict_json: JSON without NaN or Infinity, both ways; framing: the HTTP layer's
own refusals in JSON; app: the aiohttp application and the serving loop.
"""

from racesl.serve.app import make_app, serve
from racesl.serve.tasks import TaskIndex
from racesl.serve.workers import Pool

__all__ = ["TaskIndex", "Pool", "make_app", "serve"]
