"""racesl tasks as an OpenEnv environment (openenv-core 0.3): one task an episode, one step.

    pip install -e '.[openenv]'                       # in the racesl checkout
    uvicorn racesl.integrations.openenv:app          # or make_app(paths, seed=..., operators=...)

`reset(seed, episode_id, operators=..., level=...)` draws the task that seed names (the
same seed and options, the same task: the first task of the compiler's stream with that
seed) and keeps it as `.record`; the observation carries its prompt. `step(RacesAction(
answer=...))` scores the reply with `racesl.rewards.verdict` and ends the episode:
`done=True`, `reward` the score, `status` and `detail` saying why. The reward is
`racesc score`'s for the same text: the last `<answer>` block is the answer, and a reply
without one is `no_answer` (0), as everywhere else.

OpenEnv's plain HTTP endpoints make a fresh environment for every request, so `/step`
cannot see what `/reset` drew: there, pass the reset's `seed` (and options, and the
observation's `task_id` to check) to `/step` too, and it draws the same task again. A step
that names no seed on an environment that was never reset is refused (TaskUnknown, HTTP
400), never scored against some other task. WebSocket sessions keep one environment.
"""

from __future__ import annotations

from typing import Optional
from uuid import uuid4

from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

from racesl.integrations.tasks import stream
from racesl.rewards import verdict

__all__ = ["RacesAction", "RacesObservation", "RacesEnvironment", "Refused", "TaskUnknown", "make_app"]

OPTIONS = ("operators", "level")  # what a reset may choose; sources stay the server's
SERVER_FIELDS = ("timeout_s", "request_id")  # OpenEnv's own request fields, passed along to step


class Refused(ValueError):
    """A request the environment cannot answer as asked (HTTP 400 with this message)."""


class TaskUnknown(Refused):
    """A step that cannot know its task: no reset before it, and no seed with it."""


class RacesAction(Action):
    answer: str = Field(..., description="the reply: its last <answer>...</answer> block is the answer "
                                         "(as racesc score reads it; a reply without one scores 0, no_answer)")


class RacesObservation(Observation):
    prompt: str = Field(default="", description="the task, for the model")
    task_id: str = Field(default="", description="the record id")
    operator: str = Field(default="", description="sequential, parallel, sort, select, branch or loop")
    size: int = Field(default=0, description="the chain's length")
    status: str = Field(default="", description="after a step: the verdict's status (ok, no_answer, ...)")
    detail: str = Field(default="", description="after a step: why")


class RacesEnvironment(Environment):
    SUPPORTS_CONCURRENT_SESSIONS = True  # each instance keeps its own task

    def __init__(self, paths=None, *, seed: int = 0, operators: str | None = None, level: int | None = None,
                 include=()):
        super().__init__()
        self.paths, self.include = paths, tuple(include)
        self.defaults = {"seed": seed, "operators": operators, "level": level}
        self.record: dict | None = None
        self._state = State(episode_id=None, step_count=0)

    def _draw(self, seed: Optional[int], options: dict) -> dict:
        options = {k: v for k, v in options.items() if k not in SERVER_FIELDS}
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise Refused(f"unknown task options {unknown}; a reset takes {', '.join(OPTIONS)}")
        knobs = {**self.defaults, **{k: v for k, v in options.items() if v is not None}}
        if seed is not None:
            knobs["seed"] = seed
        return next(iter(stream(self.paths, limit=1, include=self.include, **knobs)))

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **options) -> RacesObservation:
        self.record = self._draw(seed, options)
        self._state = State(episode_id=episode_id or str(uuid4()), step_count=0)
        return self._observe(done=False, reward=None)

    def step(self, action: RacesAction, seed: Optional[int] = None, task_id: Optional[str] = None,
             **options) -> RacesObservation:
        if self.record is None:  # a fresh environment (OpenEnv's stateless HTTP /step): draw the task again
            if seed is None:
                raise TaskUnknown("this step cannot know its task: no reset came before it on this environment "
                                  "(OpenEnv's HTTP /step makes a fresh one per request); send the reset's seed "
                                  "(and options) with the step, e.g. {\"action\": {...}, \"seed\": 7}, or use a "
                                  "WebSocket session")
            self.record = self._draw(seed, options)
        if task_id is not None and str(task_id) != str(self.record["id"]):
            raise TaskUnknown(f"the step names task {task_id}, but this seed and these options draw "
                              f"{self.record['id']}: send the reset's seed and options unchanged")
        self._state.step_count += 1
        v = verdict(self.record, action.answer)
        return self._observe(done=True, reward=v.score, status=v.status, detail=v.detail)

    def _observe(self, **fields) -> RacesObservation:
        r = self.record
        return RacesObservation(prompt=r["prompt"], task_id=str(r["id"]), operator=r["operator"], size=r["size"],
                                metadata={"record_id": r["id"], "library": r["library"]}, **fields)

    @property
    def state(self) -> State:
        return self._state


def make_app(paths=None, *, seed: int = 0, operators: str | None = None, level: int | None = None,
             include=(), max_concurrent_envs: int = 64):
    """The FastAPI app (OpenEnv's `create_app`): /reset, /step, /state, /schema, /ws."""
    def factory() -> RacesEnvironment:
        return RacesEnvironment(paths, seed=seed, operators=operators, level=level, include=include)

    app = create_app(factory, RacesAction, RacesObservation, env_name="racesl",
                     max_concurrent_envs=max_concurrent_envs)
    app.add_exception_handler(Refused, _refuse)
    return app


async def _refuse(request, exc: Refused):
    """A request the environment cannot answer (a step that cannot know its task, an unknown
    option): 400 with the reason, not a 500."""
    from fastapi.responses import JSONResponse

    return JSONResponse({"detail": str(exc)}, status_code=400)


def __getattr__(name: str):
    """`racesl.integrations.openenv:app`: the stdlib's app, built when first asked for."""
    if name == "app":
        globals()["app"] = make_app()
        return globals()["app"]
    raise AttributeError(name)
