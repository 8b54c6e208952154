"""A damaged chat database, as a user meets it: refused in one line and left as it was, then repaired."""

from __future__ import annotations

import hashlib
import os
import random
import sqlite3
from pathlib import Path

from app.listening_lock import listening_lock
from chats.sqlite.health import quick_check
from tests.app.conftest import Parley
from tests.app.test_cli import JAPAN, kitchen_turns

GARBAGE_AT = 100_000


def damage(database: Path) -> None:
    """Random bytes over two pages from offset 100,000, as the issue's reproduction did; checked to be
    damage SQLite sees, so that the test cannot pass on a file that is still sound."""
    with database.open("r+b") as file:
        file.seek(GARBAGE_AT)
        file.write(random.Random(15).randbytes(8192))
    assert quick_check(database) is not None


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def imported_store(parley: Parley) -> Path:
    for name in ("a", "b", "c"):
        parley.json("chats", "import", parley.write(f"{name}.json", kitchen_turns(40)))
    parley.json("memories", "add", "User prefers green tea", "--category", "preference")
    return parley.data_dir / "chats.sqlite3"


def test_an_import_into_a_damaged_database_is_refused_and_changes_nothing(parley: Parley) -> None:
    database = imported_store(parley)
    damage(database)
    before = digest(database)
    code, out = parley("chats", "import", parley.write("t.json", JAPAN))
    assert (code, out) == (1, "")
    assert parley.err.count("\n") == 1
    assert parley.err.startswith(f"parley: the chat database {database} is damaged")
    assert "copy" in parley.err and "`parley chats repair`" in parley.err
    assert digest(database) == before
    assert not list(parley.data_dir.glob("*.damaged-*"))


def test_repair_keeps_a_copy_and_rebuilds_what_can_be_read(parley: Parley) -> None:
    database = imported_store(parley)
    damage(database)
    damaged = digest(database)
    report = parley.json("chats", "repair")
    [copy] = parley.data_dir.glob("chats.sqlite3.damaged-*Z")
    assert report["damaged_copy"] == str(copy) and digest(copy) == damaged
    assert report["damage"] is not None
    with sqlite3.connect(database) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("INSERT INTO turns_fts (turns_fts) VALUES ('integrity-check')").rowcount != 0
    chats = parley.json("chats", "list")
    assert chats and report["saved"]["chats"] == len(chats)
    assert report["saved"]["turns"] == sum(chat["turns"] for chat in chats)
    for chat in chats:  # every turn a chat holds is readable, numbered without a gap
        assert len(parley.json("chats", "show", chat["id"])["full_history"]) == chat["turns"]
    assert [m["content"] for m in parley.json("memories", "list")] == ["User prefers green tea"]
    assert parley.json("chats", "search", "kitchen cabinets")["outcome"] != "none"
    [japan] = parley.json("chats", "import", parley.write("t.json", JAPAN))
    assert parley.json("chats", "show", japan["id"])["full_history"] == JAPAN


def test_repair_of_a_healthy_database_changes_nothing(parley: Parley) -> None:
    database = imported_store(parley)
    before = digest(database)
    assert parley("chats", "repair") == (0, f"The chat database {database} is healthy: nothing to repair.\n")
    assert digest(database) == before
    assert not list(parley.data_dir.glob("*.damaged-*"))


def test_repair_without_a_database_says_so(parley: Parley) -> None:
    code, _ = parley("chats", "repair")
    assert code == 1
    assert (
        parley.err == f"parley: there is no chat database at {parley.data_dir / 'chats.sqlite3'}: nothing to repair\n"
    )


def test_repair_waits_for_a_listening_parley_to_quit(parley: Parley) -> None:
    database = imported_store(parley)
    damage(database)
    before = digest(database)
    with listening_lock(parley.data_dir):
        code, _ = parley("chats", "repair")
    assert code == 1
    owner = f"process {os.getpid()}"
    assert (
        parley.err == f"parley: Parley is already listening on these chats ({owner}): quit it first, then try again\n"
    )
    assert digest(database) == before
