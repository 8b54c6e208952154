"""`SqliteMemoryStore`: long-term memories in the chat database file, on a connection of their own.

Like `SqliteChatStore`, every call runs on one dedicated thread that owns the connection (sqlite3 work
never blocks the event loop), and sqlite3 errors surface as `StoreUnavailable`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TypeVar
from uuid import UUID

from chats.memory.models import Category, Memory, MemoryHit, Preload
from chats.memory.preload import DEFAULT_MAX_TOKENS
from chats.memory.ranking import Ranking
from chats.memory.store import UNCHANGED, MemoryQuery, Unchanged
from chats.models import EmbeddedText, FolderFilter, Vector, utc_now
from chats.sqlite.connection import BUSY_TIMEOUT_MS
from chats.sqlite.memory_database import MemoryDatabase
from chats.sqlite.worker import ConnectionWorker

T = TypeVar("T")


class SqliteMemoryStore:
    """The embedded default memory store: its own connection to the chat database file."""

    def __init__(self, database: MemoryDatabase, worker: ConnectionWorker, user_id: str) -> None:
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
        ranking: Ranking = Ranking(),  # noqa: B008 - frozen, so one shared default is safe
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    ) -> SqliteMemoryStore:
        """Open (creating and migrating) the database at `path`, bound to `user_id`."""
        worker = await ConnectionWorker.open(path, busy_timeout_ms, what="memory")
        database = await worker.run(partial(MemoryDatabase, worker.connection, user_id, clock, ranking))
        return cls(database, worker, user_id)

    @property
    def user_id(self) -> str:
        return self._user_id

    async def _run(self, call: Callable[[], T]) -> T:
        return await self._worker.run(call)

    async def add(
        self,
        *,
        content: EmbeddedText,
        category: Category,
        importance: int,
        title: str | None = None,
        tags: Sequence[str] = (),
        project_id: str | None = None,
        source_chat_id: UUID | None = None,
        supersedes: Sequence[UUID] = (),
    ) -> Memory:
        call = partial(
            self._database.add,
            content=content,
            category=category,
            importance=importance,
            title=title,
            tags=tuple(tags),
            project_id=project_id,
            source_chat_id=source_chat_id,
            supersedes=tuple(supersedes),
        )
        return await self._run(call)

    async def get(self, memory_id: UUID, *, scope: FolderFilter = None) -> Memory:
        return await self._run(partial(self._database.get, memory_id, scope))

    async def update(
        self,
        memory_id: UUID,
        *,
        content: EmbeddedText | None = None,
        category: Category | None = None,
        importance: int | None = None,
        title: str | Unchanged | None = UNCHANGED,
        tags: Sequence[str] | None = None,
        scope: FolderFilter = None,
    ) -> Memory:
        tags = None if tags is None else tuple(tags)
        call = partial(
            self._database.update,
            memory_id,
            content=content,
            category=category,
            importance=importance,
            title=title,
            tags=tags,
            scope=scope,
        )
        return await self._run(call)

    async def delete(self, memory_id: UUID, *, scope: FolderFilter = None) -> int:
        return await self._run(partial(self._database.delete, memory_id, scope))

    async def list_memories(
        self,
        *,
        category: Category | None = None,
        scope: FolderFilter = None,
        include_superseded: bool = False,
        limit: int = 50,
        offset: int = 0,
    ) -> list[Memory]:
        call = partial(
            self._database.list_memories,
            category=category,
            scope=scope,
            include_superseded=include_superseded,
            limit=limit,
            offset=offset,
        )
        return await self._run(call)

    async def count(self, *, include_superseded: bool = False) -> int:
        return await self._run(partial(self._database.count, include_superseded))

    async def search(self, query: MemoryQuery) -> list[MemoryHit]:
        return await self._run(partial(self._database.search, query))

    async def find_similar(
        self, vector: Vector, model: str, *, scope: FolderFilter, limit: int = 10, min_similarity: float = 0.0
    ) -> list[MemoryHit]:
        return await self._run(
            partial(self._database.find_similar, vector, model, scope=scope, limit=limit, min_similarity=min_similarity)
        )

    async def preload(self, max_tokens: int = DEFAULT_MAX_TOKENS) -> Preload:
        return await self._run(partial(self._database.preload, max_tokens))

    async def export(self) -> list[Memory]:
        return await self._run(self._database.export)

    async def embedded_texts(self) -> list[tuple[UUID, EmbeddedText]]:
        return await self._run(self._database.embedded_texts)

    async def set_embedding(self, memory_id: UUID, value: EmbeddedText) -> None:
        await self._run(partial(self._database.set_embedding, memory_id, value))

    async def close(self) -> None:
        """Close the database; later calls raise `StoreUnavailable`."""
        await self._worker.close()
