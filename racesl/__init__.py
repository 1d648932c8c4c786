"""racesl: typed, composable, verifiable RL environments as a language and a compiler."""

__version__ = "0.1.0"
