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
class Similarities:
    """Cosine similarity of one query to every chat vector of its model."""

    chat_ids: list[str]
    scores: npt.NDArray[np.float32]
    position: dict[str, int]
    """Where each chat id sits in `chat_ids` and `scores`."""

    def best(self, limit: int) -> list[str]:
        """The ids of the `limit` most similar chats, in no particular order."""
        if len(self.chat_ids) <= limit:
            return list(self.chat_ids)
        return [self.chat_ids[i] for i in np.argpartition(-self.scores, limit - 1)[:limit]]

    def get(self, chat_id: str) -> float | None:
        index = self.position.get(chat_id)
        return None if index is None else float(self.scores[index])


@dataclass(frozen=True, slots=True)
class _Matrix:
    chat_ids: list[str]
    rows: npt.NDArray[np.float32]
    position: dict[str, int]


class VectorCache:
    def __init__(self, connection: sqlite3.Connection, user_id: str) -> None:
        self._db = connection
        self._user_id = user_id
        self._matrices: dict[str, _Matrix] = {}
        self._data_version: int | None = None

    def invalidate(self) -> None:
        self._matrices.clear()

    def similarities(self, model: str, query: Vector) -> Similarities:
        """Cosine similarity of `query` to each chat's vector of `model`: its summary, else its topic."""
        matrix = self._matrix(model)
        if not matrix.chat_ids or matrix.rows.shape[1] != query.shape[0]:
            return Similarities([], np.zeros(0, dtype=np.float32), {})
        return Similarities(matrix.chat_ids, matrix.rows @ query.astype(np.float32), matrix.position)

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
            return _Matrix([], np.zeros((0, 0), dtype=np.float32), {})
        chat_ids = [chat_id for chat_id, _ in rows]
        return _Matrix(
            chat_ids,
            np.stack([np.frombuffer(blob, dtype="<f4") for _, blob in rows]).astype(np.float32),
            {chat_id: i for i, chat_id in enumerate(chat_ids)},
        )
