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


PIECE_CHARS = 300
"""A text longer than this is embedded as the mean of its pieces of about this many characters (cut
between words): all-MiniLM-L6-v2 reads only its first 256 word pieces, and a chat's topic or summary is
longer. On LoCoMo with Parley's own maintenance (bench/chats.py), switching's hit@3 went from 0.814 to
0.841 once a chat's whole text counted (pieces of 1200 characters: 0.831, 600: 0.836, 150: 0.837)."""


async def embed_one(embedder: Embedder, text: str) -> EmbeddedText:
    """`text` and its vector: one vector, however long the text (see `PIECE_CHARS`)."""
    matrix = await embedder.embed(pieces(text))
    vector = matrix[0] if len(matrix) == 1 else normalise_rows(matrix.mean(axis=0, keepdims=True))[0]
    return EmbeddedText(text=text, vector=vector, model=embedder.model_name)


def pieces(text: str) -> list[str]:
    """`text` cut between words into pieces of at least `PIECE_CHARS` characters (the last may be shorter);
    a text no longer than that is one piece, as it is."""
    if len(text) <= PIECE_CHARS:
        return [text]
    found: list[str] = []
    piece: list[str] = []
    size = 0
    for word in text.split():
        piece.append(word)
        size += len(word) + 1
        if size >= PIECE_CHARS:
            found.append(" ".join(piece))
            piece, size = [], 0
    if piece:
        found.append(" ".join(piece))
    return found or [text]


def normalise_rows(matrix: npt.NDArray[np.floating]) -> Matrix:
    """Scale each row to unit length (rows of zeros stay zero)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    normalised: Matrix = (matrix / np.maximum(norms, 1e-12)).astype(np.float32)
    return normalised
