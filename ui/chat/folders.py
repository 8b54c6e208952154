"""Folders in the window: a chooser over the chat list (all chats, those in no folder, or one folder's),
a menu to add, rename and delete folders, and the "Move to" menu that puts the selected chat in one.

They lay out and bind: every change goes to the bridge, and the folders come back as `folders_loaded`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast
from uuid import UUID

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QInputDialog,
    QLineEdit,
    QMenu,
    QToolButton,
    QWidget,
)

from chats.models import NO_FOLDER, Folder, FolderFilter
from ui.bridge import ChatBridge
from ui.widgets import Confirm

ALL_CHATS = "All chats"
IN_NO_FOLDER = "No folder"

AskText = Callable[[QWidget, str, str], str | None]
"""Asks the user for a line of text: (parent, question, initial text) -> the text, or None if cancelled."""


def ask_text(parent: QWidget, question: str, initial: str) -> str | None:
    """The default: a small modal dialog with one line to type."""
    text, accepted = QInputDialog.getText(parent, "Parley", question, QLineEdit.EchoMode.Normal, initial)
    return text if accepted else None


def folder_label(folder: Folder) -> str:
    return f"{folder.name} ({folder.chats})"


class FolderBar(QWidget):
    folder_chosen = Signal(object)
    """The `FolderFilter` whose chats the list should show."""

    def __init__(self, bridge: ChatBridge, *, ask: AskText, confirm: Confirm, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._ask = ask
        self._confirm = confirm
        self.folders: tuple[Folder, ...] = ()
        """The user's folders by name, as last loaded."""
        self.chooser = QComboBox()
        self.chooser.setAccessibleName("Folder")
        self.chooser.setAccessibleDescription("Which chats the list shows: all, those in no folder, or one folder's")
        self.chooser.addItem(ALL_CHATS, None)
        self.chooser.addItem(IN_NO_FOLDER, NO_FOLDER)
        self.menu = QMenu(self)
        self.new_action = self.menu.addAction("&New folder…")
        self.rename_action = self.menu.addAction("&Rename folder…")
        self.delete_action = self.menu.addAction("&Delete folder")
        self.menu_button = QToolButton()
        self.menu_button.setText("Folders")
        self.menu_button.setAccessibleName("Folder actions")
        self.menu_button.setToolTip("Add, rename or delete folders")
        self.menu_button.setMenu(self.menu)
        self.menu_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.chooser, 1)
        layout.addWidget(self.menu_button)
        self._enable_folder_actions()

        self.chooser.currentIndexChanged.connect(self._on_chosen)
        self.new_action.triggered.connect(self.new_folder)
        self.rename_action.triggered.connect(self.rename_folder)
        self.delete_action.triggered.connect(self.delete_folder)
        bridge.ready.connect(bridge.load_folders)
        bridge.folders_changed.connect(bridge.load_folders)
        bridge.folders_loaded.connect(self._show_folders)

    @property
    def chosen(self) -> FolderFilter:
        data: FolderFilter = self.chooser.currentData()
        return data

    def choose(self, folder: FolderFilter) -> None:
        index = self.chooser.findData(folder)
        if index >= 0:
            self.chooser.setCurrentIndex(index)

    @Slot()
    def new_folder(self) -> None:
        name = self._ask(self, "Name of the new folder:", "")
        if name and name.strip():
            self._bridge.create_folder(name)

    @Slot()
    def rename_folder(self) -> None:
        folder = self._chosen_folder()
        if folder is not None:
            name = self._ask(self, f"New name for the folder “{folder.name}”:", folder.name)
            if name and name.strip() and name.strip() != folder.name:
                self._bridge.rename_folder(folder.id, name)

    @Slot()
    def delete_folder(self) -> None:
        folder = self._chosen_folder()
        if folder is None:
            return
        kept = "Its chats are kept, in no folder." if folder.chats else "It holds no chat."
        if self._confirm(self, f"Delete the folder “{folder.name}”? {kept}"):
            self.choose(None)
            self._bridge.delete_folder(folder.id)

    def _chosen_folder(self) -> Folder | None:
        return next((folder for folder in self.folders if folder.id == self.chosen), None)

    @Slot(object)
    def _show_folders(self, folders: tuple[Folder, ...]) -> None:
        chosen = self.chosen
        self.folders = folders
        self.chooser.blockSignals(True)  # refilling is not choosing: the list keeps its folder
        while self.chooser.count() > 2:
            self.chooser.removeItem(2)
        for folder in folders:
            self.chooser.addItem(folder_label(folder), folder.id)
        index = self.chooser.findData(chosen)
        self.chooser.setCurrentIndex(max(index, 0))
        self.chooser.blockSignals(False)
        if index < 0:  # the folder shown is gone (deleted elsewhere): back to every chat
            self.folder_chosen.emit(None)
        self._enable_folder_actions()

    @Slot(int)
    def _on_chosen(self, _index: int) -> None:
        self._enable_folder_actions()
        self.folder_chosen.emit(self.chosen)

    def _enable_folder_actions(self) -> None:
        is_folder = self._chosen_folder() is not None
        self.rename_action.setEnabled(is_folder)
        self.delete_action.setEnabled(is_folder)


class MoveMenu(QMenu):
    """ "Move to": no folder, each folder, or a new one; filled from the folder bar when it opens."""

    def __init__(
        self, bridge: ChatBridge, folders: FolderBar, current: Callable[[], UUID | None], *, ask: AskText
    ) -> None:
        super().__init__(folders)
        self._bridge = bridge
        self._current = current
        self._ask = ask
        self.aboutToShow.connect(self._fill)

    @property
    def _folders(self) -> FolderBar:
        # Qt's parent, not a Python attribute: see `ui.tray.icon.Tray._window`.
        return cast(FolderBar, self.parent())

    @Slot()
    def _fill(self) -> None:
        self.clear()
        self.addAction(IN_NO_FOLDER).triggered.connect(lambda: self.move_to(None))
        self.addSeparator()
        for folder in self._folders.folders:
            action = self.addAction(folder.name)
            action.triggered.connect(lambda _=False, folder_id=folder.id: self.move_to(folder_id))
        self.addSeparator()
        self.addAction("New folder…").triggered.connect(self.move_to_new_folder)

    def move_to(self, folder_id: str | None) -> None:
        chat_id = self._current()
        if chat_id is not None:
            self._bridge.move_chat(chat_id, folder_id)

    @Slot()
    def move_to_new_folder(self) -> None:
        chat_id = self._current()
        name = self._ask(self._folders, "Name of the new folder:", "") if chat_id is not None else None
        if chat_id is not None and name and name.strip():
            self._bridge.create_folder(name, move=chat_id)
