"""Exact vector search over a user's chat vectors, held in memory between searches.

At personal scale exact search is both right and fast: 10,000 chats x 384 floats is a 15 MB matrix and
one query is a single matrix-vector product (about 1 ms). Reading the blobs back from SQLite for every
query would cost more than the search itself, so the matrix is cached and rebuilt only when the data
changed: after this connection wrote a vector, or when `PRAGMA data_version` says another connection
(another Parley process) committed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

from chats.models import Vector

T = TypeVar("T")


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


class DerivedCache(Generic[T]):
    """Values `build` makes from the database (one per key, e.g. per embedding model), kept until
    `probe` answers something else or `invalidate` is called. The probe must be cheap: it runs before
    every read. `PRAGMA data_version` sees other connections' commits; a counter a trigger bumps sees
    every change to the rows the values come from."""

    def __init__(self, probe: Callable[[], object], build: Callable[[str], T]) -> None:
        self._probe = probe
        self._build = build
        self._values: dict[str, T] = {}
        self._seen: object = None

    def invalidate(self) -> None:
        self._values.clear()

    def get(self, key: str) -> T:
        seen = self._probe()
        if seen != self._seen:
            self._values.clear()
            self._seen = seen
        if key not in self._values:
            self._values[key] = self._build(key)
        return self._values[key]


class VectorCache:
    def __init__(self, connection: sqlite3.Connection, user_id: str) -> None:
        self._db = connection
        self._user_id = user_id
        # data_version moves when another connection commits; this connection's own writes call
        # `invalidate`.
        self._matrices = DerivedCache(lambda: connection.execute("PRAGMA data_version").fetchone()[0], self._load)

    def invalidate(self) -> None:
        self._matrices.invalidate()

    def similarities(self, model: str, query: Vector) -> Similarities:
        """Cosine similarity of `query` to each chat's vector of `model`: its summary, else its topic."""
        matrix = self._matrices.get(model)
        if not matrix.chat_ids or matrix.rows.shape[1] != query.shape[0]:
            return Similarities([], np.zeros(0, dtype=np.float32), {})
        return Similarities(matrix.chat_ids, matrix.rows @ query.astype(np.float32), matrix.position)

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
