"""The suite's own witness: `Around` sees every change a hostile case could make, so that "unchanged" means
something."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from tests.hostile.around import Around


def a_row_added(folder: Path) -> None:
    with closing(sqlite3.connect(folder / "chats.sqlite3")) as db, db:
        db.execute("INSERT INTO chats VALUES ('other')")


def the_pipe_replaced(folder: Path) -> None:
    (folder / "new").write_text("{}", encoding="utf-8")
    (folder / "new").replace(folder / "pipe")


def the_link_replaced(folder: Path) -> None:
    (folder / "link").unlink()
    (folder / "link").write_text("old\n", encoding="utf-8")


def the_file_rewritten_as_it_was(folder: Path) -> None:
    os.utime(folder / "notes.txt", ns=(0, 0))  # the same bytes, written again


@pytest.mark.parametrize(
    "change",
    [
        a_row_added,
        the_pipe_replaced,
        the_link_replaced,
        the_file_rewritten_as_it_was,
        lambda folder: (folder / "notes.txt").unlink(),
        lambda folder: (folder / "new.json").write_text("", encoding="utf-8"),
    ],
    ids=["a row added", "a pipe replaced", "a link replaced", "a file rewritten", "a file deleted", "a file made"],
)
def test_every_change_is_seen(tmp_path: Path, change: Callable[[Path], None]) -> None:
    with closing(sqlite3.connect(tmp_path / "chats.sqlite3")) as db, db:
        db.execute("CREATE TABLE chats (title TEXT)")
        db.execute("INSERT INTO chats VALUES ('kept')")
    (tmp_path / "notes.txt").write_text("old\n", encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "notes.txt")
    os.mkfifo(tmp_path / "pipe")
    before = Around.of(tmp_path)
    before.unchanged(tmp_path)
    change(tmp_path)
    with pytest.raises(AssertionError, match="changed: "):
        before.unchanged(tmp_path)
