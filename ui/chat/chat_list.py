"""The chat list: a model over the store, most recent activity first, fetched a page at a time.

Qt asks `canFetchMore`/`fetchMore` as the view scrolls near the end; `fetchMore` only sends a request
through the bridge and returns, and the rows are inserted when the page arrives, so 10,000 chats scroll
without the GUI thread ever waiting on the store.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from enum import IntEnum
from uuid import UUID

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Slot

from chats.models import ChatInfo, Folder, FolderFilter, chat_title, utc_now
from ui.bridge import ChatBridge, ChatPage
from ui.shown_text import for_window

PAGE_SIZE = 100
PREVIEW_CHARS = 80
UNTITLED = "New chat"
PROVISIONAL_WORDS = 6
"""A chat with no title yet is named by the first words said in it, until its title comes."""

Index = QModelIndex | QPersistentModelIndex


class ChatRole(IntEnum):
    ID = Qt.ItemDataRole.UserRole + 1
    """The chat's `UUID`."""
    TITLE = Qt.ItemDataRole.UserRole + 2
    TIME = Qt.ItemDataRole.UserRole + 3
    """`last_activity_at`, a UTC `datetime`."""
    PREVIEW = Qt.ItemDataRole.UserRole + 4
    """One line: the summary's beginning, or how many turns the chat holds."""
    FOLDER = Qt.ItemDataRole.UserRole + 5
    """The name of the chat's folder, or None."""


def title_of(info: ChatInfo, provisional: str | None = None) -> str:
    """The chat's title; before it has one, the `provisional` name from its first words, else "New chat"."""
    if info.title and info.title.strip():
        return info.title.strip()
    return provisional or UNTITLED


def provisional_title(said: str) -> str | None:
    """A name for a chat with no title yet: the first words said in it ("Plan the kitchen tiles for…")."""
    words = said[: PREVIEW_CHARS * 4].split()
    if not words:
        return None
    name = " ".join(words[:PROVISIONAL_WORDS]).rstrip(".,;:!?")
    name = name[:1].upper() + name[1:]
    return f"{name}…" if len(words) > PROVISIONAL_WORDS else name


def preview_of(info: ChatInfo) -> str:
    if info.summary_text and info.summary_text.strip():
        # Only the beginning is read: a summary may be megabytes, and this runs at every paint.
        line = " ".join(info.summary_text[: PREVIEW_CHARS * 4].split())
        return line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1].rstrip() + "…"
    if info.turn_count == 0:
        return "No messages yet"
    return "1 message" if info.turn_count == 1 else f"{info.turn_count} messages"


def format_when(at: datetime, now: datetime) -> str:
    """A short local time: the clock today, "Yesterday", the weekday within the week, the day this year,
    the date before."""
    local, today = at.astimezone(), now.astimezone()
    days = (today.date() - local.date()).days
    if days <= 0:
        return local.strftime("%H:%M")
    if days == 1:
        return "Yesterday"
    if days < 7:
        return local.strftime("%A")
    if local.year == today.year:
        return f"{local:%b} {local.day}"
    return local.strftime("%Y-%m-%d")


def second_line(when: str, folder: str | None, preview: str) -> str:
    """A row's second line: when, the folder (if any), the preview."""
    return " · ".join(part for part in (when, folder and f"▸ {folder}", preview) if part)


class ChatListModel(QAbstractListModel):
    def __init__(self, bridge: ChatBridge, parent: QObject | None = None, *, page_size: int = PAGE_SIZE) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._page_size = page_size
        self._rows: list[ChatInfo] = []
        self._exhausted = False
        self._pending: int | None = None
        """The request whose page is awaited; answers to any other request are stale."""
        self._replacing = False
        """The awaited page replaces every row (a refresh) rather than extending them."""
        self._started = False
        self._folder: FolderFilter = None
        self._folder_names: dict[str, str] = {}
        self._provisional: dict[UUID, str] = {}
        """Names from the first words said in chats that have no title yet."""
        bridge.page_loaded.connect(self._on_page_loaded)
        bridge.folders_loaded.connect(self._on_folders_loaded)

    @property
    def folder(self) -> FolderFilter:
        """Whose chats the list shows: all (None), one folder's, or those in no folder."""
        return self._folder

    def show_folder(self, folder: FolderFilter) -> None:
        """List the chats of `folder` instead, from the top."""
        if folder != self._folder:
            self._folder = folder
            self._started = True
            self._replacing = True
            self._pending = self._bridge.load_page(0, self._page_size, folder)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt's own default)
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        info = self._rows[index.row()]
        title = title_of(info, self._provisional.get(info.id))
        folder = self._folder_names.get(info.project_id) if info.project_id else None
        if role == Qt.ItemDataRole.DisplayRole:
            when = format_when(info.last_activity_at, utc_now())
            return for_window(f"{title}\n{second_line(when, folder, preview_of(info))}")
        if role in (Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.AccessibleTextRole):
            when = format_when(info.last_activity_at, utc_now())
            where = f", in {folder}" if folder else ""
            return f"{title}, last active {when}{where}, {preview_of(info)}"
        if role == Qt.ItemDataRole.EditRole:
            return info.title or ""
        if role == ChatRole.ID:
            return info.id
        if role == ChatRole.FOLDER:
            return folder
        if role == ChatRole.TITLE:
            return title
        if role == ChatRole.TIME:
            return info.last_activity_at
        if role == ChatRole.PREVIEW:
            return preview_of(info)
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = super().flags(index)
        return base | Qt.ItemFlag.ItemIsEditable if index.isValid() else base

    def setData(self, index: Index, value: object, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """Renaming in place (F2 or a double click): the row shows the new title at once, the store
        is asked through the bridge, and the reload that follows brings the stored truth."""
        if role != Qt.ItemDataRole.EditRole or not index.isValid() or not 0 <= index.row() < len(self._rows):
            return False
        info = self._rows[index.row()]
        try:
            title = chat_title(str(value))
        except ValueError:  # blank, or longer than a row can show: the edit is undone, as Escape would
            return False
        if title == info.title:
            return False
        self._rows[index.row()] = dataclasses.replace(info, title=title)
        self.dataChanged.emit(index, index)
        self._bridge.rename(info.id, title)
        return True

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008 (Qt's own default)
        return not parent.isValid() and self._started and not self._exhausted and self._pending is None

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008 (Qt's own default)
        if self.canFetchMore(parent):
            self._replacing = False
            self._pending = self._bridge.load_page(len(self._rows), self._page_size, self._folder)

    @Slot()
    def refresh(self) -> None:
        """Reload from the top, as many rows as are loaded now (at least a page): the view keeps its extent."""
        self._started = True
        self._replacing = True
        limit = max(self._page_size, len(self._rows))
        self._pending = self._bridge.load_page(0, limit, self._folder)

    def name_provisionally(self, chat_id: UUID, name: str) -> None:
        """Call a chat with no title yet `name` (its first words) until its title comes."""
        self._provisional[chat_id] = name
        row = self.row_of(chat_id)
        if row is not None:
            self.dataChanged.emit(self.index(row), self.index(row))

    def provisional_name(self, chat_id: UUID) -> str | None:
        return self._provisional.get(chat_id)

    def chat_id(self, row: int) -> UUID | None:
        return self._rows[row].id if 0 <= row < len(self._rows) else None

    def row_of(self, chat_id: UUID) -> int | None:
        """The row of a loaded chat; None when it is not loaded (yet)."""
        for row, info in enumerate(self._rows):
            if info.id == chat_id:
                return row
        return None

    @property
    def exhausted(self) -> bool:
        """Every chat is loaded."""
        return self._exhausted

    @Slot(object)
    def _on_folders_loaded(self, folders: tuple[Folder, ...]) -> None:
        self._folder_names = {folder.id: folder.name for folder in folders}
        if self._rows:
            self.dataChanged.emit(self.index(0), self.index(len(self._rows) - 1))

    @Slot(object)
    def _on_page_loaded(self, page: ChatPage) -> None:
        if page.request != self._pending:
            return
        self._pending = None
        self._exhausted = len(page.chats) < page.limit
        if self._replacing:
            self.beginResetModel()
            self._rows = list(page.chats)
            self.endResetModel()
        elif page.chats:
            first = len(self._rows)
            self.beginInsertRows(QModelIndex(), first, first + len(page.chats) - 1)
            self._rows.extend(page.chats)
            self.endInsertRows()
