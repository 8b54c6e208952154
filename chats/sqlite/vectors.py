"""Exact vector search over a user's chat vectors, held in memory between searches.

At personal scale exact search is both right and fast: 10,000 chats x 384 floats is a 15 MB matrix and
one query is a single matrix-vector product (about 1 ms). Reading the blobs back from SQLite for every
query would cost more than the search itself, so the matrix is cached and rebuilt only when the data
changed: after this connection wrote a vector, or when `PRAGMA data_version` says another connection
(another Parley process) committed.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from chats.models import Vector


def encode_vector(vector: Vector) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def decode_vector(blob: bytes) -> Vector:
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


@dataclass(frozen=True, slots=True)
class _Matrix:
    chat_ids: list[str]
    rows: npt.NDArray[np.float32]


class VectorCache:
    def __init__(self, connection: sqlite3.Connection, user_id: str) -> None:
        self._db = connection
        self._user_id = user_id
        self._matrices: dict[str, _Matrix] = {}
        self._data_version: int | None = None

    def invalidate(self) -> None:
        self._matrices.clear()

    def similarities(self, model: str, query: Vector) -> dict[str, float]:
        """Cosine similarity of `query` to each chat's vector of `model`: its summary, else its topic."""
        matrix = self._matrix(model)
        if not matrix.chat_ids or matrix.rows.shape[1] != query.shape[0]:
            return {}
        scores = matrix.rows @ query.astype(np.float32)
        return dict(zip(matrix.chat_ids, scores.tolist(), strict=True))

    def _matrix(self, model: str) -> _Matrix:
        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        if version != self._data_version:
            self._matrices.clear()
            self._data_version = version
        if model not in self._matrices:
            self._matrices[model] = self._load(model)
        return self._matrices[model]

    def _load(self, model: str) -> _Matrix:
        rows = self._db.execute(
            "SELECT id, CASE WHEN summary_model = ? THEN summary_embedding ELSE topic_embedding END"
            " FROM chats WHERE user_id = ? AND (summary_model = ? OR topic_model = ?)",
            (model, self._user_id, model, model),
        ).fetchall()
        if not rows:
            return _Matrix([], np.zeros((0, 0), dtype=np.float32))
        return _Matrix(
            [chat_id for chat_id, _ in rows],
            np.stack([np.frombuffer(blob, dtype="<f4") for _, blob in rows]).astype(np.float32),
        )
