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

from chats.embedding import Matrix, normalise_rows
from chats.errors import EmbeddingError
from chats.remote_embedding import RequestLimits, embed_in_batches
from chats.remote_embedding import plan_batches as plan_within

DEFAULT_MODEL = "text-embedding-3-small"
DIMENSIONS = 384
MAX_INPUTS_PER_REQUEST = 512
"""Well under the API's 2,048, so one slow or failed request costs little."""
MAX_CHARS_PER_REQUEST = 200_000
"""The API also caps a request at 300,000 tokens. A token is rarely shorter than a character (English
averages about four), so a batch of long texts stays under that cap."""
LIMITS = RequestLimits(MAX_INPUTS_PER_REQUEST, MAX_CHARS_PER_REQUEST)
TIMEOUT_SECONDS = 30.0
MAX_RETRIES = 2
"""The SDK retries connection errors, 408, 409, 429 and 5xx with backoff (0.5 s, then 1 s)."""


class OpenAIEmbedder:
    """Embeds with the OpenAI API. Close it with `aclose` (or `async with`) to free its connections."""

    def __init__(
        self,
        api_key: str,
        *,
        model: str = DEFAULT_MODEL,
        base_url: str | None = None,
        timeout_seconds: float = TIMEOUT_SECONDS,
        max_retries: int = MAX_RETRIES,
    ) -> None:
        """`base_url` None means the SDK's default (`OPENAI_BASE_URL`, else the public API)."""
        if not api_key:
            raise EmbeddingError("no OpenAI API key is set")
        self._model = model
        self._timeout_seconds = timeout_seconds
        self._client = openai.AsyncOpenAI(
            api_key=api_key, base_url=base_url, timeout=timeout_seconds, max_retries=max_retries
        )

    @property
    def model_name(self) -> str:
        return f"{self._model}@{DIMENSIONS}"

    @property
    def dimensions(self) -> int:
        return DIMENSIONS

    async def embed(self, texts: Sequence[str]) -> Matrix:
        """Embed in as few requests as the limits allow (`chats.remote_embedding`); an empty text is a zero
        row and is not sent."""
        return await embed_in_batches(texts, DIMENSIONS, LIMITS, self._request)

    async def aclose(self) -> None:
        await self._client.close()

    async def __aenter__(self) -> OpenAIEmbedder:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def _request(self, texts: list[str]) -> Matrix:
        try:
            # encoding_format is left to the SDK: it asks for base64 (a third of the bytes) and decodes.
            response = await self._client.embeddings.create(input=texts, model=self._model, dimensions=DIMENSIONS)
        except openai.OpenAIError as error:
            failure = self._describe(error)
        else:
            return _matrix(response, len(texts))
        # Raised outside the handler so the SDK error, whose text can echo the key, is not even chained.
        raise EmbeddingError(failure)

    def _describe(self, error: openai.OpenAIError) -> str:
        """One line for a user, built only from our settings, the status and the error code."""
        url = self._client.base_url
        host = f"{url.host}:{url.port}" if url.port else url.host
        match error:
            case openai.APITimeoutError():
                return f"the OpenAI API at {host} did not answer within {self._timeout_seconds:g} s"
            case openai.APIConnectionError():
                return f"cannot reach the OpenAI API at {host}"
            case openai.AuthenticationError():
                return "the OpenAI API key was refused"
            case openai.PermissionDeniedError():
                return f"the OpenAI API key may not use {self._model}"
            case openai.NotFoundError():
                return f"the OpenAI API does not offer the model {self._model}"
            case openai.RateLimitError():
                return "the OpenAI API is rate-limiting this key, or its quota is used up"
            case openai.APIStatusError(status_code=status, code=code):
                # The code is the server's word, so only a short identifier gets through.
                detail = f", {code}" if code and re.fullmatch(r"[\w.-]{1,40}", code) else ""
                return f"the OpenAI API refused the embedding request (HTTP {status}{detail})"
            case _:
                return "the OpenAI API sent an answer that is not a list of embeddings"


def _matrix(response: CreateEmbeddingResponse, count: int) -> Matrix:
    by_index = sorted(response.data, key=lambda item: item.index)
    matrix = np.array([item.embedding for item in by_index], dtype=np.float32)
    if matrix.shape != (count, DIMENSIONS):
        raise EmbeddingError(f"the OpenAI API sent vectors of shape {matrix.shape} for {count} texts")
    return normalise_rows(matrix)


def plan_batches(lengths: Sequence[int]) -> list[range]:
    """Split texts of these lengths (characters) into consecutive requests within the API's limits."""
    return plan_within(lengths, LIMITS)
