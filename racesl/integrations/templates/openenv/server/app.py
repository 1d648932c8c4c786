"""The racesl OpenEnv server: the stdlib's tasks, or the .races sources in RACESL_SOURCES
(`:`-separated files or folders), with RACESL_SEED and RACESL_OPERATORS as defaults."""

import os

from racesl.integrations.openenv import make_app

app = make_app([p for p in os.environ.get("RACESL_SOURCES", "").split(":") if p] or None,
               seed=int(os.environ.get("RACESL_SEED", "0")), operators=os.environ.get("RACESL_OPERATORS") or None)


def main(host: str = "0.0.0.0", port: int = 8000) -> None:
    import uvicorn

    uvicorn.run(app, host=host, port=port)


if __name__ == "__main__":
    main()
