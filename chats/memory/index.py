"""A user's current memories of one embedding model as arrays: exact vector search plus the filters.

At personal scale exact search is right and fast: 100,000 memories x 384 floats is a 150 MB matrix
and one query a single matrix-vector product. The scope, category and tag filters are boolean masks
over the same rows, so a search never goes back to the database for them. A store builds the index
from its rows and rebuilds it when the user's memories change.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from chats.memory.models import CATEGORIES, PERSONAL_CATEGORIES, Category
from chats.memory.ranking import Floats, Ints, Seconds
from chats.models import NO_FOLDER, FolderFilter, Vector

Mask = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class IndexRow:
    key: int
    """The store's row key (SQLite: `seq`)."""
    category: Category
    project_id: str | None
    source_chat_id: str | None
    created: float
    """POSIX seconds."""
    tags: Sequence[str]
    vector: Vector


class MemoryIndex:
    def __init__(self, rows: Sequence[IndexRow]) -> None:
        self.keys: Ints = np.array([row.key for row in rows], dtype=np.int64)
        self.vectors: Floats = (
            np.stack([row.vector for row in rows]).astype(np.float32) if rows else np.zeros((0, 0), dtype=np.float32)
        )
        self.category: Ints = np.array([CATEGORIES.index(row.category) for row in rows], dtype=np.int64)
        self.personal: Mask = np.array([row.category in PERSONAL_CATEGORIES for row in rows], dtype=bool)
        self._projects: dict[str | None, int] = {}
        self.project: Ints = np.array([self._code(self._projects, row.project_id) for row in rows], dtype=np.int64)
        chats: dict[str | None, int] = {}
        self.chat: Ints = np.array(
            [-1 if row.source_chat_id is None else self._code(chats, row.source_chat_id) for row in rows],
            dtype=np.int64,
        )
        self.created: Seconds = np.array([row.created for row in rows], dtype=np.float64)
        self._tags: dict[str, set[int]] = {}
        for position, row in enumerate(rows):
            for tag in row.tags:
                self._tags.setdefault(tag.casefold(), set()).add(position)
        self.position: dict[int, int] = {int(key): i for i, key in enumerate(self.keys)}

    @staticmethod
    def _code(codes: dict[str | None, int], value: str | None) -> int:
        return codes.setdefault(value, len(codes))

    def __len__(self) -> int:
        return len(self.keys)

    def similarities(self, query: Vector) -> Floats:
        """Cosine of `query` to every row (vectors are unit length); empty on a dimension mismatch."""
        if not len(self) or self.vectors.shape[1] != query.shape[0]:
            return np.zeros(0, dtype=np.float32)
        scores: Floats = self.vectors @ query.astype(np.float32)
        return scores

    def mask(self, scope: FolderFilter, category: Category | None = None, tags: Iterable[str] = ()) -> Mask | None:
        """Rows visible from `scope` with `category` and every tag; None when every row is."""
        mask: Mask | None = None
        if scope is not None:
            code = self._projects.get(None if scope is NO_FOLDER else scope)
            in_scope = self.personal.copy() if code is None else self.personal | (self.project == code)
            mask = in_scope
        if category is not None:
            of_category = self.category == CATEGORIES.index(category)
            mask = of_category if mask is None else mask & of_category
        for tag in tags:
            tagged = np.zeros(len(self), dtype=bool)
            tagged[list(self._tags.get(tag.casefold(), ()))] = True
            mask = tagged if mask is None else mask & tagged
        return mask
