from racesl.operators.build import OPERATOR_BUILDERS, Task

__all__ = ["OPERATOR_BUILDERS", "Task"]
