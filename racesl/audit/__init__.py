"""`racesc audit`: does any strategy that skips solving collect reward above chance?

`shortcuts` scores the strategies with the real reward; `model` (torch, transformers:
imported only for `--model`) adds a real model's accuracy beside them.
"""

from racesl.audit.shortcuts import Cell, Report, Result, audit_records

__all__ = ["audit_records", "Report", "Cell", "Result"]
