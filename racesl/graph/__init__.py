from racesl.graph.signature import Edge, SignatureGraph

__all__ = ["Edge", "SignatureGraph"]
