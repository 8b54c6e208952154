"""Opening the SQLite chat database (pragmas, schema migrations, clear errors for bad files), and the
two rules every query module keeps: how a write transaction is taken and how a moment is written."""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

from chats.errors import StoreUnavailable
from chats.sqlite.health import ensure_healthy, folder_writable, read_only

BUSY_TIMEOUT_MS = 3_000
"""How long a writer waits for another process's write transaction before giving up, saying the database
is busy (`busy`). Parley's own writes (a turn, a memory, a title) hold the lock for milliseconds, so a wait
of seconds is another program's: a database browser with changes not yet saved, a backup, which end when
their user says. A user who typed a command is told within 3 s, not 10, to try again."""
BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})

_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def migrations() -> list[tuple[int, str]]:
    """The bundled migrations as (version, SQL), in order."""
    found = []
    for entry in resources.files("chats.migrations").joinpath("sqlite").iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.read_text(encoding="utf-8")))
    return sorted(found)


def connect(path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    """Open (creating if needed) and migrate the database at `path`.

    WAL lets readers in other Parley processes run beside the one writer; `BEGIN IMMEDIATE` plus the
    busy timeout serialise writers across processes, so two instances never corrupt the file. A damaged
    file is refused with `StoreDamaged` before anything is written into it (`chats.sqlite.health`).
    A file this process cannot write, or in a folder it cannot write, is opened read-only
    (`connect_read_only`).
    """
    if path.exists() and not (folder_writable(path) and os.access(path, os.W_OK)):
        return connect_read_only(path, busy_timeout_ms)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        ensure_healthy(path)
        connection = sqlite3.connect(path, isolation_level=None, timeout=busy_timeout_ms / 1000)
    except (OSError, sqlite3.Error) as error:
        raise _unopened(error, path, f"cannot open the chat database at {path}: {error}") from error
    try:
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = NORMAL")
        connection.execute("PRAGMA foreign_keys = ON")
        _migrate(connection, path)
    except sqlite3.DatabaseError as error:
        connection.close()
        raise _unopened(error, path, f"the chat database at {path} is unreadable ({error})") from error
    except BaseException:
        connection.close()
        raise
    return connection


def connect_read_only(path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    """The database at `path` as it is, for reading: chats can be listed, shown and exported from a
    read-only folder (a backup, a mounted disk); a write fails with SQLITE_READONLY, which the store's
    worker says in one line. Never migrated: a file of another schema is refused."""
    try:
        ensure_healthy(path)
        connection = read_only(path)
    except (OSError, sqlite3.Error) as error:
        raise _unopened(error, path, f"cannot open the chat database at {path}: {error}") from error
    try:
        connection.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
        connection.execute("PRAGMA foreign_keys = ON")
        applied = _applied(connection)
    except sqlite3.DatabaseError as error:
        connection.close()
        raise _unopened(error, path, f"the chat database at {path} is unreadable ({error})") from error
    newest_known = migrations()[-1][0]
    if applied != newest_known:
        connection.close()
        if applied > newest_known:
            raise StoreUnavailable(f"the chat database at {path} was written by a newer Parley (schema {applied})")
        raise StoreUnavailable(
            f"the chat database at {path} needs an upgrade, and Parley cannot write there: make {path.parent}"
            " writable, then try again"
        )
    return connection


def is_busy(error: sqlite3.Error) -> bool:
    """Whether a sqlite error says that another connection holds the lock (past the busy timeout)."""
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in BUSY_CODES  # the primary code of an extended one


def busy(what: str, path: Path) -> StoreUnavailable:
    """What a database locked by another program is said as: busy, not damaged, and nothing lost."""
    return StoreUnavailable(f"the {what} database {path} is busy: another program is using it; try again")


def _unopened(error: OSError | sqlite3.Error, path: Path, said: str) -> StoreUnavailable:
    """Why the database at `path` could not be opened: `said`, or busy."""
    return busy("chat", path) if isinstance(error, sqlite3.Error) and is_busy(error) else StoreUnavailable(said)


@contextmanager
def write_transaction(connection: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction, committed unless the block raises; IMMEDIATE takes the write lock up front,
    so two writers cannot deadlock (the second waits out the busy timeout)."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield connection
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


def time_text(moment: datetime) -> str:
    """How a moment is stored: UTC with a fixed width, so that text order is time order."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _applied(connection: sqlite3.Connection) -> int:
    """The newest migration the database holds (0: none)."""
    return int(connection.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] or 0)


def _migrate(connection: sqlite3.Connection, path: Path) -> None:
    """Bring the schema up to date. One that is needs no write lock: a store opens for reading (WAL) while
    another program writes, and only its own writes wait for that program."""
    known = migrations()
    with suppress(sqlite3.OperationalError):  # a new file: no table yet
        if known and _applied(connection) == known[-1][0]:
            return
    with write_transaction(connection):
        connection.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
        applied = {row[0] for row in connection.execute("SELECT version FROM schema_migrations")}
        newest_known = known[-1][0] if known else 0
        if applied and max(applied) > newest_known:
            raise StoreUnavailable(f"the chat database at {path} was written by a newer Parley (schema {max(applied)})")
        for version, sql in known:
            if version in applied:
                continue
            # executescript would commit our transaction; run the statements one by one instead.
            for statement in _statements(sql):
                connection.execute(statement)
            connection.execute(
                "INSERT INTO schema_migrations (version, applied_at) VALUES (?, datetime('now'))", (version,)
            )


def _statements(sql: str) -> list[str]:
    """Split a migration into complete statements (triggers hold semicolons of their own)."""
    statements, current = [], ""
    for line in sql.splitlines(keepends=True):
        if line.lstrip().startswith("--"):
            continue
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return statements
