"""racesl tasks as a verifiers taskset (verifiers 0.4, the v1 API): id `racesl-tasks`.

    pip install -e '.[verifiers]'        # in the racesl checkout
    vf-eval racesl-tasks ...            # or: verifiers.v1.load_taskset(RacesConfig(id="racesl-tasks"))

verifiers finds a taskset by importing the module its id names (`racesl-tasks` →
`racesl_tasks`) and taking the one `Taskset` subclass in `__all__`. Tasks are streamed from
the compiler (`INFINITE`: bound them with `take` or `--select.limit`), or read from a
compiled file with `file = "tasks.jsonl"` (finite). Each task's reward is
`racesl.rewards.score` of the last reply; its key is the record id; `validate` checks,
without a model, that the gold answer scores 1.0.
"""

from __future__ import annotations

from collections.abc import Iterator

import verifiers.v1 as vf

from racesl.integrations.tasks import from_file, gold, stream
from racesl.rewards import score

__all__ = ["RacesConfig", "RacesData", "RacesTask", "RacesTaskset"]


class RacesConfig(vf.TasksetConfig):
    """`--env.taskset.*`: where the tasks come from."""

    paths: list[str] = []
    """.races files or folders to compose (empty: the bundled stdlib)."""
    include: list[str] = []
    """Folders added to the module search path."""
    seed: int = 0
    """The stream's seed: the same seed, the same tasks."""
    operators: str | None = None
    """Operators and chain sizes, as `racesc compile --operators` takes them
    (e.g. "sequential=2-4,sort=2-3"); unset: racesl's defaults."""
    level: int | None = None
    """The highest difficulty level sampled (0 = easiest); unset: racesl's default."""
    file: str | None = None
    """A compiled task file (`racesc compile -o FILE`): its tasks, in order, and no others."""


class RacesData(vf.TaskData):
    record: dict
    """The racesl task record: what the reward scores against."""


class RacesTask(vf.Task[RacesData, vf.State, vf.TaskConfig]):
    @property
    def key(self) -> str:
        return str(self.data.record["id"])  # durable: the same record, the same key, in every run

    @vf.reward
    async def races(self, trace) -> float:
        """racesl's reward for the final reply (0 for no `<answer>` block, a wrong answer, ...)."""
        return score(self.data.record, trace.last_reply)

    async def validate(self, runtime=None) -> bool:
        """Model-free: the gold answer scores 1.0."""
        return score(self.data.record, gold(self.data.record)) == 1.0


class RacesTaskset(vf.Taskset[RacesTask, RacesConfig]):
    INFINITE = True

    def __init__(self, config: RacesConfig) -> None:
        super().__init__(config)
        if config.file:
            self._bounded = True  # a file's tasks end

    def load(self) -> Iterator[RacesTask]:
        c = self.config
        records = from_file(c.file) if c.file else stream(c.paths or None, seed=c.seed, operators=c.operators,
                                                          level=c.level, include=c.include)
        for r in records:
            data = RacesData(id=str(r["id"]), name=f"{r['operator']}-{r['size']}", prompt=r["prompt"], record=r)
            yield RacesTask(data, c.task)
