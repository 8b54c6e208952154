"""The Gemini `batchEmbedContents` call as the service answers it, for the fake REST server (`gemini_server`).

The wire format, as `google-genai` speaks it to the Developer API: `POST /{version}/models/{model}:
batchEmbedContents` with `{"requests": [{"model": "models/{model}", "content": {"parts": [{"text": ...}]},
"outputDimensionality": N, "taskType"?: ...}]}`, answered `{"embeddings": [{"values": [...]}, ...]}`, one
per request. Limits and refusals are the service's: at most 100 requests a batch and a body of at most
4 MiB (400 INVALID_ARGUMENT, with the wording users have logged), a request's model must be the batch's,
a content needs text, and a model that does not embed is 404 NOT_FOUND. A content with several parts is
one input: the service answers one aggregated vector for it.

Vectors are a hashed bag of lowercase words, so texts that share words are close and unrelated texts are
not, built like a Matryoshka model's: each word adds +-1 to one bucket in each of the nested prefixes
(128, 256, 512, 768, 1,536, 3,072), so any prefix is itself a bag of the same words. Like the service,
the full 3,072-d vector has unit length and a truncated one is cut from it as is; gemini-embedding-2
rescales a truncated vector to unit length, gemini-embedding-001 does not.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

FULL_DIMENSIONS = 3072
NESTED_SIZES = (128, 256, 512, 768, 1536, FULL_DIMENSIONS)
MAX_REQUESTS = 100
MAX_BODY_BYTES = 4 * 1024 * 1024
NORMALISED_WHEN_TRUNCATED = frozenset({"gemini-embedding-2"})
"""Models that rescale a truncated vector to unit length (Google: gemini-embedding-001 leaves it to you)."""

Answer = tuple[int, dict[str, Any]]
"""HTTP status and JSON body."""


def matryoshka_vector(text: str, model: str) -> npt.NDArray[np.float32]:
    """The fake's full-size unit vector for `text`; the model name seeds the hash, so two models never agree."""
    vector = np.zeros(FULL_DIMENSIONS, dtype=np.float64)
    for word in re.findall(r"\w+", text.lower()) or [text]:
        digest = hashlib.blake2b(f"{model}\0{word}".encode(), digest_size=8).digest()
        number = int.from_bytes(digest, "little")
        sign = 1.0 if number >> 63 else -1.0
        start = 0
        for size in NESTED_SIZES:
            vector[start + number % (size - start)] += sign
            start = size
    norm = np.linalg.norm(vector)
    return (vector / norm if norm else vector).astype(np.float32)


def expected_vector(text: str, model: str, dimensions: int) -> npt.NDArray[np.float32]:
    """What the service answers for `text` at `dimensions`, before any client-side normalisation."""
    vector = matryoshka_vector(text, model)[:dimensions]
    if model in NORMALISED_WHEN_TRUNCATED:
        vector = vector / np.linalg.norm(vector)
    return vector.astype(np.float32)


def error(status: int, name: str, message: str) -> Answer:
    return status, {"error": {"code": status, "message": message, "status": name}}


def unknown_model(model: str, api_version: str) -> Answer:
    return error(
        404,
        "NOT_FOUND",
        f"models/{model} is not found for API version {api_version}, or is not supported for batchEmbedContents."
        " Call ListModels to see the list of available models and their supported methods.",
    )


def too_large() -> Answer:
    return error(400, "INVALID_ARGUMENT", f"Request payload size exceeds the limit: {MAX_BODY_BYTES} bytes.")


def embeddings_answer(model: str, body: Mapping[str, Any]) -> Answer:
    """The answer to an authorised `batchEmbedContents` for a model that embeds."""
    requests = body.get("requests")
    if not isinstance(requests, list) or not requests:
        return error(400, "INVALID_ARGUMENT", "* BatchEmbedContentsRequest.requests: must not be empty\n")
    if len(requests) > MAX_REQUESTS:
        message = f"* BatchEmbedContentsRequest.requests: at most {MAX_REQUESTS} requests can be in one batch\n"
        return error(400, "INVALID_ARGUMENT", message)
    embeddings = []
    for i, request in enumerate(requests):
        field = f"BatchEmbedContentsRequest.requests[{i}]"
        if request.get("model") != f"models/{model}":
            message = f"* {field}.model: the model of each request must be the model of the batch, models/{model}\n"
            return error(400, "INVALID_ARGUMENT", message)
        parts = (request.get("content") or {}).get("parts") or []
        text = "".join(part.get("text") or "" for part in parts)
        if not text:
            return error(400, "INVALID_ARGUMENT", f"* {field}.content.parts: contents must not be empty\n")
        dimensions = request.get("outputDimensionality", FULL_DIMENSIONS)
        if not isinstance(dimensions, int) or not 1 <= dimensions <= FULL_DIMENSIONS:
            message = f"* {field}.output_dimensionality: must be between 1 and {FULL_DIMENSIONS}\n"
            return error(400, "INVALID_ARGUMENT", message)
        vector = expected_vector(text, model, dimensions)
        embeddings.append({"values": [float(x) for x in vector]})
    return 200, {"embeddings": embeddings}
