"""The SQLite store: the shared contract, plus what only a file on disk can show."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from collections.abc import Callable
from contextlib import closing
from datetime import datetime
from pathlib import Path
from uuid import uuid4

import pytest

from chats.errors import StoreDamaged, StoreUnavailable
from chats.models import NO_FOLDER, utc_now
from chats.sqlite.connection import migrations
from chats.sqlite.store import SqliteChatStore
from chats.store import ChatStore
from tests.chats.folder_contract import *  # noqa: F403 - the contracts' tests run here
from tests.chats.recall_contract import *  # noqa: F403
from tests.chats.search_contract import *  # noqa: F403
from tests.chats.store_contract import *  # noqa: F403
from tests.chats.store_contract import turns
from tests.chats.words_held_contract import *  # noqa: F403


class SqliteFactory:
    def __init__(self, path: Path) -> None:
        self.path = path

    async def __call__(self, user_id: str) -> ChatStore:
        return await SqliteChatStore.open(self.path, user_id)

    async def with_clock(self, user_id: str, clock: Callable[[], datetime] = utc_now) -> ChatStore:
        return await SqliteChatStore.open(self.path, user_id, clock=clock)


@pytest.fixture
def make_store(tmp_path: Path) -> SqliteFactory:
    return SqliteFactory(tmp_path / "chats.sqlite3")


async def test_chats_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    store = await SqliteChatStore.open(path, "alice")
    chat = await store.create(title="Kept", turns=turns("remember me"))
    await store.close()
    reopened = await SqliteChatStore.open(path, "alice")
    assert await reopened.get(chat.id) == chat
    await reopened.close()


async def test_a_corrupt_file_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    path.write_bytes(b"this is not a database, just some bytes " * 100)
    before = path.read_bytes()
    with pytest.raises(StoreDamaged, match=r"is damaged \(file is not a database\)"):
        await SqliteChatStore.open(path, "alice")
    assert path.read_bytes() == before


async def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    await (await SqliteChatStore.open(path, "alice")).close()
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO schema_migrations VALUES (9999, 'later')")
    with pytest.raises(StoreUnavailable, match="newer Parley"):
        await SqliteChatStore.open(path, "alice")


async def test_migrations_run_once(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    for _ in range(2):
        await (await SqliteChatStore.open(path, "alice")).close()
    with sqlite3.connect(path) as db:
        applied = [row[0] for row in db.execute("SELECT version FROM schema_migrations ORDER BY version")]
    assert applied == [version for version, _ in migrations()]


def database_at_version(path: Path, version: int) -> None:
    """A database as a Parley that knew migrations up to `version` left it."""
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
        for number, sql in migrations():
            if number <= version:
                db.executescript(sql)
                db.execute("INSERT INTO schema_migrations VALUES (?, 'earlier')", (number,))
        db.commit()


def insert_chat(path: Path, user_id: str, project_id: str | None, created_at: str) -> str:
    chat_id = str(uuid4())
    with closing(sqlite3.connect(path)) as db:
        db.execute(
            "INSERT INTO chats (id, user_id, project_id, assistant_history, last_activity_at, created_at)"
            " VALUES (?, ?, ?, '[]', ?, ?)",
            (chat_id, user_id, project_id, created_at, created_at),
        )
        db.commit()
    return chat_id


async def test_a_version_2_database_gets_a_folder_for_each_folder_id_its_chats_hold(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    database_at_version(path, 2)
    long_id = "imported-" + "x" * 100
    insert_chat(path, "alice", "home", "2025-01-02T00:00:00.000000+00:00")
    insert_chat(path, "alice", "home", "2025-01-01T00:00:00.000000+00:00")
    insert_chat(path, "alice", long_id, "2025-02-01T00:00:00.000000+00:00")
    loose = insert_chat(path, "alice", None, "2025-03-01T00:00:00.000000+00:00")
    insert_chat(path, "bob", "home", "2025-04-01T00:00:00.000000+00:00")
    alice = await SqliteChatStore.open(path, "alice")
    bob = await SqliteChatStore.open(path, "bob")
    folders = await alice.list_folders()
    assert [(f.id, f.name, f.chats) for f in folders] == [("home", "home", 2), (long_id, long_id[:80], 1)]
    assert folders[0].created_at == datetime.fromisoformat("2025-01-01T00:00:00+00:00")
    assert [(f.id, f.chats) for f in await bob.list_folders()] == [("home", 1)]
    assert [str(info.id) for info in await alice.list_chats(project_id=NO_FOLDER)] == [loose]
    await bob.delete_folder("home")
    assert len(await alice.list_chats(project_id="home")) == 2
    await alice.close()
    await bob.close()
    with closing(sqlite3.connect(path)) as db:
        orphans = db.execute(
            "SELECT count(*) FROM chats AS c WHERE project_id IS NOT NULL AND NOT EXISTS"
            " (SELECT 1 FROM folders AS f WHERE f.user_id = c.user_id AND f.id = c.project_id)"
        ).fetchone()
        assert orphans == (0,)


_APPENDER = """
import asyncio, sys, uuid
from pathlib import Path
from chats.models import Turn
from chats.sqlite.store import SqliteChatStore

async def main(path, chat_id, name):
    store = await SqliteChatStore.open(Path(path), "alice")
    for i in range(60):
        await store.append(uuid.UUID(chat_id), [Turn(role="user", text=f"{name} {i}")])
    await store.close()

asyncio.run(main(*sys.argv[1:]))
"""


async def test_two_processes_writing_at_once_lose_and_corrupt_nothing(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    store = await SqliteChatStore.open(path, "alice")
    chat = await store.create()
    writers = [
        await asyncio.create_subprocess_exec(sys.executable, "-c", _APPENDER, str(path), str(chat.id), name)
        for name in ("first", "second")
    ]
    assert [await writer.wait() for writer in writers] == [0, 0]
    after = await store.get(chat.id)
    for name in ("first", "second"):
        assert [t.text for t in after.full_history if t.text.startswith(name)] == [f"{name} {i}" for i in range(60)]
    assert len(after.assistant_history) == 120
    await store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        db.execute("INSERT INTO turns_fts (turns_fts) VALUES ('integrity-check')")
        db.execute("INSERT INTO chats_fts (chats_fts) VALUES ('integrity-check')")


async def test_a_locked_database_is_reported_as_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    store = await SqliteChatStore.open(path, "alice", busy_timeout_ms=0)
    chat = await store.create()
    blocker = sqlite3.connect(path, timeout=0)
    blocker.execute("BEGIN EXCLUSIVE")
    with pytest.raises(StoreUnavailable, match="is busy: another program is using it; try again"):
        await store.append(chat.id, turns("x"))
    blocker.execute("ROLLBACK")
    blocker.close()
    assert (await store.append(chat.id, turns("x"))).appended == 1
    await store.close()


async def test_a_closed_store_says_so(tmp_path: Path) -> None:
    store = await SqliteChatStore.open(tmp_path / "chats.sqlite3", "alice")
    chat = await store.create()
    await store.close()
    await store.close()  # closing twice is harmless
    with pytest.raises(StoreUnavailable, match="closed"):
        await store.get(chat.id)
