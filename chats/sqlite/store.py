"""`SqliteChatStore`: the embedded default store, a SQLite file in the user's data folder.

The store is its concerns (`chats.store.ChatStore`), each a class of queries over the same `ChatTables`:
the chats (`chats.sqlite.database`), and here the folders, the recall vectors and the working memory.
Every query runs on one dedicated thread that owns the connection (`chats.sqlite.worker.on_thread`):
sqlite3 work never blocks the event loop, and this process has exactly one writer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from chats.models import Folder, folder_name
from chats.sqlite import folders, recall, working_memory
from chats.sqlite.connection import write_transaction
from chats.sqlite.database import ChatTables, SqliteChats
from chats.sqlite.worker import on_thread
from chats.store import (
    ChatExcerpt,
    HiddenTurns,
    PendingTurn,
    RecallQuery,
    TurnCandidate,
    TurnSpan,
    TurnVector,
    WorkingMemoryRecord,
)


class SqliteFolders(ChatTables):
    """`chats.store.Folders` on SQLite."""

    @on_thread
    def create_folder(self, name: str, folder_id: str | None = None) -> Folder:
        name = folder_name(name)
        with write_transaction(self._db) as db:
            folder_id = folders.insert_folder(db, self._user_id, name, self._now(), folder_id)
            return folders.select_folder(db, self._user_id, folder_id)

    @on_thread
    def list_folders(self) -> list[Folder]:
        return folders.select_folders(self._db, self._user_id)

    @on_thread
    def rename_folder(self, folder_id: str, name: str) -> Folder:
        name = folder_name(name)
        with write_transaction(self._db) as db:
            folders.update_folder_name(db, self._user_id, folder_id, name)
            return folders.select_folder(db, self._user_id, folder_id)

    @on_thread
    def delete_folder(self, folder_id: str) -> None:
        with write_transaction(self._db) as db:
            folders.delete_folder(db, self._user_id, folder_id)


class SqliteRecallVectors(ChatTables):
    """`chats.store.RecallVectors` on SQLite (the queries are `chats.sqlite.recall`'s)."""

    @on_thread
    def chats_without_turn_vectors(self, model: str) -> list[UUID]:
        return recall.chats_without_turn_vectors(self._db, self._user_id, model)

    @on_thread
    def turns_without_vectors(self, chat_id: UUID, model: str, *, limit: int = 32) -> list[PendingTurn]:
        return recall.turns_without_vectors(self._db, self._user_id, chat_id, model, limit)

    @on_thread
    def set_turn_vectors(self, vectors: Sequence[TurnVector]) -> None:
        with write_transaction(self._db) as db:
            recall.insert_turn_vectors(db, self._user_id, vectors)
        self._turn_vectors.wrote()

    @on_thread
    def recall_candidates(self, query: RecallQuery) -> list[TurnCandidate]:
        return recall.recall_candidates(self._db, self._user_id, self._turn_vectors, query)

    @on_thread
    def excerpts(self, spans: Sequence[TurnSpan], *, hidden: HiddenTurns | None = None) -> list[ChatExcerpt]:
        return recall.excerpts(self._db, self._user_id, spans, hidden)


class SqliteWorkingMemories(ChatTables):
    """`chats.store.WorkingMemories` on SQLite."""

    @on_thread
    def get_working_memory(self, chat_id: UUID) -> WorkingMemoryRecord:
        return working_memory.select_working_memory(self._db, self._user_id, chat_id)

    @on_thread
    def put_working_memory(self, chat_id: UUID, data: Mapping[str, Any], *, expected_version: int) -> int:
        with write_transaction(self._db) as db:
            return working_memory.write_working_memory(
                db, self._user_id, chat_id, data, expected_version=expected_version, now=self._now()
            )


class SqliteChatStore(SqliteChats, SqliteFolders, SqliteRecallVectors, SqliteWorkingMemories):
    """Open it with `open` (`chats.sqlite.worker.ThreadedStore.open`)."""

    what = "chat"
