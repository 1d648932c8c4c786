from racesl.operators.build import OPERATOR_BUILDERS

__all__ = ["OPERATOR_BUILDERS"]
