"""The SQLite store's folder queries. Each runs inside the caller's transaction, bound to one user."""

from __future__ import annotations

import sqlite3
import uuid
from datetime import datetime

from chats.errors import DuplicateFolderName, FolderNotFound
from chats.models import Folder, folder_name_key

_FOLDERS = (
    "SELECT f.id, f.name, f.created_at, count(c.id) FROM folders AS f"
    " LEFT JOIN chats AS c ON c.user_id = f.user_id AND c.project_id = f.id WHERE f.user_id = ?"
)


def select_folders(db: sqlite3.Connection, user_id: str) -> list[Folder]:
    """The user's folders by name, ignoring case (sorted here: SQLite's NOCASE folds ASCII only)."""
    folders = [_folder(row) for row in db.execute(_FOLDERS + " GROUP BY f.id", (user_id,))]
    return sorted(folders, key=lambda folder: (folder_name_key(folder.name), folder.id))


def select_folder(db: sqlite3.Connection, user_id: str, folder_id: str) -> Folder:
    row = db.execute(_FOLDERS + " AND f.id = ? GROUP BY f.id", (user_id, folder_id)).fetchone()
    if row is None:
        raise FolderNotFound(folder_id)
    return _folder(row)


def require_folder(db: sqlite3.Connection, user_id: str, folder_id: str) -> None:
    if db.execute("SELECT 1 FROM folders WHERE user_id = ? AND id = ?", (user_id, folder_id)).fetchone() is None:
        raise FolderNotFound(folder_id)


def insert_folder(
    db: sqlite3.Connection, user_id: str, name: str, created_at: str, folder_id: str | None = None
) -> str:
    """Add a folder with a valid `name`, under `folder_id` or a new id; raise `DuplicateFolderName` if the
    user already has the name."""
    _refuse_taken_name(db, user_id, name, None)
    folder_id = folder_id or str(uuid.uuid4())
    db.execute(
        "INSERT INTO folders (id, user_id, name, created_at) VALUES (?, ?, ?, ?)",
        (folder_id, user_id, name, created_at),
    )
    return folder_id


def update_folder_name(db: sqlite3.Connection, user_id: str, folder_id: str, name: str) -> None:
    require_folder(db, user_id, folder_id)
    _refuse_taken_name(db, user_id, name, folder_id)
    db.execute("UPDATE folders SET name = ? WHERE user_id = ? AND id = ?", (name, user_id, folder_id))


def delete_folder(db: sqlite3.Connection, user_id: str, folder_id: str) -> None:
    """Delete the folder and move its chats to no folder; the caller's transaction makes it one step."""
    db.execute("UPDATE chats SET project_id = NULL WHERE user_id = ? AND project_id = ?", (user_id, folder_id))
    if db.execute("DELETE FROM folders WHERE user_id = ? AND id = ?", (user_id, folder_id)).rowcount == 0:
        raise FolderNotFound(folder_id)


def _refuse_taken_name(db: sqlite3.Connection, user_id: str, name: str, renamed_id: str | None) -> None:
    """Raise `DuplicateFolderName` if a folder other than `renamed_id` has `name`, ignoring case.

    Compared in Python because case folding is Unicode-wide; a user has tens of folders, not thousands."""
    key = folder_name_key(name)
    for other_id, other_name in db.execute("SELECT id, name FROM folders WHERE user_id = ?", (user_id,)):
        if other_id != renamed_id and folder_name_key(other_name) == key:
            raise DuplicateFolderName(name)


def _folder(row: tuple[str, str, str, int]) -> Folder:
    return Folder(id=row[0], name=row[1], created_at=datetime.fromisoformat(row[2]), chats=row[3])
