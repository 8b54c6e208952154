"""The Gemini embeddings API as an `Embedder`, through `google-genai`: the choice of most users with a key.

Vectors are requested at 768 dimensions: the smallest size Google recommends for its Matryoshka-trained
models (768, 1,536 or 3,072; on MTEB gemini-embedding-001 loses about 0.2 points at 768 against 3,072),
and at twice MiniLM's bytes a vector, a quarter of the full size, so the in-memory search matrices of the
stores stay small. Both stores keep vectors of any size per model name, and `model_name` carries the
dimension, so vectors of different sizes or models never meet in a search.

Only this module sees `google.genai` embedding types: every SDK failure leaves as an `EmbeddingError`
with a one-line message that never holds the key, nor the server's own text.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import httpx
import httpx2
import numpy as np
from google.genai import errors as genai_errors
from google.genai import types

from chats.embedders.embedding import Matrix, normalise_rows
from chats.embedders.remote_embedding import RemoteEmbedder, RequestLimits
from chats.errors import EmbeddingError, QuotaRefusal
from chats.text.gemini_text import gemini_client, gemini_quota

DEFAULT_MODEL = "gemini-embedding-2"
"""Google's current GA embedding model (April 2026); gemini-embedding-001 is still served, text only."""
DIMENSIONS = 768
LIMITS = RequestLimits(max_inputs=100, max_chars=200_000)
"""`batchEmbedContents` refuses more than 100 requests in one batch ("at most 100 requests can be in one
batch") and a body over 4 MiB. The SDK writes JSON with non-ASCII characters escaped, up to 12 bytes a
character, so 200,000 characters stay under that size whatever the script."""
DEFAULT_HOST = "generativelanguage.googleapis.com"


class GeminiEmbedder(RemoteEmbedder[types.EmbedContentResponse]):
    """Embeds with the Gemini API. Close it with `aclose` (or `async with`) to free its connections.

    No task type or task prefix is sent: this one call embeds queries and stored texts alike (and memories
    against memories for the duplicate rule), so both sides must land in the same space."""

    DEFAULT_MODEL = DEFAULT_MODEL
    DIMENSIONS = DIMENSIONS
    LIMITS = LIMITS
    SDK_ERRORS = (Exception,)
    """The SDK raises its own errors, httpx's, and pydantic's on a bad answer."""

    def _open(self, api_key: str, base_url: str | None, max_retries: int) -> None:
        self._host = _host(base_url)
        # Without retry options the SDK makes one attempt; jitter kept small so a search is not held long.
        retry = types.HttpRetryOptions(attempts=1 + max_retries, initial_delay=0.5, max_delay=2.0, jitter=0.2)
        self._client = gemini_client(
            api_key, base_url=base_url, timeout_seconds=self._timeout_seconds, error=EmbeddingError, retry=retry
        )

    async def aclose(self) -> None:
        await self._client.aio.aclose()

    async def _send(self, texts: list[str]) -> types.EmbedContentResponse:
        # One Content per text: the SDK reads a list of strings for gemini-embedding-2 as the parts of a
        # single content and the service answers one aggregated vector for all of them
        # (googleapis/python-genai#2523).
        contents = [types.Content(role="user", parts=[types.Part(text=text)]) for text in texts]
        config = types.EmbedContentConfig(output_dimensionality=DIMENSIONS)
        return await self._client.aio.models.embed_content(model=self._model, contents=contents, config=config)

    def _matrix(self, response: types.EmbedContentResponse, count: int) -> Matrix:
        rows = [embedding.values or [] for embedding in response.embeddings or []]
        if len(rows) != count or any(len(row) != DIMENSIONS for row in rows):
            sizes = sorted({len(row) for row in rows})
            raise EmbeddingError(
                f"the Gemini API sent {len(rows)} vectors of sizes {sizes} for {count} texts", outage=True
            )
        # gemini-embedding-001 scales only its full 3,072-d vector to unit length; a truncated one is not.
        return normalise_rows(np.array(rows, dtype=np.float32))

    def _status(self, error: Exception) -> int | None:
        return error.code if isinstance(error, genai_errors.APIError) else None

    def _quota(self, error: Exception) -> QuotaRefusal | None:
        return gemini_quota(error)

    def _describe(self, error: Exception) -> str:
        """One line for a user, built only from our settings, the status and the error's status name."""
        match error:
            case httpx.TimeoutException() | httpx2.TimeoutException():
                return f"the Gemini API at {self._host} did not answer within {self._timeout_seconds:g} s"
            case httpx.TransportError() | httpx2.TransportError():
                return f"cannot reach the Gemini API at {self._host}"
            case genai_errors.APIError(code=400) if _is_key_error(error):
                return "the Gemini API key was refused"
            case genai_errors.APIError(code=401):
                return "the Gemini API key was refused"
            case genai_errors.APIError(code=403):
                return f"the Gemini API key may not use {self._model}"
            case genai_errors.APIError(code=404):
                return f"the Gemini API does not offer the model {self._model}"
            case genai_errors.APIError(code=429):
                return "the Gemini API is rate-limiting this key, or its quota is used up"
            case genai_errors.APIError(code=status, status=name):
                # The status name is the server's word, so only a short identifier gets through.
                detail = f", {name}" if isinstance(name, str) and re.fullmatch(r"[A-Z_]{1,40}", name) else ""
                return f"the Gemini API refused the embedding request (HTTP {status}{detail})"
            case _:
                return "the Gemini API sent an answer that is not a list of embeddings"


def _host(base_url: str | None) -> str:
    """Host and port of the endpoint, for messages: never the URL's path, query or user part."""
    if not base_url:
        return DEFAULT_HOST
    url = urlsplit(base_url)
    return f"{url.hostname}:{url.port}" if url.port else str(url.hostname)


def _is_key_error(error: genai_errors.APIError) -> bool:
    # A wrong key is answered 400 INVALID_ARGUMENT with an ErrorInfo whose reason is API_KEY_INVALID.
    return "API_KEY_INVALID" in repr(error.details)
