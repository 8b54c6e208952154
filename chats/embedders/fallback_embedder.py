"""A remote embedder with its local twin: the service's vectors while it answers, the local model's when it
does not (`chats.degrade`).

Its `model_name` is the remote model's, and `embed` answers only with that model's vectors (or an
`EmbeddingError`, at once while the service rests): what is stored under the remote model's name is always
that model's. `embed_or_fall_back` (through `chats.embedders.embedding.embed_named` and `embed_one`) answers
with the twin's vectors when the service cannot, named by the twin's model, so that a search compares them
only with the stored vectors the twin made and finds the rest by their words.
"""

from __future__ import annotations

from collections.abc import Sequence

from chats.degrade import WithTwin
from chats.embedders.embedding import Embedded, Embedder, Matrix
from chats.errors import EmbeddingError


class FallbackEmbedder(WithTwin[Embedder]):
    """An `Embedder` (the remote one's model and size) that falls back to `twin` (`FallsBack`)."""

    @property
    def model_name(self) -> str:
        return self._remote.model_name

    @property
    def dimensions(self) -> int:
        return self._remote.dimensions

    @property
    def twin(self) -> Embedder:
        return self._twin

    async def embed(self, texts: Sequence[str]) -> Matrix:
        """The remote model's vectors; `EmbeddingError` when it fails, and at once while it rests."""
        if not self.part.should_ask():
            raise EmbeddingError(f"{self.part.name} rest after a failure; they are asked again later", outage=True)
        try:
            matrix = await self._remote.embed(texts)
        except EmbeddingError as error:
            if error.outage:
                self.part.failed(error)
            raise
        self.part.succeeded()
        return matrix

    async def embed_or_fall_back(self, texts: Sequence[str]) -> Embedded:
        """The remote model's vectors, or the twin's when the remote cannot (named by the model that made them)."""
        texts = list(texts)
        matrix, remote = await self.part.call(lambda: self._remote.embed(texts), lambda: self._twin.embed(texts))
        return Embedded(matrix, self.model_name if remote else self._twin.model_name)
