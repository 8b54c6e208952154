"""What the embedders that call a service share: requests cut to the service's limits, empty texts that
never leave the machine, and SDK failures that leave as one `EmbeddingError` line with no cause chained.
No SDK here: each embedder module keeps its own."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Generic, Self, TypeVar

import numpy as np

from chats.degrade import is_outage
from chats.embedders.embedding import Matrix
from chats.errors import EmbeddingError, QuotaRefusal

R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class RequestLimits:
    """How much one embedding request may carry."""

    max_inputs: int
    """Texts per request."""
    max_chars: int
    """Characters per request, summed over its texts; a single longer text still goes, alone."""


def plan_batches(lengths: Sequence[int], limits: RequestLimits) -> list[range]:
    """Split texts of these lengths (characters) into consecutive requests within both limits."""
    batches: list[range] = []
    start = chars = 0
    for i, length in enumerate(lengths):
        if i > start and (i - start == limits.max_inputs or chars + length > limits.max_chars):
            batches.append(range(start, i))
            start, chars = i, 0
        chars += length
    if start < len(lengths):
        batches.append(range(start, len(lengths)))
    return batches


async def embed_in_batches(
    texts: Sequence[str],
    dimensions: int,
    limits: RequestLimits,
    request: Callable[[list[str]], Awaitable[Matrix]],
) -> Matrix:
    """Embed `texts` with `request` (one call per batch, each answering one row per text) in as few calls
    as `limits` allow, one after another: rate limits are per key, so parallel calls would only queue.

    The services refuse empty strings; an empty text gets a zero row, which matches nothing.
    """
    out = np.zeros((len(texts), dimensions), dtype=np.float32)
    wanted = [i for i, text in enumerate(texts) if text]
    for batch in plan_batches([len(texts[i]) for i in wanted], limits):
        rows = [wanted[i] for i in batch]
        out[rows] = await request([texts[i] for i in rows])
    return out


TIMEOUT_SECONDS = 30.0
"""How long one request may take (each retry has as long again)."""
MAX_RETRIES = 2
"""Retries of failed connections, 408, 429 and 5xx, after about 0.5 s then 1 s: a search waits on them."""


class RemoteEmbedder(ABC, Generic[R]):
    """An `Embedder` that calls a service whose SDK answers a request with an `R`. A subclass names its
    model, size and limits, opens its client (`_open`), sends one batch (`_send`), reads the answer
    (`_matrix`) and words a failure (`_describe`). Close it with `aclose` (or `async with`) to free its
    connections."""

    DEFAULT_MODEL: ClassVar[str]
    DIMENSIONS: ClassVar[int]
    """The size of the vectors asked for; `model_name` carries it."""
    LIMITS: ClassVar[RequestLimits]
    SDK_ERRORS: ClassVar[tuple[type[Exception], ...]]
    """What `_send` may raise that `_describe` turns into a message; anything else goes up unchanged."""

    def __init__(
        self,
        api_key: str,
        *,
        model: str | None = None,
        base_url: str | None = None,
        timeout_seconds: float = TIMEOUT_SECONDS,
        max_retries: int = MAX_RETRIES,
    ) -> None:
        """`model` None is `DEFAULT_MODEL`; `base_url` None is the service's own endpoint, a URL points the
        client elsewhere (a proxy, a fake)."""
        self._model = self.DEFAULT_MODEL if model is None else model
        self._timeout_seconds = timeout_seconds
        self._open(api_key, base_url, max_retries)

    @abstractmethod
    def _open(self, api_key: str, base_url: str | None, max_retries: int) -> None:
        """Make the SDK client, or raise `EmbeddingError` with one line (a blank key, options refused)."""

    @property
    def model_name(self) -> str:
        """The model and the dimension, so that vectors of different sizes never meet in a search."""
        return f"{self._model}@{self.DIMENSIONS}"

    @property
    def dimensions(self) -> int:
        return self.DIMENSIONS

    async def embed(self, texts: Sequence[str]) -> Matrix:
        """Embed in as few requests as the limits allow (`embed_in_batches`); an empty text is a zero row
        and is not sent."""
        return await embed_in_batches(texts, self.DIMENSIONS, self.LIMITS, self._request)

    @abstractmethod
    async def aclose(self) -> None: ...

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def _request(self, texts: list[str]) -> Matrix:
        try:
            response = await self._send(texts)
        except self.SDK_ERRORS as error:
            failure, quota, outage = self._describe(error), self._quota(error), is_outage(self._status(error))
        else:
            return self._matrix(response, len(texts))
        # Raised outside the handler so the SDK error, whose text can quote the server's or echo the key, is
        # not even chained.
        raise EmbeddingError(failure, outage=outage, quota=quota)

    @abstractmethod
    async def _send(self, texts: list[str]) -> R:
        """One request for these texts (none empty, within the limits)."""

    @abstractmethod
    def _matrix(self, response: R, count: int) -> Matrix:
        """One unit row per text, or `EmbeddingError` when the answer is not that."""

    @abstractmethod
    def _status(self, error: Exception) -> int | None:
        """The HTTP status the service answered `error` with; None when it did not answer (or not as itself)."""

    @abstractmethod
    def _quota(self, error: Exception) -> QuotaRefusal | None:
        """The quota refusal `error` is (with the wait the service asked), or None for any other failure."""

    @abstractmethod
    def _describe(self, error: Exception) -> str:
        """One line for a user, built only from our settings and the error's status: never the key, nor
        the server's own text."""
