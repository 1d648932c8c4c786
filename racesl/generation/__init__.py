"""Text from a model, for the gates and loops that ask one (`racesc admit --model/--endpoint`,
`racesc evolve`): in process with transformers, or from an OpenAI-compatible server.

This package imports no other part of racesl; torch and transformers only inside the
in-process backend's functions.
"""

from __future__ import annotations

from racesl.generation.base import Backend, Reply, Request
from racesl.generation.local import TransformersBackend
from racesl.generation.remote import OpenAIBackend

__all__ = ["Backend", "OpenAIBackend", "Reply", "Request", "TransformersBackend", "open_backend"]


def open_backend(model: str | None, endpoint: str | None, **kw) -> Backend | None:
    """The backend for `--model PATH` (a local folder) or `--endpoint URL` (an OpenAI-compatible
    server's /v1); neither gives None (nothing asks a model), both a ValueError.

    `kw` goes to the backend's constructor; for an endpoint, `served_model=` names the model
    to ask for (default: the server's first).
    """
    if model is not None and endpoint is not None:
        raise ValueError(f"give a model folder or an endpoint, not both (model={model!r}, endpoint={endpoint!r})")
    if model is not None:
        if not model.strip():
            raise ValueError("the model folder is an empty string")
        return TransformersBackend(model, **kw)
    if endpoint is not None:
        if not endpoint.startswith(("http://", "https://")):
            raise ValueError(f"an endpoint is an http(s) URL ending in /v1, got {endpoint!r}")
        if "served_model" in kw:
            kw["model"] = kw.pop("served_model")
        return OpenAIBackend(endpoint, **kw)
    return None
