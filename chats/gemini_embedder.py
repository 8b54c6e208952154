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
from collections.abc import Sequence
from urllib.parse import urlsplit

import httpx
import httpx2
import numpy as np
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from chats.embedding import Matrix, normalise_rows
from chats.errors import EmbeddingError
from chats.remote_embedding import RequestLimits, embed_in_batches

DEFAULT_MODEL = "gemini-embedding-2"
"""Google's current GA embedding model (April 2026); gemini-embedding-001 is still served, text only."""
DIMENSIONS = 768
LIMITS = RequestLimits(max_inputs=100, max_chars=200_000)
"""`batchEmbedContents` refuses more than 100 requests in one batch ("at most 100 requests can be in one
batch") and a body over 4 MiB. The SDK writes JSON with non-ASCII characters escaped, up to 12 bytes a
character, so 200,000 characters stay under that size whatever the script."""
TIMEOUT_SECONDS = 30.0
MAX_RETRIES = 2
"""Retries of 408, 429, 5xx and failed connections, after about 0.5 s then 1 s: a search waits on them."""
DEFAULT_HOST = "generativelanguage.googleapis.com"


class GeminiEmbedder:
    """Embeds with the Gemini API. Close it with `aclose` (or `async with`) to free its connections."""

    def __init__(
        self,
        api_key: str,
        *,
        model: str = DEFAULT_MODEL,
        base_url: str | None = None,
        timeout_seconds: float = TIMEOUT_SECONDS,
        max_retries: int = MAX_RETRIES,
    ) -> None:
        """`base_url` None means Google's endpoint; a URL points the client elsewhere (a proxy, a fake)."""
        if not api_key.strip():
            raise EmbeddingError("no Gemini API key is set")
        self._model = model
        self._timeout_seconds = timeout_seconds
        self._host = _host(base_url)
        # Without retry options the SDK makes one attempt; jitter kept small so a search is not held long.
        retry = types.HttpRetryOptions(attempts=1 + max_retries, initial_delay=0.5, max_delay=2.0, jitter=0.2)
        try:
            self._client = genai.Client(
                api_key=api_key,
                vertexai=False,
                http_options=types.HttpOptions(
                    base_url=base_url, timeout=round(timeout_seconds * 1000), retry_options=retry
                ),
            )
        except ValueError:
            raise EmbeddingError("the Gemini client could not be configured") from None

    @property
    def model_name(self) -> str:
        return f"{self._model}@{DIMENSIONS}"

    @property
    def dimensions(self) -> int:
        return DIMENSIONS

    async def embed(self, texts: Sequence[str]) -> Matrix:
        """Embed in as few requests as the limits allow (`chats.remote_embedding`); an empty text is a zero
        row and is not sent.

        No task type or task prefix is sent: this one call embeds queries and stored texts alike (and
        memories against memories for the duplicate rule), so both sides must land in the same space."""
        return await embed_in_batches(texts, DIMENSIONS, LIMITS, self._request)

    async def aclose(self) -> None:
        await self._client.aio.aclose()

    async def __aenter__(self) -> GeminiEmbedder:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def _request(self, texts: list[str]) -> Matrix:
        # One Content per text: the SDK reads a list of strings for gemini-embedding-2 as the parts of a
        # single content and the service answers one aggregated vector for all of them
        # (googleapis/python-genai#2523).
        contents = [types.Content(role="user", parts=[types.Part(text=text)]) for text in texts]
        config = types.EmbedContentConfig(output_dimensionality=DIMENSIONS)
        try:
            response = await self._client.aio.models.embed_content(model=self._model, contents=contents, config=config)
        except Exception as error:  # the SDK raises its own errors, httpx's, and pydantic's on a bad answer
            failure = self._describe(error)
        else:
            return _matrix(response, len(texts))
        # Raised outside the handler so the SDK error, whose text quotes the server's, is not even chained.
        raise EmbeddingError(failure)

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


def _matrix(response: types.EmbedContentResponse, count: int) -> Matrix:
    rows = [embedding.values or [] for embedding in response.embeddings or []]
    if len(rows) != count or any(len(row) != DIMENSIONS for row in rows):
        sizes = sorted({len(row) for row in rows})
        raise EmbeddingError(f"the Gemini API sent {len(rows)} vectors of sizes {sizes} for {count} texts")
    # gemini-embedding-001 scales only its full 3,072-d vector to unit length; a truncated one is not.
    return normalise_rows(np.array(rows, dtype=np.float32))
