"""Everything around a hostile case, as it was: each file in the folders a command may touch (its kind, mode, size,
modification time and bytes; a link's target; a special file's kind and device), and every row of each SQLite
store among them (the chats, the memories: read through SQLite, so what waits in a write-ahead log counts).
A case snapshots it before, and asserts after that nothing changed: nothing lost, nothing replaced."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
from collections.abc import Mapping
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from chats.models import CONTROLS
from chats.sqlite.health import STAMP_SUFFIX

SIDE_FILES = ("-wal", "-shm", "-journal", STAMP_SUFFIX)
"""The files beside a store (SQLite's own, and the stamp of its last clean close): they come and go as it is
opened and closed; its rows are compared instead."""
LOGS = "logs"
"""Parley's own diary in the data folder, which any command may start or append to: not the user's data."""


@dataclass(frozen=True, slots=True)
class Around:
    files: dict[str, tuple[object, ...]]
    """Path -> what it is (`_file`)."""
    rows: dict[str, dict[str, list[tuple[object, ...]]]]
    """Store path -> table -> its rows, sorted."""

    @classmethod
    def of(cls, *places: Path) -> Around:
        """`places` as they are now: the files a folder holds, at any depth (links not followed; an empty folder
        holds nothing to lose), or one path."""
        paths = sorted({path for place in places for path in _paths(place)})
        files = {str(path): _file(path) for path in paths if not path.name.endswith((".sqlite3", *SIDE_FILES))}
        rows = {str(path): _rows(path) for path in paths if path.name.endswith(".sqlite3")}
        return cls(files, rows)

    def unchanged(self, *places: Path) -> None:
        """Assert that `places` are as this snapshot found them."""
        now = Around.of(*places)
        assert now.files == self.files, _changed(self.files, now.files)
        assert now.rows == self.rows, _changed(self.rows, now.rows)


def raw_controls(text: str) -> list[str]:
    """The characters of `text` that would act on a terminal (newlines and tabs are text)."""
    return [c for c in CONTROLS.findall(text) if c not in "\n\t"]


def _paths(place: Path) -> list[Path]:
    if not place.is_dir() or place.is_symlink():
        return [place] if os.path.lexists(place) else []
    found = []
    for folder, folders, names in os.walk(place):
        folders[:] = [name for name in folders if name != LOGS]
        found += [Path(folder, name) for name in names]
    return found


def _file(path: Path) -> tuple[object, ...]:
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode):
        return ("link", str(path.readlink()))
    if not stat.S_ISREG(info.st_mode):  # a pipe, a device, a socket: never opened
        return ("special", stat.S_IFMT(info.st_mode), info.st_rdev)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return ("file", stat.S_IMODE(info.st_mode), info.st_size, info.st_mtime_ns, digest)


def _rows(path: Path) -> dict[str, list[tuple[object, ...]]]:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        tables = [
            name
            for (name,) in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
            )
        ]
        return {table: sorted(db.execute(f'SELECT * FROM "{table}"'), key=repr) for table in tables}


def _changed(before: Mapping[str, object], after: Mapping[str, object]) -> str:
    keys = sorted(set(before) | set(after))
    return "changed: " + ", ".join(key for key in keys if before.get(key) != after.get(key))
