"""What the local embedders share: one model of a fixed name and size, and, for those run in this
process, weights loaded once on first use and the work done off the event loop.

`FixedModelEmbedder` is the name and size alone (the child-process embedder reads them from a new
`InProcessEmbedder` that never loads); `InProcessEmbedder` adds the loading and the threads.
"""

from __future__ import annotations

import asyncio
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar, Generic, TypeVar

import numpy as np

from chats.embedders.embedding import Matrix

M = TypeVar("M")
"""What an in-process embedder loads: its weights, or the package's model object."""


class FixedModelEmbedder:
    """The `Embedder` properties of one model, which a subclass names."""

    MODEL_NAME: ClassVar[str]
    """Stored beside every vector the model makes."""
    DIMENSIONS: ClassVar[int]

    @property
    def model_name(self) -> str:
        return self.MODEL_NAME

    @property
    def dimensions(self) -> int:
        return self.DIMENSIONS


class InProcessEmbedder(FixedModelEmbedder, ABC, Generic[M]):
    """A model run in this process. Its weights load on the first call, once whichever thread asks first
    (`_load`); `embed` runs in a worker thread, `embed_sync` on the caller's."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._model: M | None = None

    async def embed(self, texts: Sequence[str]) -> Matrix:
        return await asyncio.to_thread(self.embed_sync, list(texts))

    def embed_sync(self, texts: Sequence[str]) -> Matrix:
        """Embed on the calling thread (benchmarks, batch jobs and the local models' child process). An empty
        text (a navigation turn's searchable text) is a zero row, which matches nothing, as the services'
        embedders give it (`chats.embedders.remote_embedding`): a model would give it a vector like any other."""
        rows = np.zeros((len(texts), self.DIMENSIONS), dtype=np.float32)
        wanted = [i for i, text in enumerate(texts) if text]
        if wanted:
            rows[wanted] = self._embed(self._loaded(), [texts[i] for i in wanted])
        return rows

    def _loaded(self) -> M:
        with self._lock:
            if self._model is None:
                self._model = self._load()
            return self._model

    @abstractmethod
    def _load(self) -> M:
        """The model, or `EmbeddingError` with one line when it is not installed or cannot be read."""

    @abstractmethod
    def _embed(self, model: M, texts: Sequence[str]) -> Matrix:
        """One unit row per text."""
