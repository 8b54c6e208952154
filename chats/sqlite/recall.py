"""The SQLite store's recall queries: turn vectors, turn words, excerpts. Synchronous, bound to one user.

Turn vectors are searched in memory, like chat vectors (`chats.sqlite.vectors`), but there are
40 times more of them, so the matrix is never rebuilt for a change: rows added since the last search
are fetched by rowid (`turn_vectors` only ever gains rows; a re-embedded turn gets a new row), a chat
deleted here drops its rows, and only when another connection committed and the row count disagrees
(a chat deleted by another Parley process) is the matrix read again whole.

The matrix is int8 (`chats.sqlite.turn_index`, `chats.sqlite.int8_rows`): at 10,000 chats of 40 turns,
155 MB instead of 614 MB of float32. It only chooses the candidates; the similarities a recall ranks by
are computed again from the stored float32 vectors of those few hundred turns, read back by rowid.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from uuid import UUID

import numpy as np
import numpy.typing as npt

from chats.errors import ChatNotFound, InvalidTurn
from chats.models import NO_FOLDER, FolderFilter, Turn, Vector
from chats.search import query_terms
from chats.sqlite import folders
from chats.sqlite.fts import TermBudget, telling_match
from chats.sqlite.turn_index import ModelTurnIndex, TurnKey
from chats.sqlite.vectors import decode_vector, encode_vector
from chats.store import ChatExcerpt, HiddenTurns, PendingTurn, RecallQuery, TurnCandidate, TurnSpan, TurnVector

RECALL_TERMS = TermBudget(common=2000, matched_rows=6000)
"""Recall lets BM25 score more turns than chat search (`SEARCH_TERMS`): every matching turn is a
candidate, not just a chat's best one."""

LOAD_BATCH = 4_000
"""Rows read per step when the vectors are first read (6 MB of all-MiniLM-L6-v2 blobs): the process kept
what a step had read, so steps of 20,000 rows left it 120 MB larger after the first recall."""


@dataclass(frozen=True, slots=True)
class TurnSimilarities:
    """Cosine similarity of one query to every turn vector of its model that the search may use."""

    index: ModelTurnIndex | None
    scores: npt.NDArray[np.float32]
    """Per row; rows the search may not use (dead, hidden, another folder's) are -inf."""

    def best(self, limit: int) -> list[TurnKey]:
        if self.index is None or limit <= 0:
            return []
        rows = np.arange(len(self.scores))
        if len(rows) > limit:
            rows = np.argpartition(-self.scores, limit - 1)[:limit]
        index = self.index
        return [(index.chat_ids[index.chat[row]], int(index.seq[row])) for row in rows if np.isfinite(self.scores[row])]

    def get(self, key: TurnKey) -> float | None:
        row = self._row(key)
        return None if row is None else float(self.scores[row])

    def exact(self, db: sqlite3.Connection, query: Vector, keys: Iterable[TurnKey]) -> dict[TurnKey, float]:
        """The cosine of `query` to the stored float32 vectors of `keys` (those the search may use): the
        int8 rows choose the candidates, these exact values rank them. A row replaced since it was read
        is left out (its int8 score stands)."""
        index = self.index
        if index is None:
            return {}
        rowids = {key: int(index.rowid[row]) for key in keys if (row := self._row(key)) is not None}
        found = dict(
            db.execute(
                # CROSS JOIN keeps json_each outside: one rowid lookup per key.
                "SELECT v.rowid, v.embedding FROM json_each(?) AS j CROSS JOIN turn_vectors AS v ON v.rowid = j.value",
                (json.dumps(list(rowids.values())),),
            ).fetchall()
        )
        query = query.astype(np.float32)
        return {
            key: float(decode_vector(found[rowid]) @ query)
            for key, rowid in rowids.items()
            if rowid in found and len(found[rowid]) == query.shape[0] * 4
        }

    def _row(self, key: TurnKey) -> int | None:
        row = None if self.index is None else self.index.row_of(key)
        return None if row is None or not np.isfinite(self.scores[row]) else row


class TurnVectorIndex:
    """The user's turn vectors per model, kept in memory between searches (see the module's docstring)."""

    def __init__(self, connection: sqlite3.Connection, user_id: str) -> None:
        self._db = connection
        self._user_id = user_id
        self._models: dict[str, ModelTurnIndex] = {}
        self._seen: dict[str, int] = {}
        """Per model, the `PRAGMA data_version` its index was last brought up to date at."""
        self._stale: set[str] = set()

    def wrote(self) -> None:
        """This connection added vectors: fetch the new rows on the next search."""
        self._stale = set(self._models)

    def forget_chat(self, chat_id: UUID) -> None:
        for index in self._models.values():
            index.forget_chat(str(chat_id))

    def similarities(
        self, model: str, query: Vector, *, chats: Iterable[str] | None, hidden: tuple[str, int] | None
    ) -> TurnSimilarities:
        """Similarities for the rows of `chats` (every chat when None) outside the hidden tail."""
        index = self._current(model, query.shape[0])
        if index is None or index.size == 0:
            return TurnSimilarities(None, np.zeros(0, dtype=np.float32))
        scores = index.vectors.dot(query, index.size)
        if chats is not None:
            allowed = np.full(index.size, -np.inf, dtype=np.float32)
            for chat_id in chats:
                rows = index.rows_of(chat_id)
                allowed[rows] = scores[rows]
            scores = allowed
        scores[list(index.dead)] = -np.inf
        if hidden is not None:
            scores[index.rows_of(hidden[0], first=hidden[1])] = -np.inf
        return TurnSimilarities(index, scores)

    def _current(self, model: str, dimensions: int) -> ModelTurnIndex | None:
        version = int(self._db.execute("PRAGMA data_version").fetchone()[0])
        others_wrote = version != self._seen.get(model)
        self._seen[model] = version
        index = self._models.get(model)
        if index is not None and index.dimensions != dimensions:
            return None  # a query of another width than this model's vectors: nothing compares
        if index is None:
            index = self._models[model] = self._load(model, dimensions)
        elif others_wrote or model in self._stale:
            index.add(self._rows_after(model, index.high_water))
            if others_wrote and index.live_rows != self._count(model):
                index = self._models[model] = self._load(model, dimensions)
        self._stale.discard(model)
        return index

    def _load(self, model: str, dimensions: int) -> ModelTurnIndex:
        index = ModelTurnIndex(dimensions, capacity=self._count(model))
        cursor = self._db.execute(
            "SELECT rowid, chat_id, seq, embedding FROM turn_vectors WHERE user_id = ? AND model = ? ORDER BY rowid",
            (self._user_id, model),
        )
        while batch := cursor.fetchmany(LOAD_BATCH):
            index.add(batch)
        return index

    def _rows_after(self, model: str, rowid: int) -> list[tuple[int, str, int, bytes]]:
        return self._db.execute(
            "SELECT rowid, chat_id, seq, embedding FROM turn_vectors WHERE user_id = ? AND model = ? AND rowid > ?"
            " ORDER BY rowid",
            (self._user_id, model, rowid),
        ).fetchall()

    def _count(self, model: str) -> int:
        row = self._db.execute(
            "SELECT count(*) FROM turn_vectors WHERE user_id = ? AND model = ?", (self._user_id, model)
        ).fetchone()
        return int(row[0])


def chats_without_turn_vectors(db: sqlite3.Connection, user_id: str, model: str) -> list[UUID]:
    """The user's chats with fewer vectors of `model` than turns, most recent first: one walk of the
    covering index `chats_by_user_activity` against `turn_vector_counts` (migration 0007)."""
    rows = db.execute(
        "SELECT c.id FROM chats AS c LEFT JOIN turn_vector_counts AS n ON n.chat_id = c.id AND n.model = ?"
        " WHERE c.user_id = ? AND c.turn_count > coalesce(n.vectors, 0) ORDER BY c.last_activity_at DESC, c.id",
        (model, user_id),
    )
    return [UUID(chat_id) for (chat_id,) in rows]


def turns_without_vectors(
    db: sqlite3.Connection, user_id: str, chat_id: UUID, model: str, limit: int
) -> list[PendingTurn]:
    _turn_count(db, user_id, chat_id)
    rows = db.execute(
        "SELECT t.seq, t.text FROM turns AS t WHERE t.chat_id = ? AND NOT EXISTS"
        " (SELECT 1 FROM turn_vectors AS v WHERE v.turn_id = t.id AND v.model = ?) ORDER BY t.seq LIMIT ?",
        (str(chat_id), model, limit),
    )
    return [PendingTurn(chat_id, seq, text) for seq, text in rows]


def insert_turn_vectors(db: sqlite3.Connection, user_id: str, vectors: Sequence[TurnVector]) -> None:
    """Inside the caller's write transaction."""
    for chat_id in dict.fromkeys(v.chat_id for v in vectors):
        _turn_count(db, user_id, chat_id)
    for v in vectors:
        row = db.execute("SELECT id FROM turns WHERE chat_id = ? AND seq = ?", (str(v.chat_id), v.index)).fetchone()
        if row is None:
            raise InvalidTurn(f"chat {v.chat_id} has no turn at position {v.index}")
        # REPLACE gives the row a new rowid, so a reader holding vectors in memory sees it as new.
        db.execute(
            "INSERT OR REPLACE INTO turn_vectors (turn_id, model, user_id, chat_id, seq, text, embedding)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                row[0],
                v.embedded.model,
                user_id,
                str(v.chat_id),
                v.index,
                v.embedded.text,
                encode_vector(v.embedded.vector),
            ),
        )


def recall_candidates(
    db: sqlite3.Connection, user_id: str, index: TurnVectorIndex, query: RecallQuery
) -> list[TurnCandidate]:
    chats = _chats_in(db, user_id, query.project_id)
    hidden = _hidden_from(db, user_id, query.hidden)
    similarities = index.similarities(query.model, query.vector, chats=chats, hidden=hidden)
    lexical = {
        key: score
        for key, score in _lexical(db, user_id, query.text, query.project_id).items()
        if not _is_hidden(key, hidden)
    }
    taken = set(similarities.best(query.limit))
    taken |= set(sorted(lexical, key=lambda key: (-lexical[key], key))[: query.limit])
    reported: set[TurnKey] = set()
    for chat_id, seq in taken:
        for near in range(max(seq - query.context, 0), seq + query.context + 1):
            key = (chat_id, near)
            if not _is_hidden(key, hidden):
                reported.add(key)
    exact = similarities.exact(db, query.vector, reported)
    candidates = []
    chat_uuids: dict[str, UUID] = {}
    for key in sorted(reported):
        similarity, words = exact.get(key, similarities.get(key)), lexical.get(key, 0.0)
        if similarity is not None or words > 0:  # a position with neither may be past the chat's end
            chat = chat_uuids.get(key[0]) or chat_uuids.setdefault(key[0], UUID(key[0]))
            candidates.append(TurnCandidate(chat, key[1], similarity, words))
    return candidates


def excerpts(
    db: sqlite3.Connection, user_id: str, spans: Sequence[TurnSpan], hidden: HiddenTurns | None
) -> list[ChatExcerpt]:
    found = []
    for span in spans:
        row = db.execute(
            "SELECT title, turn_count FROM chats WHERE id = ? AND user_id = ?", (str(span.chat_id), user_id)
        ).fetchone()
        if row is None:
            continue
        title, count = row
        last = min(span.last, count - 1)
        if hidden is not None and hidden.chat_id == span.chat_id:
            last = min(last, count - max(hidden.count, 0) - 1)
        first = max(span.first, 0)
        if first > last:
            continue
        bodies = db.execute(
            "SELECT body FROM turns WHERE chat_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
            (str(span.chat_id), first, last),
        )
        turns = tuple(Turn.from_json(json.loads(body)) for (body,) in bodies)
        found.append(ChatExcerpt(span.chat_id, title, first, turns))
    return found


def _turn_count(db: sqlite3.Connection, user_id: str, chat_id: UUID) -> int:
    row = db.execute("SELECT turn_count FROM chats WHERE id = ? AND user_id = ?", (str(chat_id), user_id)).fetchone()
    if row is None:
        raise ChatNotFound(chat_id)
    return int(row[0])


def _chats_in(db: sqlite3.Connection, user_id: str, project_id: FolderFilter) -> list[str] | None:
    """The chats a folder filter allows; None when it allows every chat of the user."""
    if project_id is None:
        return None
    if project_id is NO_FOLDER:
        rows = db.execute("SELECT id FROM chats WHERE user_id = ? AND project_id IS NULL", (user_id,))
    else:
        folders.require_folder(db, user_id, project_id)
        rows = db.execute("SELECT id FROM chats WHERE user_id = ? AND project_id = ?", (user_id, project_id))
    return [chat_id for (chat_id,) in rows]


def _hidden_from(db: sqlite3.Connection, user_id: str, hidden: HiddenTurns | None) -> tuple[str, int] | None:
    """(chat id, first hidden position), or None when nothing is hidden (or the chat is not the user's)."""
    if hidden is None or hidden.count <= 0:
        return None
    row = db.execute(
        "SELECT turn_count FROM chats WHERE id = ? AND user_id = ?", (str(hidden.chat_id), user_id)
    ).fetchone()
    return None if row is None else (str(hidden.chat_id), int(row[0]) - hidden.count)


def _is_hidden(key: TurnKey, hidden: tuple[str, int] | None) -> bool:
    return hidden is not None and key[0] == hidden[0] and key[1] >= hidden[1]


def _lexical(db: sqlite3.Connection, user_id: str, text: str, project_id: FolderFilter) -> dict[TurnKey, float]:
    """BM25 relevance of each of the user's turns that holds a query term."""
    expression = telling_match(db, "turns_fts", query_terms(text), RECALL_TERMS)
    if expression is None:
        return {}
    sql = (
        "SELECT t.chat_id, t.seq, -m.rank FROM (SELECT rowid, rank FROM turns_fts WHERE turns_fts MATCH ?) AS m"
        " JOIN turns AS t ON t.id = m.rowid JOIN chats AS c ON c.id = t.chat_id WHERE c.user_id = ?"
    )
    params: list[object] = [expression, user_id]
    if project_id is NO_FOLDER:
        sql += " AND c.project_id IS NULL"
    elif project_id is not None:
        sql += " AND c.project_id = ?"
        params.append(project_id)
    return {(chat_id, seq): float(score) for chat_id, seq, score in db.execute(sql, params)}
