"""The OpenAI embeddings API as an `Embedder`: the remote choice beside the local MiniLM.

Vectors are requested at 384 dimensions, the MiniLM's size, so either embedder fills the same
stores; `model_name` carries the dimension too, so vectors of different sizes never meet in a search.
Only this module sees `openai` types: every SDK failure leaves as an `EmbeddingError` with a one-line
message that never holds the key (nor the server's own text, which can echo part of it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import openai
from openai.types import CreateEmbeddingResponse

from chats.degrade import parse_retry_after
from chats.embedders.embedding import Matrix, normalise_rows
from chats.embedders.remote_embedding import RemoteEmbedder, RequestLimits
from chats.embedders.remote_embedding import plan_batches as plan_within
from chats.errors import EmbeddingError, QuotaRefusal
from chats.models import utc_now

DEFAULT_MODEL = "text-embedding-3-small"
DIMENSIONS = 384
MAX_INPUTS_PER_REQUEST = 512
"""Well under the API's 2,048, so one slow or failed request costs little."""
MAX_CHARS_PER_REQUEST = 200_000
"""The API also caps a request at 300,000 tokens. A token is rarely shorter than a character (English
averages about four), so a batch of long texts stays under that cap."""
LIMITS = RequestLimits(MAX_INPUTS_PER_REQUEST, MAX_CHARS_PER_REQUEST)
_REFUSALS = {
    401: "the OpenAI API key was refused",
    403: "the OpenAI API key may not use {model}",
    404: "the OpenAI API does not offer the model {model}",
    429: "the OpenAI API is rate-limiting this key, or its quota is used up",
}
"""What a refusal of these HTTP statuses tells the user (the SDK raises `AuthenticationError`,
`PermissionDeniedError`, `NotFoundError` and `RateLimitError` for them); `{model}` is the model asked for."""


class OpenAIEmbedder(RemoteEmbedder[CreateEmbeddingResponse]):
    """Embeds with the OpenAI API. Close it with `aclose` (or `async with`) to free its connections."""

    DEFAULT_MODEL = DEFAULT_MODEL
    DIMENSIONS = DIMENSIONS
    LIMITS = LIMITS
    SDK_ERRORS = (openai.OpenAIError, AttributeError, TypeError, ValueError)
    """Besides its own errors, the SDK fails in its own parser on an answer that is not JSON (a proxy's HTML
    page with status 200: `parse_embedding_response` reads `.data` of a str, openai 3.57)."""

    def _open(self, api_key: str, base_url: str | None, max_retries: int) -> None:
        # base_url None is the SDK's default: OPENAI_BASE_URL, else the public API. The SDK retries
        # connection errors, 408, 409, 429 and 5xx with backoff (0.5 s, then 1 s).
        if not api_key:
            raise EmbeddingError("no OpenAI API key is set")
        self._client = openai.AsyncOpenAI(
            api_key=api_key, base_url=base_url, timeout=self._timeout_seconds, max_retries=max_retries
        )

    async def aclose(self) -> None:
        await self._client.close()

    async def _send(self, texts: list[str]) -> CreateEmbeddingResponse:
        # encoding_format is left to the SDK: it asks for base64 (a third of the bytes) and decodes.
        return await self._client.embeddings.create(input=texts, model=self._model, dimensions=DIMENSIONS)

    def _matrix(self, response: CreateEmbeddingResponse, count: int) -> Matrix:
        by_index = sorted(response.data, key=lambda item: item.index)
        matrix = np.array([item.embedding for item in by_index], dtype=np.float32)
        if matrix.shape != (count, DIMENSIONS):
            raise EmbeddingError(f"the OpenAI API sent vectors of shape {matrix.shape} for {count} texts", outage=True)
        return normalise_rows(matrix)

    def _status(self, error: Exception) -> int | None:
        return error.status_code if isinstance(error, openai.APIStatusError) else None

    def _quota(self, error: Exception) -> QuotaRefusal | None:
        """A 429 with the wait the API asked: `retry-after-ms`, else `retry-after` (as the SDK reads them)."""
        if not isinstance(error, openai.APIStatusError) or error.status_code != 429:
            return None
        headers = error.response.headers
        milliseconds = parse_retry_after(headers.get("retry-after-ms"), utc_now())
        if milliseconds is not None:
            return QuotaRefusal(milliseconds / 1000)
        return QuotaRefusal(parse_retry_after(headers.get("retry-after"), utc_now()))

    def _describe(self, error: Exception) -> str:
        """One line for a user, built only from our settings, the status and the error code."""
        url = self._client.base_url
        host = f"{url.host}:{url.port}" if url.port else url.host
        match error:
            case openai.APITimeoutError():
                return f"the OpenAI API at {host} did not answer within {self._timeout_seconds:g} s"
            case openai.APIConnectionError():
                return f"cannot reach the OpenAI API at {host}"
            case openai.APIStatusError(status_code=status) if status in _REFUSALS:
                return _REFUSALS[status].format(model=self._model)
            case openai.APIStatusError(status_code=status, code=code):
                # The code is the server's word, so only a short identifier gets through.
                detail = f", {code}" if code and re.fullmatch(r"[\w.-]{1,40}", code) else ""
                return f"the OpenAI API refused the embedding request (HTTP {status}{detail})"
            case _:
                return "the OpenAI API sent an answer that is not a list of embeddings"


def plan_batches(lengths: Sequence[int]) -> list[range]:
    """Split texts of these lengths (characters) into consecutive requests within the API's limits."""
    return plan_within(lengths, LIMITS)
