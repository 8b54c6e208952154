"""Is the chat database healthy enough to write into? Checked when Parley opens it.

`PRAGMA quick_check` reads every page of the file: at 10,000 chats of 40 turns with their recall vectors
(1.1 GB) it took 0.8 s with the file in the page cache and 10.5 s from a cold disk on the 2-core machine,
too much to pay on every `parley chats rename`. So it runs only when the file may have changed behind
Parley's back: a store that closes cleanly, having met no damage, writes the file's stamp (inode, size,
modification time of the file and its WAL) beside it; an open that finds the same stamp skips the check
(two `stat` calls), and one that finds no stamp or another one (another program wrote into the file, a
crash, a copy from a backup) checks every page first. What it cannot see: damage done by another program
while a Parley store had the file open is taken for that store's own writes when it closes; a page it
reads meanwhile that is damaged drops the stamp (`chats.sqlite.worker`), so the next open checks.

The check runs on a read-only connection of its own: a read-only connection never checkpoints a WAL into
the file, so refusing a damaged file leaves it byte for byte as it was.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from contextlib import closing, suppress
from pathlib import Path
from urllib.parse import quote

from chats.errors import StoreDamaged

STAMP_SUFFIX = "-checked"
"""Beside `chats.sqlite3`, like SQLite's own `-wal` and `-shm`: `chats.sqlite3-checked`."""
DAMAGE_CODES = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})
"""The sqlite error codes that mean the file itself is damaged, not busy or full."""


def ensure_healthy(path: Path) -> None:
    """Raise `StoreDamaged` when the file at `path` fails `PRAGMA quick_check`; return at once when it is
    new or unchanged since a clean close recorded its stamp."""
    if not path.exists() or _read_stamp(path) == file_stamp(path):
        return
    problem = quick_check(path)
    if problem is not None:
        forget_healthy(path)
        raise StoreDamaged(path, problem)
    with suppress(OSError):  # without a stamp the next open checks again: slower, never wrong
        record_healthy(path)


def quick_check(path: Path) -> str | None:
    """The first problem `PRAGMA quick_check` finds in the file, or None when it finds none. An error that
    is not damage (no permission, a locked file) is raised as it is: the caller's open reports it."""
    try:
        with closing(read_only(path)) as db:
            rows = db.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as error:
        if is_damage(error):
            return str(error)
        raise
    first = str(rows[0][0]) if rows else "no answer"
    return None if first == "ok" else first


def is_damage(error: sqlite3.Error) -> bool:
    """Whether a sqlite error says that the file is damaged."""
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in DAMAGE_CODES  # the primary code of an extended one


def record_healthy(path: Path, *, only_if_recorded: bool = False) -> None:
    """Remember the file as it is now as healthy: the next open skips the full check while it is unchanged.
    `only_if_recorded`: only when a stamp is there (a connection that met damage dropped it).

    The file's modification time is first set to this very nanosecond: a filesystem stamps writes with a
    clock that moves in steps of a few milliseconds, so a write that came right after Parley's own could
    otherwise leave the same time behind, and go unnoticed."""
    if not path.exists() or (only_if_recorded and not _stamp_path(path).exists()):
        return
    os.utime(path, ns=(time.time_ns(), time.time_ns()))
    stamp = _stamp_path(path)
    temporary = stamp.with_name(stamp.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        json.dump(file_stamp(path), out)
    temporary.replace(stamp)


def forget_healthy(path: Path) -> None:
    """Drop the stamp: the next open checks every page."""
    _stamp_path(path).unlink(missing_ok=True)


def file_stamp(path: Path) -> list[int]:
    """What changes whenever anything writes into the database: its file's and its WAL's identity, size and
    modification time (nanoseconds)."""
    stamp = []
    for file in (path, _wal(path)):
        try:
            info = file.stat()
        except FileNotFoundError:
            stamp += [0, 0, 0]
            continue
        stamp += [info.st_ino, info.st_size, info.st_mtime_ns]
    return stamp


def _read_stamp(path: Path) -> list[int] | None:
    try:
        data = json.loads(_stamp_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, list) else None


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + STAMP_SUFFIX)


def read_only(path: Path) -> sqlite3.Connection:
    """A connection that never writes into the file, not even a WAL checkpoint at its close.

    A WAL database read with `mode=ro` still needs its `-shm` index, which SQLite makes beside the file:
    in a folder this process cannot write, that fails ("attempt to write a readonly database"). There a
    file without a `-wal` (a clean close checkpoints and removes it) is opened `immutable=1`: no `-shm`,
    no locks, since nothing but its own pages holds data. A `-wal` that is left must be read, and SQLite
    reads it with `mode=ro` when its `-shm` is there too; `immutable` would silently skip it."""
    immutable = "&immutable=1" if not folder_writable(path) and not _wal(path).exists() else ""
    return sqlite3.connect(f"file:{quote(str(path))}?mode=ro{immutable}", uri=True)


def folder_writable(path: Path) -> bool:
    """Whether this process may make files beside `path` (SQLite's `-wal`, `-shm` and the stamp)."""
    return os.access(path.parent, os.W_OK)


def _wal(path: Path) -> Path:
    return path.with_name(path.name + "-wal")
