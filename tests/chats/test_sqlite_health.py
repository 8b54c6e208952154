"""The SQLite store and a damaged file: checked when the file changed behind Parley's back, refused
before anything is written, and text that no UTF-8 file can hold repaired on its way in."""

from __future__ import annotations

import random
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from chats.errors import StoreDamaged
from chats.models import Turn
from chats.sqlite.health import STAMP_SUFFIX
from chats.sqlite.store import SqliteChatStore
from chats.sqlite.worker import unavailable
from tests.chats.store_contract import turns

PAGE = 4096


async def test_damage_met_while_open_is_refused_and_checked_at_the_next_open(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    store = await SqliteChatStore.open(path, "alice")
    chats = [await store.create(turns=turns(*(f"turn {i} of chat {c}" * 20 for i in range(40)))) for c in range(20)]
    await store.close()
    store = await SqliteChatStore.open(path, "alice")  # unchanged since its clean close: not checked again
    with path.open("r+b") as file:  # another program writes over every page but the schema's
        file.seek(2 * PAGE)
        file.write(random.Random(3).randbytes(path.stat().st_size - 2 * PAGE))
    with pytest.raises(StoreDamaged, match="`parley chats repair`"):
        for chat in chats:
            await store.get(chat.id)
    await store.close()
    assert not path.with_name(path.name + STAMP_SUFFIX).exists()
    before = path.read_bytes()
    with pytest.raises(StoreDamaged):
        await SqliteChatStore.open(path, "alice")
    assert path.read_bytes() == before


async def test_lone_surrogates_are_stored_as_replacement_characters(tmp_path: Path) -> None:
    store = await SqliteChatStore.open(tmp_path / "chats.sqlite3", "alice")
    chat = await store.create(title="caf\udce9", turns=[Turn(role="user", text="split \ud83d")])
    await store.append(chat.id, [Turn(role="model", text="\ude00 pair", thinking="\ud800")])
    await store.rename(chat.id, "t\udcff")
    stored = await store.get(chat.id)
    assert stored.title == "t\ufffd"
    assert [(t.text, t.thinking) for t in stored.full_history] == [("split \ufffd", None), ("\ufffd pair", "\ufffd")]
    assert [t.text for t in (await store.load_assistant_context(chat.id)).assistant_history] == [
        "split \ufffd",
        "\ufffd pair",
    ]
    await store.close()


def test_a_full_disk_says_to_free_space(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE t (x BLOB)")
        db.execute("PRAGMA max_page_count = 3")  # what a full disk gives: SQLITE_FULL, "database or disk is full"
        with pytest.raises(sqlite3.OperationalError) as full:
            db.execute("INSERT INTO t VALUES (zeroblob(100000))")
    said = str(unavailable(full.value, "chat", path))
    assert said == f"the disk holding {path} is full: free some space, then try again (nothing was lost)"
