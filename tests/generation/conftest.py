"""The stub server's fixture for this folder's tests."""

from tests.support.openai_stub import openai_stub  # noqa: F401
