"""`parley chats repair`: what can still be read from a damaged chat database, in a fresh one.

The damaged file (with its WAL) is first copied aside, `chats.sqlite3.damaged-<UTC time>`, and is never
written to. A fresh database is built beside it under another name, filled with every row of folders,
chats, turns, working memory and memories that can still be read (the search indexes are rebuilt by the
triggers as the rows go in), checked, and only then moved over the damaged file, in one rename.

Rows are read by rowid ranges: a range that meets a damaged page is split in two until the rows that can
be read are read, one by one if need be, and those that cannot are counted as lost. Recall vectors are
not copied: they are derived from the turns, and the maintenance backfill embeds them again.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Generator, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from chats.errors import StoreUnavailable
from chats.sqlite.connection import connect, write_transaction
from chats.sqlite.health import forget_healthy, quick_check, read_only, record_healthy

CHUNK = 512
"""Rowids read per query while the pages answer."""
MAX_FAILED_READS = 200_000
"""Reads that fail before a table's remaining rows are given up on: a damaged interior page can hide a
range of millions of rowids, each of which would otherwise be tried alone."""
TABLES = ("folders", "chats", "turns", "working_memory", "memories")
"""In the order they are copied: a row's parent first."""


@dataclass(slots=True)
class RepairReport:
    damaged_copy: Path
    """Where the damaged file was copied, untouched."""
    saved: dict[str, int] = field(default_factory=dict)
    """Rows copied into the fresh database, per table."""
    lost: dict[str, int] = field(default_factory=dict)
    """Reads of single rows (or whole tables) that failed, per table: a lower bound of the rows lost."""


def needs_repair(path: Path) -> str | None:
    """The damage `PRAGMA quick_check` finds in the database at `path`, or None when it is healthy."""
    if not path.exists():
        raise StoreUnavailable(f"there is no chat database at {path}: nothing to repair")
    try:
        return quick_check(path)
    except sqlite3.Error as error:
        raise StoreUnavailable(f"cannot read the chat database at {path}: {error}") from error


def repair(path: Path, now: datetime) -> RepairReport:
    """Copy the damaged database at `path` aside, then replace it with a fresh one holding every row that
    can still be read. Nothing else may have the file open meanwhile. A failure (a full disk, say) before
    the last step leaves the damaged file where it was: `StoreUnavailable` says so."""
    try:
        return _repair(path, now)
    except (OSError, sqlite3.Error) as error:
        raise StoreUnavailable(f"the repair of {path} stopped ({error}); the damaged file was left as it is") from error


def _repair(path: Path, now: datetime) -> RepairReport:
    aside = path.with_name(f"{path.name}.damaged-{now.astimezone(UTC):%Y%m%dT%H%M%SZ}")
    _copy_with_wal(path, aside)
    fresh = path.with_name(path.name + ".repairing")
    _remove_with_sidecars(fresh)
    report = RepairReport(damaged_copy=aside)
    target = connect(fresh)
    try:
        with closing(read_only(aside)) as source, write_transaction(target):
            for table in TABLES:
                _copy_table(source, target, table, report)
            _make_missing_folders(target)
            _count_turns(target)
    finally:
        target.close()
    problem = quick_check(fresh)
    if problem is not None:  # a bug of ours, not the user's file: leave everything as it was
        raise StoreUnavailable(f"the repaired copy of {path} failed its check ({problem}); nothing was replaced")
    forget_healthy(path)
    # An old WAL must never be replayed into the fresh file; the fresh file's own WAL is empty (its writer
    # checkpointed it at close), and a shared-memory index is made again whenever a file is opened.
    for sidecar in (_sidecar(path, "-wal"), _sidecar(path, "-shm"), _sidecar(fresh, "-wal"), _sidecar(fresh, "-shm")):
        sidecar.unlink(missing_ok=True)
    _sidecar(aside, "-shm").unlink(missing_ok=True)
    fresh.replace(path)
    record_healthy(path)
    return report


def _sidecar(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def _copy_with_wal(path: Path, aside: Path) -> None:
    shutil.copy2(path, aside)
    if _sidecar(path, "-wal").exists():
        shutil.copy2(_sidecar(path, "-wal"), _sidecar(aside, "-wal"))


def _remove_with_sidecars(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        _sidecar(path, suffix).unlink(missing_ok=True)


def _copy_table(source: sqlite3.Connection, target: sqlite3.Connection, table: str, report: RepairReport) -> None:
    """Every readable row of `table` whose columns both schemas share; turns are numbered afresh per chat
    (a lost turn leaves no gap) and a row whose parent was lost is dropped."""
    columns = [c for c in _columns(source, table, report) if c in _columns(target, table, report)]
    if not columns:
        return
    names = ", ".join(columns)
    landing = table
    if table == "turns":
        target.execute(f"CREATE TEMP TABLE salvaged_turns AS SELECT {names} FROM turns WHERE 0")
        landing = "temp.salvaged_turns"
    insert = f"INSERT OR IGNORE INTO {landing} ({names}) VALUES ({', '.join('?' * len(columns))})"
    saved = 0
    for row in _readable_rows(source, table, names, report):
        try:
            saved += target.execute(insert, row).rowcount
        except sqlite3.IntegrityError:  # its chat was lost
            report.lost[table] = report.lost.get(table, 0) + 1
    if table == "turns":
        saved = _renumber_turns(target, names)
    report.saved[table] = saved


def _columns(db: sqlite3.Connection, table: str, report: RepairReport) -> list[str]:
    try:
        return [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
    except sqlite3.DatabaseError:
        report.lost[table] = report.lost.get(table, 0) + 1
        return []


def _readable_rows(
    source: sqlite3.Connection, table: str, names: str, report: RepairReport
) -> Iterator[Sequence[object]]:
    """The rows of `table` that can be read, in rowid order. A read that fails means a damaged page on its
    way: the next `CHUNK` rowids are then read by halves, down to single rows, and the read goes on
    after them."""
    try:
        top = source.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0] or 0
    except sqlite3.DatabaseError:
        top = 1 << 40  # the rightmost pages are damaged: look up to any rowid Parley could have made
    select = f"SELECT rowid, {names} FROM {table} WHERE rowid >= ? AND rowid <= ? ORDER BY rowid LIMIT {CHUNK}"
    failed, cursor = 0, 1
    while cursor <= top and failed < MAX_FAILED_READS:
        try:
            rows = source.execute(select, (cursor, top)).fetchall()
        except sqlite3.DatabaseError:
            end = min(cursor + CHUNK - 1, top)
            failed += yield from _by_halves(source, select, (cursor, end), report, table)
            cursor = end + 1
            continue
        if not rows:
            break
        for row in rows:
            yield row[1:]
        cursor = rows[-1][0] + 1
    if cursor <= top and failed >= MAX_FAILED_READS:
        report.lost[table] = report.lost.get(table, 0) + 1


def _by_halves(
    source: sqlite3.Connection, select: str, span: tuple[int, int], report: RepairReport, table: str
) -> Generator[Sequence[object], None, int]:
    """The readable rows of the rowids `span` (first, last); returns how many reads failed."""
    failed = 0
    ranges = [span]
    while ranges:
        low, high = ranges.pop()
        try:
            rows = source.execute(select, (low, high)).fetchall()
        except sqlite3.DatabaseError:
            failed += 1
            if low == high:
                report.lost[table] = report.lost.get(table, 0) + 1
            else:
                middle = (low + high) // 2
                ranges += [(middle + 1, high), (low, middle)]
            continue
        for row in rows:
            yield row[1:]
    return failed


def _renumber_turns(target: sqlite3.Connection, names: str) -> int:
    """Move the salvaged turns into `turns`, numbered 0, 1, ... per chat in their old order."""
    kept = [name for name in names.split(", ") if name != "seq"]
    cursor = target.execute(
        f"INSERT INTO turns (seq, {', '.join(kept)})"
        f" SELECT row_number() OVER (PARTITION BY chat_id ORDER BY seq) - 1, {', '.join(kept)}"
        " FROM temp.salvaged_turns WHERE chat_id IN (SELECT id FROM chats) ORDER BY chat_id, seq"
    )
    target.execute("DROP TABLE temp.salvaged_turns")
    return cursor.rowcount


def _make_missing_folders(target: sqlite3.Connection) -> None:
    """A chat whose folder row was lost gets its folder back, named after its id as migration 0003 does."""
    target.execute(
        "INSERT INTO folders (id, user_id, name, created_at)"
        " SELECT project_id, user_id, coalesce(nullif(trim(substr(trim(project_id), 1, 80)), ''), 'Unnamed folder'),"
        " min(created_at) FROM chats AS c WHERE project_id IS NOT NULL AND NOT EXISTS"
        " (SELECT 1 FROM folders AS f WHERE f.id = c.project_id AND f.user_id = c.user_id)"
        " GROUP BY user_id, project_id"
    )


def _count_turns(target: sqlite3.Connection) -> None:
    target.execute("UPDATE chats SET turn_count = (SELECT count(*) FROM turns WHERE turns.chat_id = chats.id)")
