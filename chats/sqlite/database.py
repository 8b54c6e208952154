"""The SQLite chat store's queries. Synchronous: `SqliteChatStore` runs every call on one thread."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from chats.errors import ChatNotFound, VersionConflict
from chats.models import (
    NO_FOLDER,
    AssistantContext,
    Chat,
    ChatInfo,
    EmbeddedText,
    Folder,
    FolderFilter,
    Turn,
    folder_name,
    turns_from_json,
    turns_to_json,
)
from chats.sqlite import folders, recall, working_memory
from chats.sqlite.chat_lexical import chat_relevance
from chats.sqlite.connection import time_text, write_transaction
from chats.sqlite.turn_rows import history_json, insert_turns, storable_turns, turn_bodies, unseen
from chats.sqlite.vectors import VectorCache, decode_vector, encode_vector
from chats.storable_text import storable_text
from chats.store import (
    AppendResult,
    ChatExcerpt,
    EmbeddingKind,
    HiddenTurns,
    PendingTurn,
    RecallQuery,
    SearchCandidate,
    SearchQuery,
    TurnCandidate,
    TurnSpan,
    TurnVector,
    WorkingMemoryRecord,
)

_CHAT_COLUMNS = (
    "id, user_id, project_id, title, assistant_history, summary_text, summary_embedding, summary_model,"
    " last_activity_at, created_at, version"
)


class ChatDatabase:
    def __init__(self, connection: sqlite3.Connection, user_id: str, clock: Callable[[], datetime]) -> None:
        self._db = connection
        self._user_id = user_id
        self._clock = clock
        self._vectors = VectorCache(connection, user_id)
        self._turn_vectors = recall.TurnVectorIndex(connection, user_id)

    def _now(self) -> str:
        return time_text(self._clock())

    def create(
        self, title: str | None, turns: Sequence[Turn], project_id: str | None, chat_id: UUID | None = None
    ) -> Chat:
        chat_id = chat_id or uuid.uuid4()
        title = None if title is None else storable_text(title)
        turns = storable_turns(chat_id, turns)
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

    def list_chats(self, limit: int, offset: int, project_id: FolderFilter) -> list[ChatInfo]:
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

    def count(self) -> int:
        row = self._db.execute("SELECT count(*) FROM chats WHERE user_id = ?", (self._user_id,)).fetchone()
        return int(row[0])

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

    def replace_assistant_history(
        self, chat_id: UUID, expected_version: int, history: Sequence[Turn], summary: EmbeddedText | None
    ) -> int:
        with write_transaction(self._db) as db:
            sql = "UPDATE chats SET assistant_history = ?, version = version + 1"
            params: list[object] = [json.dumps(turns_to_json(history))]
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

    def rename(self, chat_id: UUID, title: str, automatic: bool) -> bool:
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

    def set_memory_enabled(self, chat_id: UUID, enabled: bool) -> None:
        with write_transaction(self._db) as db:
            updated = db.execute(
                "UPDATE chats SET memory_enabled = ? WHERE id = ? AND user_id = ?",
                (int(enabled), str(chat_id), self._user_id),
            )
            if updated.rowcount == 0:
                raise ChatNotFound(chat_id)

    def create_folder(self, name: str) -> Folder:
        name = folder_name(name)
        with write_transaction(self._db) as db:
            folder_id = folders.insert_folder(db, self._user_id, name, self._now())
            return folders.select_folder(db, self._user_id, folder_id)

    def list_folders(self) -> list[Folder]:
        return folders.select_folders(self._db, self._user_id)

    def rename_folder(self, folder_id: str, name: str) -> Folder:
        name = folder_name(name)
        with write_transaction(self._db) as db:
            folders.update_folder_name(db, self._user_id, folder_id, name)
            return folders.select_folder(db, self._user_id, folder_id)

    def delete_folder(self, folder_id: str) -> None:
        with write_transaction(self._db) as db:
            folders.delete_folder(db, self._user_id, folder_id)

    def delete(self, chat_id: UUID) -> None:
        with write_transaction(self._db) as db:
            deleted = db.execute("DELETE FROM chats WHERE id = ? AND user_id = ?", (str(chat_id), self._user_id))
            if deleted.rowcount == 0:
                raise ChatNotFound(chat_id)
        self._vectors.invalidate()
        self._turn_vectors.forget_chat(chat_id)

    def search(self, query: SearchQuery) -> list[SearchCandidate]:
        similarities = self._vectors.similarities(query.model, query.vector)
        lexical = chat_relevance(self._db, self._user_id, query.text)
        best_lexical = sorted(lexical, key=lexical.__getitem__, reverse=True)[: query.limit]
        chosen = set(similarities.best(query.limit)) | set(best_lexical)
        if not chosen:
            return []
        # CROSS JOIN keeps json_each on the outside: one primary-key lookup per candidate.
        rows = self._db.execute(
            "SELECT c.id, c.title, c.last_activity_at FROM json_each(?) AS j CROSS JOIN chats AS c"
            " ON c.id = j.value WHERE c.user_id = ?",
            (json.dumps(sorted(chosen)), self._user_id),
        )
        return [
            SearchCandidate(
                chat_id=UUID(chat_id),
                title=title,
                similarity=similarities.get(chat_id),
                lexical=lexical.get(chat_id, 0.0),
                last_activity_at=datetime.fromisoformat(last_activity),
            )
            for chat_id, title, last_activity in rows
        ]

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

    def chats_without_turn_vectors(self, model: str) -> list[UUID]:
        return recall.chats_without_turn_vectors(self._db, self._user_id, model)

    def turns_without_vectors(self, chat_id: UUID, model: str, limit: int) -> list[PendingTurn]:
        return recall.turns_without_vectors(self._db, self._user_id, chat_id, model, limit)

    def set_turn_vectors(self, vectors: Sequence[TurnVector]) -> None:
        with write_transaction(self._db) as db:
            recall.insert_turn_vectors(db, self._user_id, vectors)
        self._turn_vectors.wrote()

    def recall_candidates(self, query: RecallQuery) -> list[TurnCandidate]:
        return recall.recall_candidates(self._db, self._user_id, self._turn_vectors, query)

    def excerpts(self, spans: Sequence[TurnSpan], hidden: HiddenTurns | None) -> list[ChatExcerpt]:
        return recall.excerpts(self._db, self._user_id, spans, hidden)

    def get_working_memory(self, chat_id: UUID) -> WorkingMemoryRecord:
        return working_memory.select_working_memory(self._db, self._user_id, chat_id)

    def put_working_memory(self, chat_id: UUID, data: Mapping[str, Any], expected_version: int) -> int:
        with write_transaction(self._db) as db:
            return working_memory.write_working_memory(
                db, self._user_id, chat_id, data, expected_version=expected_version, now=self._now()
            )

    def _version(self, chat_id: UUID) -> int:
        row = self._db.execute(
            "SELECT version FROM chats WHERE id = ? AND user_id = ?", (str(chat_id), self._user_id)
        ).fetchone()
        if row is None:
            raise ChatNotFound(chat_id)
        return int(row[0])


def _embedded(text: str | None, blob: bytes | None, model: str | None) -> EmbeddedText | None:
    if text is None or blob is None or model is None:
        return None
    return EmbeddedText(text=text, vector=decode_vector(blob), model=model)
