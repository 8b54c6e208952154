"""The `Embedder` protocol: text in, L2-normalised float32 vectors out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

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


@dataclass(frozen=True, slots=True)
class Embedded:
    """Texts embedded, and the name of the model that made the vectors: only vectors of the same model are
    compared."""

    matrix: Matrix
    model: str


@runtime_checkable
class FallsBack(Protocol):
    """An embedder that answers with a local twin's vectors when its own model cannot
    (`chats.embedders.fallback_embedder`)."""

    async def embed_or_fall_back(self, texts: Sequence[str]) -> Embedded: ...


async def embed_named(embedder: Embedder, texts: Sequence[str], *, fall_back: bool = True) -> Embedded:
    """`texts` embedded, named by the model that made them: an embedder that falls back says which of its
    models answered; any other (or any, without `fall_back`) answers with its own, or raises
    `EmbeddingError`."""
    if fall_back and isinstance(embedder, FallsBack):
        return await embedder.embed_or_fall_back(texts)
    return Embedded(await embedder.embed(texts), embedder.model_name)


@runtime_checkable
class ReadsWholeTexts(Protocol):
    """An embedder whose model reads a text of any length whole: `embed_one` gives it the text in one piece."""

    reads_whole_texts: bool


PIECE_CHARS = 300
"""A text longer than this is embedded as the mean of its pieces of about this many characters (cut
between words), unless its embedder `ReadsWholeTexts`: all-MiniLM-L6-v2 reads only its first 256 word
pieces, and a chat's topic or summary is longer. On LoCoMo with Parley's own maintenance (bench/chats.py),
switching's hit@3 went from 0.814 to 0.841 once a chat's whole text counted (pieces of 1200 characters:
0.831, 600: 0.836, 150: 0.837). The services' embedders get the same pieces (a fallback's twin too)."""


async def embed_one(embedder: Embedder, text: str, *, fall_back: bool = True) -> EmbeddedText:
    """`text` and its vector: one vector, however long the text (see `PIECE_CHARS`), named by the model that
    made it (`embed_named`: a local twin's when the embedder's own model could not, unless not `fall_back`)."""
    whole = isinstance(embedder, ReadsWholeTexts) and embedder.reads_whole_texts
    embedded = await embed_named(embedder, [text] if whole else pieces(text), fall_back=fall_back)
    matrix = embedded.matrix
    vector = matrix[0] if len(matrix) == 1 else normalise_rows(matrix.mean(axis=0, keepdims=True))[0]
    return EmbeddedText(text=text, vector=vector, model=embedded.model)


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
