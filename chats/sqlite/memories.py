"""`SqliteMemoryStore`: long-term memories in the chat database file, on a connection of their own.

Like `SqliteChatStore`, every query runs on one dedicated thread that owns the connection
(`chats.sqlite.worker.on_thread`: sqlite3 work never blocks the event loop), and sqlite3 errors surface
as `StoreUnavailable`. Search keeps a `MemoryIndex` per embedding model in memory and rebuilds it when
the user's change counter (`memory_changes`, kept by triggers) moves.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

import numpy as np

from chats.errors import InvalidMemory, MemoryNotFound
from chats.memory.index import IndexRow, MemoryIndex
from chats.memory.models import PERSONAL_CATEGORIES, Category, Memory, MemoryHit, Preload, category_of
from chats.memory.preload import DEFAULT_MAX_TOKENS, build_preload
from chats.memory.ranking import Floats, Ranking, date_window, diversify, fuse, memory_terms, relevant, top
from chats.memory.store import FIRST_PAGE, SEARCH_LIMIT_MAX, MemoryChanges, MemoryListing, MemoryQuery, NewMemory
from chats.models import NO_FOLDER, EmbeddedText, FolderFilter, Vector
from chats.sqlite.connection import write_transaction
from chats.sqlite.fts import SEARCH_ROWS, SEARCH_TERMS, telling_match
from chats.sqlite.vectors import DerivedCache, decode_vector, encode_vector
from chats.sqlite.worker import ConnectionWorker, ThreadedStore, on_thread

_COLUMNS = (
    "seq, id, user_id, project_id, content, title, category, tags, importance, embedding, embedding_model,"
    " source_chat_id, created_at, updated_at, superseded_by"
)
_QUALIFIED_COLUMNS = ", ".join(f"m.{column.strip()}" for column in _COLUMNS.split(","))
_PERSONAL = "(" + ", ".join(f"'{c}'" for c in sorted(PERSONAL_CATEGORIES)) + ")"


class SqliteMemoryStore(ThreadedStore):
    """The embedded default memory store: its own connection to the chat database file."""

    what = "memory"

    def __init__(
        self,
        worker: ConnectionWorker,
        user_id: str,
        clock: Callable[[], datetime],
        *,
        ranking: Ranking = Ranking(),  # noqa: B008 - frozen, so one shared default is safe
    ) -> None:
        """Open it with `open` (`chats.sqlite.worker.ThreadedStore.open`); `ranking` weighs search."""
        super().__init__(worker, user_id, clock)
        self._ranking = ranking
        self._indexes = DerivedCache(self._change_counter, self._load_index)

    def _change_counter(self) -> object:
        row = self._db.execute("SELECT version FROM memory_changes WHERE user_id = ?", (self._user_id,)).fetchone()
        return 0 if row is None else row[0]

    @on_thread
    def add(self, memory: NewMemory) -> Memory:
        memory = memory.checked()
        kept_id = str(memory.memory_id or uuid.uuid4())
        now = self._now()
        with write_transaction(self._db) as db:
            db.execute(
                f"INSERT INTO memories ({_COLUMNS}) VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
                (
                    kept_id,
                    self._user_id,
                    memory.project_id,
                    memory.content.text,
                    memory.title,
                    memory.category,
                    json.dumps(memory.tags),
                    memory.importance,
                    encode_vector(memory.content.vector),
                    memory.content.model,
                    None if memory.source_chat_id is None else str(memory.source_chat_id),
                    now,
                    now,
                ),
            )
            db.execute(
                "UPDATE memories SET superseded_by = ? WHERE user_id = ? AND id IN (SELECT value FROM json_each(?))"
                " AND id != ? AND superseded_by IS NULL",
                (kept_id, self._user_id, json.dumps([str(i) for i in memory.supersedes]), kept_id),
            )
        return self._get(UUID(kept_id))

    @on_thread
    def get(self, memory_id: UUID, *, scope: FolderFilter = None) -> Memory:
        return self._get(memory_id, scope)

    def _get(self, memory_id: UUID, scope: FolderFilter = None) -> Memory:
        scope_sql, scope_params = _scope_sql(scope)
        row = self._db.execute(
            f"SELECT {_COLUMNS} FROM memories WHERE id = ? AND user_id = ?{scope_sql}",
            (str(memory_id), self._user_id, *scope_params),
        ).fetchone()
        if row is None:
            raise MemoryNotFound(memory_id)
        return _memory(row)

    @on_thread
    def update(self, memory_id: UUID, changes: MemoryChanges, *, scope: FolderFilter = None) -> Memory:
        changes = changes.checked()
        columns: dict[str, object] = {}
        if changes.content is not None:
            columns |= {"content": changes.content.text, "embedding": encode_vector(changes.content.vector)}
            columns["embedding_model"] = changes.content.model
        if changes.category is not None:
            columns["category"] = changes.category
        if changes.importance is not None:
            columns["importance"] = changes.importance
        if changes.sets_title:
            columns["title"] = changes.title
        if changes.tags is not None:
            columns["tags"] = json.dumps(changes.tags)
        columns["updated_at"] = self._now()
        with write_transaction(self._db) as db:
            self._get(memory_id, scope)  # raises MemoryNotFound, before anything changes
            # Column names come from the fixed keys above, never from input.
            assignments = ", ".join(f"{column} = ?" for column in columns)
            db.execute(
                f"UPDATE memories SET {assignments} WHERE id = ? AND user_id = ?",
                (*columns.values(), str(memory_id), self._user_id),
            )
        return self._get(memory_id)

    @on_thread
    def delete(self, memory_id: UUID, *, scope: FolderFilter = None) -> int:
        with write_transaction(self._db) as db:
            self._get(memory_id, scope)
            chain = [
                memory_id
                for (memory_id,) in db.execute(
                    "WITH RECURSIVE chain (id) AS (SELECT ? UNION SELECT m.id FROM memories AS m JOIN chain"
                    " ON m.superseded_by = chain.id WHERE m.user_id = ?) SELECT id FROM chain",
                    (str(memory_id), self._user_id),
                )
            ]
            db.execute(
                "DELETE FROM memories WHERE user_id = ? AND id IN (SELECT value FROM json_each(?))",
                (self._user_id, json.dumps(chain)),
            )
            return len(chain)

    @on_thread
    def list_memories(self, listing: MemoryListing = FIRST_PAGE) -> list[Memory]:
        sql, params = self._filtered(listing.category, listing.scope, listing.include_superseded)
        rows = self._db.execute(
            f"SELECT {_COLUMNS} FROM memories WHERE {sql} ORDER BY created_at DESC, seq DESC LIMIT ? OFFSET ?",
            (*params, listing.limit, listing.offset),
        )
        return [_memory(row) for row in rows]

    @on_thread
    def count(self, *, include_superseded: bool = False) -> int:
        sql, params = self._filtered(None, None, include_superseded)
        return int(self._db.execute(f"SELECT count(*) FROM memories WHERE {sql}", params).fetchone()[0])

    def _filtered(
        self, category: Category | None, scope: FolderFilter, include_superseded: bool
    ) -> tuple[str, list[object]]:
        sql, params = "user_id = ?", [self._user_id]
        if not include_superseded:
            sql += " AND superseded_by IS NULL"
        if category is not None:
            sql += " AND category = ?"
            params.append(category_of(category))
        scope_sql, scope_params = _scope_sql(scope)
        return sql + scope_sql, params + scope_params

    @on_thread
    def search(self, query: MemoryQuery) -> list[MemoryHit]:
        if not 1 <= query.limit <= SEARCH_LIMIT_MAX:
            raise InvalidMemory(f"limit must be between 1 and {SEARCH_LIMIT_MAX}, not {query.limit}")
        index = self._indexes.get(query.model)
        similarity = index.similarities(query.vector)
        if not similarity.size:
            return []
        lexical = np.zeros(len(index), dtype=np.float32)
        for seq, score in self._lexical(query.text):
            position = index.position.get(seq)
            if position is not None:
                lexical[position] = score
        mask = index.mask(query.scope, query.category, query.tags)
        ranking = query.ranking(self._ranking)
        worth = relevant(similarity, lexical, ranking)
        rows = np.flatnonzero(worth if mask is None else worth & mask)
        scores = fuse(
            similarity[rows],
            lexical=lexical[rows],
            chat=index.chat[rows],
            created=index.created[rows],
            window=date_window(query.text),
            ranking=ranking,
        )
        best = top(scores, max(ranking.pool, query.limit))
        candidates, candidate_scores = rows[best], scores[best]
        picked = candidates[diversify(candidate_scores, index.vectors[candidates], query.limit, ranking.diversity)]
        fused = dict(zip(candidates.tolist(), candidate_scores.tolist(), strict=True))
        return self._hits(index, [int(p) for p in picked], [fused[int(p)] for p in picked], similarity)

    @on_thread
    def find_similar(
        self, vector: Vector, model: str, *, scope: FolderFilter, limit: int = 10, min_similarity: float = 0.0
    ) -> list[MemoryHit]:
        index = self._indexes.get(model)
        similarity = index.similarities(vector)
        if not similarity.size:
            return []
        mask = index.mask(scope)
        rows = np.flatnonzero(mask) if mask is not None else np.arange(len(index))
        chosen = [int(rows[i]) for i in top(similarity[rows], limit)]
        chosen = [p for p in chosen if similarity[p] >= min_similarity]
        return self._hits(index, chosen, [float(similarity[p]) for p in chosen], similarity)

    def _hits(
        self, index: MemoryIndex, positions: list[int], scores: list[float], similarity: Floats
    ) -> list[MemoryHit]:
        keys = [int(index.keys[p]) for p in positions]
        rows = self._db.execute(
            # CROSS JOIN keeps json_each outside: one primary-key lookup per hit, not a scan of the user's rows.
            f"SELECT {_QUALIFIED_COLUMNS} FROM json_each(?) AS j CROSS JOIN memories AS m ON m.seq = j.value"
            " WHERE m.user_id = ?",
            (json.dumps(keys), self._user_id),
        )
        by_key = {row[0]: _memory(row) for row in rows}
        return [
            MemoryHit(by_key[key], score, float(similarity[p]))
            for key, score, p in zip(keys, scores, positions, strict=True)
            if key in by_key
        ]

    def _load_index(self, model: str) -> MemoryIndex:
        rows = self._db.execute(
            "SELECT seq, category, project_id, source_chat_id, created_at, tags, embedding FROM memories"
            " WHERE user_id = ? AND embedding_model = ? AND superseded_by IS NULL ORDER BY seq",
            (self._user_id, model),
        )
        return MemoryIndex(
            [
                IndexRow(
                    key=seq,
                    category=category,
                    project_id=project_id,
                    source_chat_id=chat_id,
                    created=datetime.fromisoformat(created_at).timestamp(),
                    tags=json.loads(tags),
                    vector=decode_vector(blob),
                )
                for seq, category, project_id, chat_id, created_at, tags, blob in rows
            ]
        )

    def _lexical(self, text: str) -> list[tuple[int, float]]:
        terms = telling_match(self._db, "memories_fts", memory_terms(text), SEARCH_TERMS)
        if terms is None:
            return []
        rows = self._db.execute(
            "SELECT memories.seq, -memories_fts.rank FROM memories_fts JOIN memories"
            " ON memories.seq = memories_fts.rowid WHERE memories_fts MATCH ? AND memories.user_id = ?"
            " AND memories.superseded_by IS NULL ORDER BY memories_fts.rank LIMIT ?",
            (terms, self._user_id, SEARCH_ROWS),
        )
        return [(int(seq), float(score)) for seq, score in rows]

    @on_thread
    def preload(self, max_tokens: int = DEFAULT_MAX_TOKENS) -> Preload:
        rows = self._db.execute(
            f"SELECT {_COLUMNS} FROM memories WHERE user_id = ? AND superseded_by IS NULL"
            f" AND category IN {_PERSONAL} ORDER BY importance DESC, created_at, seq",
            (self._user_id,),
        )
        return build_preload([_memory(row) for row in rows], max_tokens)

    @on_thread
    def export(self) -> list[Memory]:
        return self._export()

    def _export(self) -> list[Memory]:
        rows = self._db.execute(
            f"SELECT {_COLUMNS} FROM memories WHERE user_id = ? ORDER BY created_at, seq", (self._user_id,)
        )
        return [_memory(row) for row in rows]

    @on_thread
    def embedded_texts(self) -> list[tuple[UUID, EmbeddedText]]:
        return [(memory.id, memory.embedding) for memory in self._export()]

    @on_thread
    def set_embedding(self, memory_id: UUID, value: EmbeddedText) -> None:
        with write_transaction(self._db) as db:
            memory = self._get(memory_id)
            if value.text != memory.content:
                raise InvalidMemory("an embedding's text must be the memory's content")
            db.execute(
                "UPDATE memories SET embedding = ?, embedding_model = ? WHERE id = ? AND user_id = ?",
                (encode_vector(value.vector), value.model, str(memory_id), self._user_id),
            )


def _scope_sql(scope: FolderFilter) -> tuple[str, list[object]]:
    """The SQL of `chats.memory.models.visible_in`."""
    if scope is None:
        return "", []
    if scope is NO_FOLDER:
        return f" AND (category IN {_PERSONAL} OR project_id IS NULL)", []
    return f" AND (category IN {_PERSONAL} OR project_id = ?)", [scope]


def _memory(row: Sequence[Any]) -> Memory:
    (_, memory_id, user_id, project_id, content, title, category, tags, importance, blob, model, chat_id, created,
     updated, superseded_by) = row  # fmt: skip
    return Memory(
        id=UUID(memory_id),
        user_id=user_id,
        content=content,
        title=title,
        category=category,
        tags=tuple(json.loads(tags)),
        importance=importance,
        project_id=project_id,
        embedding=EmbeddedText(text=content, vector=decode_vector(blob), model=model),
        source_chat_id=None if chat_id is None else UUID(chat_id),
        created_at=datetime.fromisoformat(created),
        updated_at=datetime.fromisoformat(updated),
        superseded_by=None if superseded_by is None else UUID(superseded_by),
    )
