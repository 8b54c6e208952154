"""`SqliteChatStore`: the embedded default store, a SQLite file in the user's data folder."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, TypeVar
from uuid import UUID

from chats.models import AssistantContext, Chat, ChatInfo, EmbeddedText, Folder, FolderFilter, Turn, utc_now
from chats.sqlite.connection import BUSY_TIMEOUT_MS
from chats.sqlite.database import ChatDatabase
from chats.sqlite.worker import ConnectionWorker
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

T = TypeVar("T")


class SqliteChatStore:
    """Every call runs on one dedicated thread that owns the connection: sqlite3 work never blocks the
    event loop, and this process has exactly one writer."""

    def __init__(self, database: ChatDatabase, worker: ConnectionWorker, user_id: str) -> None:
        self._database = database
        self._worker = worker
        self._user_id = user_id

    @classmethod
    async def open(
        cls,
        path: Path,
        user_id: str,
        *,
        clock: Callable[[], datetime] = utc_now,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    ) -> SqliteChatStore:
        """Open (creating and migrating) the store at `path`, bound to `user_id`. A writer waits up to
        `busy_timeout_ms` for another process's write before the store reports itself unavailable."""
        worker = await ConnectionWorker.open(path, busy_timeout_ms, what="chat")
        database = await worker.run(partial(ChatDatabase, worker.connection, user_id, clock))
        return cls(database, worker, user_id)

    @property
    def user_id(self) -> str:
        return self._user_id

    async def _run(self, call: Callable[[], T]) -> T:
        return await self._worker.run(call)

    async def create(
        self,
        *,
        title: str | None = None,
        turns: Sequence[Turn] = (),
        project_id: str | None = None,
        chat_id: UUID | None = None,
    ) -> Chat:
        return await self._run(partial(self._database.create, title, tuple(turns), project_id, chat_id))

    async def get(self, chat_id: UUID) -> Chat:
        return await self._run(partial(self._database.get, chat_id))

    async def load_assistant_context(self, chat_id: UUID) -> AssistantContext:
        return await self._run(partial(self._database.load_assistant_context, chat_id))

    async def list_chats(self, *, limit: int = 50, offset: int = 0, project_id: FolderFilter = None) -> list[ChatInfo]:
        return await self._run(partial(self._database.list_chats, limit, offset, project_id))

    async def count(self) -> int:
        return await self._run(self._database.count)

    async def append(self, chat_id: UUID, turns: Sequence[Turn]) -> AppendResult:
        return await self._run(partial(self._database.append, chat_id, tuple(turns)))

    async def replace_assistant_history(
        self,
        chat_id: UUID,
        *,
        expected_version: int,
        assistant_history: Sequence[Turn],
        summary: EmbeddedText | None,
    ) -> int:
        return await self._run(
            partial(
                self._database.replace_assistant_history,
                chat_id,
                expected_version,
                tuple(assistant_history),
                summary,
            )
        )

    async def set_embedding(self, chat_id: UUID, kind: EmbeddingKind, value: EmbeddedText) -> None:
        await self._run(partial(self._database.set_embedding, chat_id, kind, value))

    async def rename(self, chat_id: UUID, title: str, *, automatic: bool = False) -> bool:
        return await self._run(partial(self._database.rename, chat_id, title, automatic))

    async def move(self, chat_id: UUID, project_id: str | None) -> None:
        await self._run(partial(self._database.move, chat_id, project_id))

    async def set_memory_enabled(self, chat_id: UUID, enabled: bool) -> None:
        await self._run(partial(self._database.set_memory_enabled, chat_id, enabled))

    async def delete(self, chat_id: UUID) -> None:
        await self._run(partial(self._database.delete, chat_id))

    async def create_folder(self, name: str) -> Folder:
        return await self._run(partial(self._database.create_folder, name))

    async def list_folders(self) -> list[Folder]:
        return await self._run(self._database.list_folders)

    async def rename_folder(self, folder_id: str, name: str) -> Folder:
        return await self._run(partial(self._database.rename_folder, folder_id, name))

    async def delete_folder(self, folder_id: str) -> None:
        await self._run(partial(self._database.delete_folder, folder_id))

    async def search(self, query: SearchQuery) -> list[SearchCandidate]:
        return await self._run(partial(self._database.search, query))

    async def embedded_texts(self) -> list[tuple[UUID, EmbeddingKind, EmbeddedText]]:
        return await self._run(self._database.embedded_texts)

    async def chats_without_turn_vectors(self, model: str) -> list[UUID]:
        return await self._run(partial(self._database.chats_without_turn_vectors, model))

    async def turns_without_vectors(self, chat_id: UUID, model: str, *, limit: int = 32) -> list[PendingTurn]:
        return await self._run(partial(self._database.turns_without_vectors, chat_id, model, limit))

    async def set_turn_vectors(self, vectors: Sequence[TurnVector]) -> None:
        await self._run(partial(self._database.set_turn_vectors, tuple(vectors)))

    async def recall_candidates(self, query: RecallQuery) -> list[TurnCandidate]:
        return await self._run(partial(self._database.recall_candidates, query))

    async def excerpts(self, spans: Sequence[TurnSpan], *, hidden: HiddenTurns | None = None) -> list[ChatExcerpt]:
        return await self._run(partial(self._database.excerpts, tuple(spans), hidden))

    async def get_working_memory(self, chat_id: UUID) -> WorkingMemoryRecord:
        return await self._run(partial(self._database.get_working_memory, chat_id))

    async def put_working_memory(self, chat_id: UUID, data: Mapping[str, Any], *, expected_version: int) -> int:
        return await self._run(partial(self._database.put_working_memory, chat_id, dict(data), expected_version))

    async def close(self) -> None:
        """Close the database; later calls raise `StoreUnavailable` (a late request at shutdown)."""
        await self._worker.close()
