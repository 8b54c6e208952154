"""The main window: chats on the left, the selected chat's transcript on the right, the state below.

It only lays out and binds (`_bind` connects each signal to its slot, once, as the window is made): every
action goes to the bridge, every answer comes back as a bridge signal to a bound slot here.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from uuid import UUID

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QLineEdit,
    QListView,
    QMainWindow,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.status import VoiceStatus
from chats.models import Chat, Turn
from ui.banner import ProblemBanner
from ui.bridge import ChatBridge, SearchResult
from ui.chat.chat_list import ChatListModel, ChatRole, provisional_title
from ui.chat.delegate import ChatRowDelegate
from ui.chat.folders import AskText, FolderBar, MoveMenu, ask_text
from ui.chat.long_text import LongTextDialog
from ui.chat.transcript import TranscriptView
from ui.memory.bridge import MemoryBridge
from ui.memory.page import MemoryPage
from ui.settings.dialog import SettingsDialog
from ui.shown_text import for_window
from ui.tray.icon import state_icon
from ui.voice.confirmations import ConfirmationsPanel
from ui.voice.controls import VoiceControls
from ui.voice.timers_panel import TimersPanel
from ui.widgets import Confirm, ask_to_confirm, icon_button, text_line

SPACING = 10
"""Pixels between the window's parts, and around them."""
SettingsDialogFactory = Callable[[QWidget], SettingsDialog]
"""Makes the settings dialog, parented to the window."""


class MainWindow(QMainWindow):
    def __init__(
        self,
        bridge: ChatBridge,
        parent: QWidget | None = None,
        *,
        confirm: Confirm = ask_to_confirm,
        ask: AskText = ask_text,
        settings_dialog: SettingsDialogFactory | None = None,
    ) -> None:
        """`confirm` and `ask` put questions to the user; `settings_dialog` None: no Settings button."""
        super().__init__(parent)
        self._bridge = bridge
        self._confirm = confirm
        self._make_settings_dialog = settings_dialog
        self.settings_dialog: SettingsDialog | None = None
        """The settings dialog last opened."""
        self.whole_text: LongTextDialog | None = None
        """The dialog showing a long turn's whole text, last opened."""
        self.setWindowTitle("Parley")
        self.setAccessibleName("Parley")
        self.setWindowIcon(state_icon(VoiceStatus.LISTENING))
        self.banner_row = ProblemBanner(SPACING)
        self.banner, self.dismiss_button = self.banner_row.label, self.banner_row.dismiss_button
        self.folders = FolderBar(bridge, ask=ask, confirm=confirm)
        self._make_chat_list(bridge)
        self._make_buttons()
        self.move_menu = MoveMenu(bridge, self.folders, lambda: bridge.current_chat_id, ask=ask)
        self.move_button.setMenu(self.move_menu)
        self.transcript = TranscriptView()
        self.memory = MemoryBridge(bridge)
        self.memory_page = MemoryPage(self.memory, confirm=confirm)
        self.pages = QTabWidget()
        self.pages.setAccessibleName("Chat and memory")
        self.memory_switch = QCheckBox("Long-term memory in this c&hat")
        self.memory_switch.setAccessibleName("Long-term memory in this chat")
        self.memory_switch.setToolTip("Off: conversations here neither use nor save memories about you")
        self.memory_switch.setEnabled(False)
        chat_page = QWidget()
        chat_layout = QVBoxLayout(chat_page)
        chat_layout.setContentsMargins(0, 0, 0, 0)
        chat_layout.addWidget(self.memory_switch)
        chat_layout.addWidget(self.transcript, 1)
        self.pages.addTab(chat_page, "&Chat")
        self.pages.addTab(self.memory_page, "Memor&y")
        self.voice = VoiceControls(self)
        self.voice.add_to(self.statusBar())
        self.timers = TimersPanel()
        self.confirmations = ConfirmationsPanel()
        self._lay_out()
        self._bind(bridge)

    def _make_chat_list(self, bridge: ChatBridge) -> None:
        self.search_box = QLineEdit()
        self.search_box.setPlaceholderText("Find a chat by what it was about…")
        self.search_box.setAccessibleName("Search chats")
        self.search_box.setAccessibleDescription("Describe a chat in your own words and press Enter")
        self.search_box.setClearButtonEnabled(True)
        self.search_status = text_line("Search result", hidden=True)
        self.chats = ChatListModel(bridge, self)
        self.chat_list = QListView()
        self.chat_list.setModel(self.chats)
        self.chat_list.setAccessibleName("Chats")
        self.chat_list.setAccessibleDescription("Chats by most recent activity; F2 renames, Delete deletes")
        self.chat_list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.chat_list.setEditTriggers(
            QAbstractItemView.EditTrigger.EditKeyPressed | QAbstractItemView.EditTrigger.DoubleClicked
        )
        # Every row is two lines of text: uniform sizes let Qt skip measuring 10,000 rows.
        self.chat_list.setUniformItemSizes(True)
        # A long title or preview ends in "…" within the pane, rather than widening the list.
        self.chat_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.chat_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.chat_list.setItemDelegate(ChatRowDelegate(self.chat_list))
        self._list_scroll = 0
        """The list's scroll position before a refresh replaced its rows."""

    def _make_buttons(self) -> None:
        # One worded button for the common act; the others are icons with tooltips, each with its shortcut.
        self.new_chat_button = icon_button("new", "New chat", "Start a new chat (Ctrl+N)", "&New chat")
        self.rename_button = icon_button("rename", "Rename chat", "Rename the selected chat (F2)")
        self.move_button = icon_button(
            "folder", "Move chat to a folder", "Put the selected chat in a folder, or take it out"
        )
        self.delete_button = icon_button("delete", "Delete chat", "Delete the selected chat (Delete)")
        self.settings_button = icon_button(
            "settings", "Settings", "Settings: keys, wake word, language, audio (Ctrl+,)"
        )
        if self._make_settings_dialog is None:
            self.settings_button.hide()  # not setVisible(True): on a widget without a parent yet, that opens a window
        self._enable_chat_buttons(None)

    def _lay_out(self) -> None:
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.setSpacing(SPACING - 4)
        left_layout.addWidget(self.folders)
        left_layout.addWidget(self.search_box)
        left_layout.addWidget(self.search_status)
        left_layout.addWidget(self.chat_list, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.new_chat_button)
        buttons.addWidget(self.rename_button)
        buttons.addWidget(self.move_button)
        buttons.addWidget(self.delete_button)
        buttons.addStretch(1)
        buttons.addWidget(self.settings_button)
        left_layout.addLayout(buttons)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setHandleWidth(SPACING)
        splitter.addWidget(left)
        splitter.addWidget(self.pages)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([320, 640])

        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(SPACING, SPACING, SPACING, 4)
        layout.setSpacing(SPACING)
        layout.addWidget(self.banner_row)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.timers)
        layout.addWidget(self.confirmations)
        layout.addLayout(self.voice.talk_row())
        self.setCentralWidget(central)
        self.resize(1000, 680)

        chain = [self.folders.chooser, self.folders.menu_button, self.search_box, self.chat_list]
        chain += [self.new_chat_button, self.rename_button, self.move_button, self.delete_button]
        chain += [self.settings_button, self.transcript, *self.timers.focus_chain(), *self.voice.focus_chain()]
        for first, second in itertools.pairwise(chain):
            self.setTabOrder(first, second)

    def _bind(self, bridge: ChatBridge) -> None:
        self.find_shortcut = QShortcut(QKeySequence.StandardKey.Find, self)
        self.find_shortcut.activated.connect(self.focus_search)
        self.new_chat_shortcut = QShortcut(QKeySequence.StandardKey.New, self)
        self.new_chat_shortcut.activated.connect(self.new_chat)
        self.delete_shortcut = QShortcut(QKeySequence.StandardKey.Delete, self.chat_list)
        self.delete_shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
        self.delete_shortcut.activated.connect(self.delete_current)
        if self._make_settings_dialog is not None:
            self.settings_shortcut = QShortcut(QKeySequence("Ctrl+,"), self)
            self.settings_shortcut.activated.connect(self.open_settings)
            self.settings_button.clicked.connect(self.open_settings)
        # What the parts do when used, and what they show of the bridge.
        self.folders.folder_chosen.connect(self.chats.show_folder)
        self.search_box.returnPressed.connect(self.run_search)
        self.new_chat_button.clicked.connect(self.new_chat)
        self.rename_button.clicked.connect(self.rename_current)
        self.delete_button.clicked.connect(self.delete_current)
        self.chat_list.selectionModel().currentChanged.connect(self.select_row_chat)
        self.chats.modelAboutToBeReset.connect(self.remember_list_scroll)
        self.chats.modelReset.connect(self.restore_list_scroll)
        self.chats.rowsInserted.connect(self.reselect_current)
        bridge.ready.connect(self.chats.refresh)
        bridge.ready.connect(self.memory_page.reload)
        self.memory.chat_memory_loaded.connect(self.show_chat_memory)
        self.memory_switch.clicked.connect(self.switch_chat_memory)
        bridge.chats_changed.connect(self.chats.refresh)
        bridge.chat_loaded.connect(self.show_loaded_chat)
        bridge.turn_spoken.connect(self.show_turn)
        self.voice.text_typed.connect(self.follow_typed)
        self.transcript.whole_text_requested.connect(self.show_whole_text)
        bridge.tool_used.connect(self.transcript.add_chip)
        bridge.current_chat_changed.connect(self.show_current_chat)
        bridge.chat_created.connect(self.select_created_chat)
        bridge.search_finished.connect(self.show_search_result)
        bridge.state_changed.connect(self.voice.show_state)
        bridge.muted_changed.connect(self.voice.mute_action.setChecked)
        bridge.level_changed.connect(self.voice.show_level)
        bridge.error.connect(self.banner_row.say)
        bridge.error_resolved.connect(self.banner_row.resolve)
        bridge.notice.connect(self.voice.show_notice)
        bridge.device_lost.connect(self.voice.show_device_lost)
        bridge.device_back.connect(self.voice.show_device_back)
        bridge.timers_changed.connect(self.timers.show_timers)
        bridge.timer_ringing.connect(self.timers.show_ringing)
        bridge.timer_stopped.connect(self.timers.show_stopped)
        bridge.timers_missed.connect(self.voice.show_notice)
        bridge.confirmation_asked.connect(self.confirmations.show_asked)
        bridge.confirmation_settled.connect(self.confirmations.show_settled)

    @Slot()
    def open_settings(self) -> None:
        """Show the settings dialog (window-modal); a saved change is announced in the status bar."""
        if self._make_settings_dialog is None:
            return
        if self.settings_dialog is not None:
            self.settings_dialog.deleteLater()
        self.settings_dialog = self._make_settings_dialog(self)
        self.settings_dialog.accepted.connect(self._on_settings_saved)
        self.settings_dialog.open()

    @Slot(str, str)
    def show_whole_text(self, speaker: str, text: str) -> None:
        """The whole of a turn the transcript shows shortened, a page at a time."""
        if self.whole_text is not None:
            self.whole_text.deleteLater()
        self.whole_text = LongTextDialog(f"{speaker}: the whole message", text, self)
        self.whole_text.open()

    @Slot()
    def _on_settings_saved(self) -> None:
        if self.settings_dialog is not None:
            self.statusBar().showMessage(self.settings_dialog.saved_note)

    @Slot()
    def new_chat(self) -> None:
        """A new chat, in the folder the list shows if it shows one."""
        folder = self.folders.chosen
        self._bridge.new_chat(folder if isinstance(folder, str) else None)

    @Slot()
    def focus_search(self) -> None:
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()

    @Slot()
    def run_search(self) -> None:
        query = self.search_box.text().strip()
        if query:
            self.search_status.setText(for_window(f"Searching for “{query}”…"))
            self.search_status.show()
            self._bridge.search(query)

    @property
    def banner_messages(self) -> tuple[str, ...]:
        """The problems the banner shows, oldest first."""
        return self.banner_row.messages

    @Slot()
    def rename_current(self) -> None:
        """Edit the selected chat's title in place; Enter saves, Escape cancels."""
        current = self.chat_list.currentIndex()
        if current.isValid():
            self.chat_list.setFocus(Qt.FocusReason.OtherFocusReason)
            self.chat_list.edit(current)

    @Slot()
    def delete_current(self) -> None:
        chat_id = self._bridge.current_chat_id
        if chat_id is None:
            return
        row = self.chats.row_of(chat_id)
        title = self.chats.data(self.chats.index(row), ChatRole.TITLE) if row is not None else "this chat"
        if self._confirm(self, f"Delete “{title}” and all its messages? This cannot be undone."):
            self._bridge.delete(chat_id)

    def _enable_chat_buttons(self, chat_id: UUID | None) -> None:
        for button in (self.rename_button, self.move_button, self.delete_button):
            button.setEnabled(chat_id is not None)

    @Slot(QModelIndex, QModelIndex)
    def select_row_chat(self, current: QModelIndex, _previous: QModelIndex) -> None:
        chat_id = self.chats.chat_id(current.row()) if current.isValid() else None
        if chat_id is not None and chat_id != self._bridge.current_chat_id:
            self._bridge.select_chat(chat_id)

    @Slot(object, bool)
    def show_chat_memory(self, chat_id: UUID, enabled: bool) -> None:
        if chat_id == self._bridge.current_chat_id:
            self.memory_switch.setChecked(enabled)
            self.memory_switch.setEnabled(True)

    @Slot(bool)
    def switch_chat_memory(self, enabled: bool) -> None:
        chat_id = self._bridge.current_chat_id
        if chat_id is not None:
            self.memory.set_chat_memory(chat_id, enabled)

    @Slot(object)
    def show_current_chat(self, chat_id: UUID | None) -> None:
        self._enable_chat_buttons(chat_id)
        self.memory_switch.setEnabled(False)  # until the chat's own setting arrives
        if chat_id is None:
            self.transcript.show_placeholder("No chat selected")
        else:
            self.memory.load_chat_memory(chat_id)
            self.transcript.show_placeholder("Loading…")
        self.reselect_current()

    @Slot()
    def remember_list_scroll(self) -> None:
        self._list_scroll = self.chat_list.verticalScrollBar().value()

    @Slot()
    def restore_list_scroll(self) -> None:
        """A refresh reloads at least the rows shown before it: the reader stays where they were."""
        self.chat_list.verticalScrollBar().setValue(self._list_scroll)
        self.reselect_current()

    @Slot()
    def reselect_current(self) -> None:
        """Keep the list's highlight on the bridge's current chat, when that chat is loaded."""
        chat_id = self._bridge.current_chat_id
        row = self.chats.row_of(chat_id) if chat_id is not None else None
        selection = self.chat_list.selectionModel()
        if row is None:
            return
        index = self.chats.index(row)
        if selection.currentIndex() != index:
            selection.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
            self.chat_list.scrollTo(index)

    @Slot(object)
    def show_loaded_chat(self, chat: Chat) -> None:
        self.transcript.show_chat(chat, self.chats.provisional_name(chat.id))

    @Slot(str)
    def follow_typed(self, _text: str) -> None:
        """The user sent a message: its turn and the answer come next, so the newest turn is shown."""
        self.transcript.follow_newest()

    @Slot(object)
    def show_turn(self, turn: Turn) -> None:
        """A turn of the running conversation; the first words said in a chat with no title name it until
        its title comes (made when the conversation is saved)."""
        self.transcript.add_live_turn(turn)
        chat = self.transcript.chat
        if chat is None or chat.title or turn.role != "user" or self.chats.provisional_name(chat.id):
            return
        name = provisional_title(turn.text)
        if name is not None:
            self.chats.name_provisionally(chat.id, name)
            self.transcript.show_chat(chat, name)

    @Slot(object)
    def select_created_chat(self, chat: Chat) -> None:
        self._bridge.select_chat(chat.id)

    @Slot(object)
    def show_search_result(self, result: SearchResult) -> None:
        if not result.hits:
            self.search_status.setText(for_window(f"No chat is about “{result.query}”."))
            return
        best = result.hits[0]
        others = ", ".join(hit.title or "New chat" for hit in result.hits[1:])
        text = f"Best match: {best.title or 'New chat'}"
        self.search_status.setText(for_window(f"{text}. Also close: {others}." if others else f"{text}."))
        self._bridge.select_chat(best.chat_id)
