"""The SQLite memory store: the shared contract, plus what only a file on disk can show."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from chats.errors import StoreUnavailable
from chats.memory.store import MemoryChanges, MemoryStore, NewMemory
from chats.models import utc_now
from chats.sqlite.memories import SqliteMemoryStore
from chats.sqlite.store import SqliteChatStore
from tests.chats.memory_contract import *  # noqa: F403 - the contract's tests run here
from tests.chats.memory_contract import add, ask, fact
from tests.chats.store_contract import turns


class SqliteMemoryFactory:
    def __init__(self, path: Path) -> None:
        self.path = path

    async def __call__(self, user_id: str) -> MemoryStore:
        return await SqliteMemoryStore.open(self.path, user_id)

    async def with_clock(self, user_id: str, clock: Callable[[], datetime] = utc_now) -> MemoryStore:
        return await SqliteMemoryStore.open(self.path, user_id, clock=clock)


@pytest.fixture
def make_memory_store(tmp_path: Path) -> SqliteMemoryFactory:
    return SqliteMemoryFactory(tmp_path / "chats.sqlite3")


async def test_memories_survive_a_restart_beside_the_chats(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    chats = await SqliteChatStore.open(path, "alice")
    chat = await chats.create(turns=turns("I moved to Berlin"))
    memories = await SqliteMemoryStore.open(path, "alice")
    kept = await memories.add(
        NewMemory(content=fact("User lives in Berlin"), category="identity", importance=10, source_chat_id=chat.id)
    )
    await memories.close()
    await chats.close()
    reopened = await SqliteMemoryStore.open(path, "alice")
    assert await reopened.get(kept.id) == kept
    await reopened.close()


async def test_the_word_index_stays_whole_through_edits_and_deletes(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    store = await SqliteMemoryStore.open(path, "alice")
    first = await add(store, fact("User collects vintage postcards", 1))
    second = await add(store, fact("User bakes sourdough bread", 1))
    await store.update(
        first.id, MemoryChanges(content=fact("User collects vintage stamps", 1), title="Stamps", tags=["hobby"])
    )
    await store.delete(second.id)
    assert await ask(store, fact("postcards", 0, 1)) == []
    assert await ask(store, fact("sourdough", 0, 1)) == []
    assert await ask(store, fact("stamps", 0, 1)) == ["User collects vintage stamps"]
    await store.close()
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')")
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


async def test_chat_writes_do_not_rebuild_the_memory_index(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    chats = await SqliteChatStore.open(path, "alice")
    memories = await SqliteMemoryStore.open(path, "alice")
    await add(memories, fact("User likes long walks", 1))
    await ask(memories, fact("walks", 1))
    with sqlite3.connect(path) as db:
        (before,) = db.execute("SELECT version FROM memory_changes WHERE user_id = 'alice'").fetchone()
    chat = await chats.create()
    await chats.append(chat.id, turns("hello"))
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version FROM memory_changes WHERE user_id = 'alice'").fetchone() == (before,)
    await memories.close()
    await chats.close()


async def test_a_locked_database_is_reported_as_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    store = await SqliteMemoryStore.open(path, "alice", busy_timeout_ms=0)
    blocker = sqlite3.connect(path, timeout=0)
    blocker.execute("BEGIN EXCLUSIVE")
    with pytest.raises(StoreUnavailable, match="is busy: another program is using it; try again"):
        await add(store, fact("User likes long walks"))
    blocker.execute("ROLLBACK")
    blocker.close()
    assert (await add(store, fact("User likes long walks"))).content == "User likes long walks"
    await store.close()


async def test_a_closed_store_says_so(tmp_path: Path) -> None:
    store = await SqliteMemoryStore.open(tmp_path / "chats.sqlite3", "alice")
    await store.close()
    await store.close()
    with pytest.raises(StoreUnavailable, match="closed"):
        await store.list_memories()
