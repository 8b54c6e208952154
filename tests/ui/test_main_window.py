"""The window against the real controller on a temporary SQLite store: the chat list, the transcript, search,
new, rename and delete, the keyboard and accessible names. Its error banners: test_window_errors.py; the
runtime thread: test_window_threads.py."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QAbstractItemView, QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from app.controller import ChatController
from chats.compaction import TAIL_SIZE
from tests.ui.chat_window import TILES, open_window, select_row, shown, three_chats
from tests.ui.conftest import TIMEOUT_MS, Seed
from ui.bridge import ChatBridge
from ui.chat.chat_list import ChatRole
from ui.chat.transcript import EARLIER, EARLIER_LINK, summarised_turns
from ui.main_window import MainWindow


def test_selecting_a_chat_shows_its_transcript(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    ids = seed(three_chats)
    assert isinstance(ids, dict)
    window = open_window(qtbot, bridge)
    select_row(qtbot, window, ids["Home works"])

    assert bridge.current_chat_id == ids["Home works"]
    text = window.transcript.toPlainText()
    assert "We are renovating and need new cabinets" in text
    assert "Is <b>bold</b> fine?" in text  # shown, not interpreted
    assert "You" in text
    assert "Parley" in text
    chat = window.transcript.chat
    assert chat is not None and chat.summary is not None
    folded = summarised_turns(chat)
    assert folded == len(TILES) + 3 - TAIL_SIZE
    assert EARLIER in text and f"{folded} messages (show them)" in text
    assert chat.summary.text.splitlines()[0] in text  # what Parley remembers is shown
    in_summary = chat.summary.text.count("EARLY-DETAIL-")
    recent = len(TILES) - folded  # tile turns still in the verbatim tail
    assert text.count("EARLY-DETAIL-") == in_summary + recent  # the summarised messages start folded
    window.transcript.anchorClicked.emit(QUrl(EARLIER_LINK))
    assert window.transcript.earlier_expanded
    unfolded = window.transcript.toPlainText()
    assert unfolded.count("EARLY-DETAIL-") == in_summary + len(TILES)
    assert unfolded.index("(EARLY-DETAIL-0)") < unfolded.index("(EARLY-DETAIL-29)") < unfolded.index("Marco the")


def test_arrow_keys_move_through_the_chats(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    ids = seed(three_chats)
    assert isinstance(ids, dict)
    window = open_window(qtbot, bridge)
    qtbot.waitUntil(lambda: window.chats.rowCount() == 3, timeout=TIMEOUT_MS)
    select_row(qtbot, window, ids["Taxes"])  # the most recent: the first row
    window.chat_list.setFocus()
    QTest.keyClick(window.chat_list, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: shown(window) == ids["Trip"], timeout=TIMEOUT_MS)


def test_search_finds_a_chat_by_meaning(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    ids = seed(three_chats)
    assert isinstance(ids, dict)
    window = open_window(qtbot, bridge)
    window.focus_search()
    QTest.keyClicks(window.search_box, "remodeling the kitchen")
    with qtbot.waitSignal(bridge.search_finished, timeout=TIMEOUT_MS):
        window.run_search()
    qtbot.waitUntil(lambda: shown(window) == ids["Home works"], timeout=TIMEOUT_MS)
    assert bridge.current_chat_id == ids["Home works"]
    current = window.chat_list.currentIndex()
    assert current.data(ChatRole.ID) == ids["Home works"]
    assert "Best match: Home works" in window.search_status.text()


def test_new_chat_adds_a_row_and_selects_it(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    seed(three_chats)
    window = open_window(qtbot, bridge)
    qtbot.waitUntil(lambda: window.chats.rowCount() == 3, timeout=TIMEOUT_MS)
    with qtbot.waitSignal(bridge.chat_created, timeout=TIMEOUT_MS) as created:
        window.new_chat_button.click()
    qtbot.waitUntil(lambda: window.chats.rowCount() == 4, timeout=TIMEOUT_MS)
    new_id = created.args[0].id if created.args else None
    qtbot.waitUntil(lambda: shown(window) == new_id, timeout=TIMEOUT_MS)
    assert window.chat_list.currentIndex().data(ChatRole.ID) == new_id
    assert "No messages yet" in window.transcript.toPlainText()


def test_rename_in_place_and_delete(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    ids = seed(three_chats)
    assert isinstance(ids, dict)
    questions: list[str] = []

    def agree(_parent: QWidget, question: str) -> bool:
        questions.append(question)
        return True

    window = MainWindow(bridge, confirm=agree)
    qtbot.addWidget(window)
    window.show()
    assert not window.rename_button.isEnabled()  # nothing selected yet
    bridge.open()
    qtbot.waitUntil(lambda: window.chats.rowCount() == 3, timeout=TIMEOUT_MS)
    select_row(qtbot, window, ids["Trip"])
    assert window.rename_button.isEnabled()

    index = window.chat_list.currentIndex()
    assert window.chats.flags(index) & Qt.ItemFlag.ItemIsEditable
    assert window.chats.data(index, Qt.ItemDataRole.EditRole) == "Trip"
    with qtbot.waitSignal(bridge.chats_changed, timeout=TIMEOUT_MS):
        assert window.chats.setData(index, "  Japan   in April ")
    assert window.chats.data(index, ChatRole.TITLE) == "Japan in April"  # shown at once
    qtbot.waitUntil(lambda: "Japan in April" in window.transcript.toPlainText(), timeout=TIMEOUT_MS)
    for refused in ("   ", "x" * 10_000):  # blank, or longer than a row can show: undone as Escape would
        assert not window.chats.setData(index, refused)
        assert window.chats.data(index, ChatRole.TITLE) == "Japan in April"

    with qtbot.waitSignal(bridge.chats_changed, timeout=TIMEOUT_MS):
        window.delete_button.click()
    assert questions == ["Delete “Japan in April” and all its messages? This cannot be undone."]
    qtbot.waitUntil(lambda: window.chats.rowCount() == 2, timeout=TIMEOUT_MS)
    assert window.chats.row_of(ids["Trip"]) is None
    assert bridge.current_chat_id is None
    assert "No chat selected" in window.transcript.toPlainText()
    assert not window.delete_button.isEnabled()


def test_keyboard_shortcuts_and_accessible_names(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    seed(three_chats)
    window = open_window(qtbot, bridge)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=TIMEOUT_MS)
    window.chat_list.setFocus()
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(window.search_box.hasFocus, timeout=TIMEOUT_MS)
    with qtbot.waitSignal(bridge.chat_created, timeout=TIMEOUT_MS):
        QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.chats.rowCount() == 4, timeout=TIMEOUT_MS)

    controls = [
        *window.findChildren(QAbstractButton),
        *window.findChildren(QLineEdit),
        *window.findChildren(QAbstractItemView),
        window.transcript,
        window.voice.state_label,
        window.banner,
    ]
    unnamed = [type(control).__name__ for control in controls if control.isVisible() and not control.accessibleName()]
    assert unnamed == []


async def many_chats(controller: ChatController) -> None:
    for number in range(120):
        await controller.new_chat(title=f"Chat {number}")


def test_a_refresh_keeps_the_list_where_the_reader_was(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    seed(many_chats)
    window = open_window(qtbot, bridge)
    qtbot.waitUntil(lambda: window.chats.rowCount() == 100, timeout=TIMEOUT_MS)
    bar = window.chat_list.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    position = bar.value()
    assert position > 0
    with qtbot.waitSignal(window.chats.modelReset, timeout=TIMEOUT_MS):
        bridge.chats_changed.emit()
    assert bar.value() == position


def test_memory_is_switched_off_and_on_for_the_selected_chat(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    ids = seed(three_chats)
    assert isinstance(ids, dict)
    window = open_window(qtbot, bridge)
    select_row(qtbot, window, ids["Trip"])
    qtbot.waitUntil(window.memory_switch.isEnabled, timeout=TIMEOUT_MS)
    assert window.memory_switch.isChecked()  # on by default
    with qtbot.waitSignal(window.memory.chat_memory_loaded, timeout=TIMEOUT_MS):
        window.memory_switch.click()
    assert not window.memory_switch.isChecked()
    select_row(qtbot, window, ids["Taxes"])
    qtbot.waitUntil(lambda: window.memory_switch.isEnabled() and window.memory_switch.isChecked(), timeout=TIMEOUT_MS)
    select_row(qtbot, window, ids["Trip"])  # the switch is the chat's own, kept in the store
    qtbot.waitUntil(
        lambda: window.memory_switch.isEnabled() and not window.memory_switch.isChecked(), timeout=TIMEOUT_MS
    )


def test_a_row_shows_its_title_over_its_time_and_preview(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    seed(three_chats)
    window = open_window(qtbot, bridge)
    line = window.chat_list.fontMetrics().height()
    row = window.chat_list.sizeHintForRow(0)
    assert 2 * line <= row < 3 * line
    image = window.chat_list.viewport().grab().toImage()
    assert not image.isNull()  # painting every visible row goes through the delegate without an error


def test_every_visible_mnemonic_is_unique(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    """Alt+letter reaches one control each: two controls on one letter would make the key cycle between them."""
    seed(three_chats)
    window = open_window(qtbot, bridge)
    for page in range(window.pages.count()):  # the chat page, then the memory page
        window.pages.setCurrentIndex(page)
        texts = [button.text() for button in window.findChildren(QAbstractButton) if button.isVisible()]
        texts += [window.pages.tabText(index) for index in range(window.pages.count())]
        letters = [text[text.index("&") + 1].lower() for text in texts if "&" in text.replace("&&", "")]
        assert len(letters) == len(set(letters)), sorted(letters)
