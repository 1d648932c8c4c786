"""Compile a library into tasks: `compile_stream` (each task handed on as it is made) and
`compile_tasks` (all of them in a list). See `driver` for blocks, batches and streaming."""

from racesl.compile.driver import Summary, blocks_of, compile_stream, compile_tasks, shard_blocks
from racesl.compile.generator import Generator

__all__ = ["Generator", "Summary", "blocks_of", "compile_stream", "compile_tasks", "shard_blocks"]
