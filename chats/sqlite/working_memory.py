"""The SQLite store's working-memory queries, bound to one user; writes run in the caller's transaction."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any
from uuid import UUID

from chats.errors import ChatNotFound, VersionConflict
from chats.store import WorkingMemoryRecord


def select_working_memory(db: sqlite3.Connection, user_id: str, chat_id: UUID) -> WorkingMemoryRecord:
    row = db.execute(
        "SELECT w.body, w.version, c.id FROM chats AS c LEFT JOIN working_memory AS w ON w.chat_id = c.id"
        " WHERE c.id = ? AND c.user_id = ?",
        (str(chat_id), user_id),
    ).fetchone()
    if row is None:
        raise ChatNotFound(chat_id)
    body, version, _ = row
    if body is None:
        return WorkingMemoryRecord({}, 0)
    return WorkingMemoryRecord(json.loads(body), int(version))


def write_working_memory(
    db: sqlite3.Connection, user_id: str, chat_id: UUID, data: Mapping[str, Any], *, expected_version: int, now: str
) -> int:
    actual = select_working_memory(db, user_id, chat_id).version
    if actual != expected_version:
        raise VersionConflict(chat_id, expected_version, actual)
    db.execute(
        "INSERT OR REPLACE INTO working_memory (chat_id, user_id, body, version, updated_at) VALUES (?, ?, ?, ?, ?)",
        (str(chat_id), user_id, json.dumps(dict(data), ensure_ascii=False), actual + 1, now),
    )
    return actual + 1
