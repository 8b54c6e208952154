"""The SQLite chat store's chats concern (`chats.store.Chats`), and `ChatTables`, what every concern of
the store stands on: the connection's thread and the vector caches."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Unpack
from uuid import UUID

from chats.errors import ChatNotFound, VersionConflict
from chats.models import (
    NO_FOLDER,
    AssistantContext,
    Chat,
    ChatInfo,
    EmbeddedText,
    FolderFilter,
    Turn,
    turns_from_json,
    turns_to_json,
)
from chats.sqlite import folders
from chats.sqlite.chat_lexical import NO_MATCH, chat_relevance
from chats.sqlite.connection import write_transaction
from chats.sqlite.recall import TurnVectorIndex
from chats.sqlite.turn_rows import history_json, insert_turns, storable_turns, turn_bodies, unseen
from chats.sqlite.vectors import VectorCache, decode_vector, encode_vector
from chats.sqlite.worker import ConnectionWorker, ThreadedStore, on_thread
from chats.storable_text import storable_text
from chats.store import AppendResult, EmbeddingKind, HistorySwap, NewChat, SearchCandidate, SearchQuery

_CHAT_COLUMNS = (
    "id, user_id, project_id, title, assistant_history, summary_text, summary_embedding, summary_model,"
    " last_activity_at, created_at, version"
)


class ChatTables(ThreadedStore):
    """The chat database of one user, with the vector caches every concern keeps up to date."""

    def __init__(self, worker: ConnectionWorker, user_id: str, clock: Callable[[], datetime]) -> None:
        super().__init__(worker, user_id, clock)
        self._vectors = VectorCache(self._db, user_id)
        """The chats' summary and topic vectors: chat search."""
        self._turn_vectors = TurnVectorIndex(self._db, user_id)
        """The turns' vectors: recall."""

    def _version(self, chat_id: UUID) -> int:
        row = self._db.execute(
            "SELECT version FROM chats WHERE id = ? AND user_id = ?", (str(chat_id), self._user_id)
        ).fetchone()
        if row is None:
            raise ChatNotFound(chat_id)
        return int(row[0])


class SqliteChats(ChatTables):
    """`chats.store.Chats` on SQLite."""

    @on_thread
    def create(self, **chat: Unpack[NewChat]) -> Chat:
        chat_id = chat.get("chat_id") or uuid.uuid4()
        title, project_id = chat.get("title"), chat.get("project_id")
        title = None if title is None else storable_text(title)
        turns = storable_turns(chat_id, chat.get("turns", ()))
        bodies = turn_bodies(turns)
        now = self._now()
        with write_transaction(self._db) as db:
            if project_id is not None:
                folders.require_folder(db, self._user_id, project_id)
            db.execute(
                "INSERT INTO chats (id, user_id, project_id, title, title_by_user, assistant_history,"
                " turn_count, last_activity_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    str(chat_id),
                    self._user_id,
                    project_id,
                    title,
                    int(title is not None),
                    history_json(bodies),
                    len(turns),
                    now,
                    now,
                ),
            )
            insert_turns(db, chat_id, 0, turns, bodies)
        # What was just written, without reading it back: an imported chat of 100,000 turns would be
        # parsed twice more.
        moment = datetime.fromisoformat(now)
        return Chat(chat_id, self._user_id, project_id, title, turns, turns, None, moment, moment, 1)

    @on_thread
    def get(self, chat_id: UUID) -> Chat:
        row = self._db.execute(
            f"SELECT {_CHAT_COLUMNS} FROM chats WHERE id = ? AND user_id = ?", (str(chat_id), self._user_id)
        ).fetchone()
        if row is None:
            raise ChatNotFound(chat_id)
        full = tuple(
            Turn.from_json(json.loads(body))
            for (body,) in self._db.execute("SELECT body FROM turns WHERE chat_id = ? ORDER BY seq", (row[0],))
        )
        return Chat(
            id=UUID(row[0]),
            user_id=row[1],
            project_id=row[2],
            title=row[3],
            full_history=full,
            assistant_history=turns_from_json(json.loads(row[4])),
            summary=_embedded(row[5], row[6], row[7]),
            last_activity_at=datetime.fromisoformat(row[8]),
            created_at=datetime.fromisoformat(row[9]),
            version=row[10],
        )

    @on_thread
    def load_assistant_context(self, chat_id: UUID) -> AssistantContext:
        row = self._db.execute(
            "SELECT title, assistant_history, summary_text, summary_embedding, summary_model,"
            " topic_text, topic_embedding, topic_model, version, project_id, memory_enabled"
            " FROM chats WHERE id = ? AND user_id = ?",
            (str(chat_id), self._user_id),
        ).fetchone()
        if row is None:
            raise ChatNotFound(chat_id)
        return AssistantContext(
            chat_id=chat_id,
            title=row[0],
            project_id=row[9],
            memory_enabled=bool(row[10]),
            assistant_history=turns_from_json(json.loads(row[1])),
            summary=_embedded(row[2], row[3], row[4]),
            topic=_embedded(row[5], row[6], row[7]),
            version=row[8],
        )

    @on_thread
    def list_chats(self, *, limit: int = 50, offset: int = 0, project_id: FolderFilter = None) -> list[ChatInfo]:
        sql = (
            "SELECT id, title, project_id, summary_text, turn_count, last_activity_at, created_at"
            " FROM chats WHERE user_id = ?"
        )
        params: list[object] = [self._user_id]
        if project_id is NO_FOLDER:
            sql += " AND project_id IS NULL"
        elif project_id is not None:
            folders.require_folder(self._db, self._user_id, project_id)
            sql += " AND project_id = ?"
            params.append(project_id)
        sql += " ORDER BY last_activity_at DESC, id LIMIT ? OFFSET ?"
        params += [limit, offset]
        return [
            ChatInfo(
                id=UUID(row[0]),
                title=row[1],
                project_id=row[2],
                summary_text=row[3],
                turn_count=row[4],
                last_activity_at=datetime.fromisoformat(row[5]),
                created_at=datetime.fromisoformat(row[6]),
            )
            for row in self._db.execute(sql, params)
        ]

    @on_thread
    def count(self) -> int:
        row = self._db.execute("SELECT count(*) FROM chats WHERE user_id = ?", (self._user_id,)).fetchone()
        return int(row[0])

    @on_thread
    def append(self, chat_id: UUID, turns: Sequence[Turn]) -> AppendResult:
        with write_transaction(self._db) as db:
            row = db.execute(
                "SELECT assistant_history, turn_count, version FROM chats WHERE id = ? AND user_id = ?",
                (str(chat_id), self._user_id),
            ).fetchone()
            if row is None:
                raise ChatNotFound(chat_id)
            history, count, version = json.loads(row[0]), row[1], row[2]
            new = unseen(db, chat_id, storable_turns(chat_id, turns))
            if new:
                insert_turns(db, chat_id, count, new, turn_bodies(new))
                history += turns_to_json(new)
                count += len(new)
                version += 1
                db.execute(
                    "UPDATE chats SET assistant_history = ?, turn_count = ?, last_activity_at = ?, version = ?"
                    " WHERE id = ?",
                    (json.dumps(history), count, self._now(), version, str(chat_id)),
                )
        return AppendResult(version=version, assistant_turns=len(history), full_turns=count, appended=len(new))

    @on_thread
    def replace_assistant_history(self, chat_id: UUID, **swap: Unpack[HistorySwap]) -> int:
        expected_version, summary = swap["expected_version"], swap["summary"]
        with write_transaction(self._db) as db:
            sql = "UPDATE chats SET assistant_history = ?, version = version + 1"
            params: list[object] = [json.dumps(turns_to_json(swap["assistant_history"]))]
            if summary is not None:
                sql += ", summary_text = ?, summary_embedding = ?, summary_model = ?"
                params += [summary.text, encode_vector(summary.vector), summary.model]
            sql += " WHERE id = ? AND user_id = ? AND version = ?"
            params += [str(chat_id), self._user_id, expected_version]
            if db.execute(sql, params).rowcount == 0:
                raise VersionConflict(chat_id, expected_version, self._version(chat_id))
        if summary is not None:
            self._vectors.invalidate()
        return expected_version + 1

    @on_thread
    def set_embedding(self, chat_id: UUID, kind: EmbeddingKind, value: EmbeddedText) -> None:
        # Column names come from the closed set of kinds, never from input.
        column = {"summary": "summary", "topic": "topic"}[kind]
        with write_transaction(self._db) as db:
            updated = db.execute(
                f"UPDATE chats SET {column}_text = ?, {column}_embedding = ?, {column}_model = ?"
                " WHERE id = ? AND user_id = ?",
                (value.text, encode_vector(value.vector), value.model, str(chat_id), self._user_id),
            )
            if updated.rowcount == 0:
                raise ChatNotFound(chat_id)
        self._vectors.invalidate()

    @on_thread
    def rename(self, chat_id: UUID, title: str, *, automatic: bool = False) -> bool:
        title = storable_text(title)
        sql = "UPDATE chats SET title = ?, title_by_user = ? WHERE id = ? AND user_id = ?"
        with write_transaction(self._db) as db:
            # A title the user chose is never replaced by a generated one.
            if automatic:
                sql += " AND title_by_user = 0"
            updated = db.execute(sql, (title, int(not automatic), str(chat_id), self._user_id)).rowcount
            if updated == 0:
                self._version(chat_id)  # raises ChatNotFound when the chat is missing
        return updated > 0

    @on_thread
    def move(self, chat_id: UUID, project_id: str | None) -> None:
        with write_transaction(self._db) as db:
            updated = db.execute(
                "UPDATE chats SET project_id = ? WHERE id = ? AND user_id = ?",
                (project_id, str(chat_id), self._user_id),
            )
            if updated.rowcount == 0:
                raise ChatNotFound(chat_id)
            if project_id is not None:
                folders.require_folder(db, self._user_id, project_id)  # raising rolls the move back

    @on_thread
    def set_memory_enabled(self, chat_id: UUID, enabled: bool) -> None:
        with write_transaction(self._db) as db:
            updated = db.execute(
                "UPDATE chats SET memory_enabled = ? WHERE id = ? AND user_id = ?",
                (int(enabled), str(chat_id), self._user_id),
            )
            if updated.rowcount == 0:
                raise ChatNotFound(chat_id)

    @on_thread
    def delete(self, chat_id: UUID) -> None:
        with write_transaction(self._db) as db:
            deleted = db.execute("DELETE FROM chats WHERE id = ? AND user_id = ?", (str(chat_id), self._user_id))
            if deleted.rowcount == 0:
                raise ChatNotFound(chat_id)
        self._vectors.invalidate()
        self._turn_vectors.forget_chat(chat_id)

    @on_thread
    def search(self, query: SearchQuery) -> list[SearchCandidate]:
        similarities = self._vectors.similarities(query.model, query.vector)
        lexical = chat_relevance(self._db, self._user_id, query.text)
        best_lexical = sorted(lexical, key=lambda chat_id: lexical[chat_id].relevance, reverse=True)[: query.limit]
        chosen = set(similarities.best(query.limit)) | set(best_lexical)
        if not chosen:
            return []
        # CROSS JOIN keeps json_each on the outside: one primary-key lookup per candidate.
        rows = self._db.execute(
            "SELECT c.id, c.title, c.last_activity_at, c.summary_text FROM json_each(?) AS j CROSS JOIN chats AS c"
            " ON c.id = j.value WHERE c.user_id = ?",
            (json.dumps(sorted(chosen)), self._user_id),
        )
        return [
            SearchCandidate(
                chat_id=UUID(chat_id),
                title=title,
                similarity=similarities.get(chat_id),
                lexical=lexical.get(chat_id, NO_MATCH).relevance,
                words_held=lexical.get(chat_id, NO_MATCH).held,
                last_activity_at=datetime.fromisoformat(last_activity),
                summary=summary,
            )
            for chat_id, title, last_activity, summary in rows
        ]

    @on_thread
    def embedded_texts(self) -> list[tuple[UUID, EmbeddingKind, EmbeddedText]]:
        found: list[tuple[UUID, EmbeddingKind, EmbeddedText]] = []
        rows = self._db.execute(
            "SELECT id, summary_text, summary_embedding, summary_model, topic_text, topic_embedding, topic_model"
            " FROM chats WHERE user_id = ?",
            (self._user_id,),
        )
        for chat_id, *columns in rows:
            summary, topic = _embedded(*columns[:3]), _embedded(*columns[3:])
            if summary is not None:
                found.append((UUID(chat_id), "summary", summary))
            if topic is not None:
                found.append((UUID(chat_id), "topic", topic))
        return found


def _embedded(text: str | None, blob: bytes | None, model: str | None) -> EmbeddedText | None:
    if text is None or blob is None or model is None:
        return None
    return EmbeddedText(text=text, vector=decode_vector(blob), model=model)
