"""The `Embedder` protocol: text in, L2-normalised float32 vectors out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from chats.models import EmbeddedText

Matrix = npt.NDArray[np.float32]
"""Shape (n, dimensions), one L2-normalised row per input text."""


class Embedder(Protocol):
    @property
    def model_name(self) -> str:
        """Stored beside every vector; search only compares vectors with the same name."""
        ...

    @property
    def dimensions(self) -> int: ...

    async def embed(self, texts: Sequence[str]) -> Matrix:
        """Embed each text; raise `EmbeddingError` when the model cannot."""
        ...


async def embed_one(embedder: Embedder, text: str) -> EmbeddedText:
    matrix = await embedder.embed([text])
    return EmbeddedText(text=text, vector=matrix[0], model=embedder.model_name)


def normalise_rows(matrix: npt.NDArray[np.floating]) -> Matrix:
    """Scale each row to unit length (rows of zeros stay zero)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    normalised: Matrix = (matrix / np.maximum(norms, 1e-12)).astype(np.float32)
    return normalised
