"""The window against the real controller on a temporary SQLite store."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime
from uuid import UUID, uuid4

from PySide6.QtCore import QObject, Qt, QTimer, QUrl, Slot
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QAbstractItemView, QApplication, QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.controller import ChatController
from app.front.events import ChatSaved, Problem, ProblemResolved, StatusChanged, TurnSpoken, VoiceInChat
from app.front.status import VoiceStatus
from app.runtime import THREAD_NAME, Runtime
from app.wiring import store_path
from chats.compaction import TAIL_SIZE
from chats.models import Turn, utc_now
from chats.transfer import ImportedChat
from tests.ui.conftest import TIMEOUT_MS, Seed
from ui.app import run_window
from ui.bridge import ChatBridge
from ui.chat_list import ChatRole
from ui.main_window import MainWindow
from ui.transcript import EARLIER, EARLIER_LINK, summarised_turns

AT = datetime(2026, 3, 4, 9, 30, tzinfo=UTC)

RENOVATION = [
    "We are renovating the house and the cooking area comes first.",
    "Start with the cabinets: oak fronts, soft-close hinges.",
    "The countertops will be quartz, 3 cm thick.",
    "The backsplash tiles: white, 10 by 10.",
    "The plumber moves the sink under the window on Monday.",
    "The electrician adds six spotlights above the counter.",
    "We chose an induction hob and a built-in oven.",
    "The floor gets large grey porcelain tiles.",
    "The fridge goes in a tall cabinet next to the pantry.",
    "Paint the walls a warm off-white after the tiling.",
]
TILES = [
    Turn(role="user" if i % 2 == 0 else "model", text=f"{RENOVATION[i % len(RENOVATION)]} (EARLY-DETAIL-{i})")
    for i in range(30)
]
"""Enough turns for the chat to be compacted on import: these become the summarised, folded ones."""

CHATS = {
    "Home works": [
        *TILES,
        Turn(role="user", text="We are renovating and need new cabinets and countertops.", at=AT),
        Turn(role="model", text="Oak or walnut? Is <b>bold</b> fine?", at=AT),
        Turn(role="user", text="Marco the contractor starts tiling on March 3rd, budget 18,500 euros."),
    ],
    "Trip": [
        Turn(role="user", text="I'm planning a two-week holiday in Japan next April."),
        Turn(role="model", text="Kyoto or Tokyo first?"),
    ],
    "Taxes": [
        Turn(role="user", text="Can I deduct my home office expenses as a freelancer?"),
        Turn(role="model", text="Often, yes."),
    ],
}


async def three_chats(controller: ChatController) -> dict[str, UUID]:
    reports = await controller.import_chats([ImportedChat(title, None, tuple(turns)) for title, turns in CHATS.items()])
    return {title: report.chat_id for title, report in zip(CHATS, reports, strict=True)}


def open_window(qtbot: QtBot, bridge: ChatBridge) -> MainWindow:
    window = MainWindow(bridge)
    qtbot.addWidget(window)
    window.show()
    bridge.open()
    qtbot.waitUntil(lambda: window.chats.rowCount() > 0, timeout=TIMEOUT_MS)
    return window


def select_row(qtbot: QtBot, window: MainWindow, chat_id: UUID) -> None:
    row = window.chats.row_of(chat_id)
    assert row is not None
    window.chat_list.setCurrentIndex(window.chats.index(row))
    qtbot.waitUntil(lambda: shown(window) == chat_id, timeout=TIMEOUT_MS)


def shown(window: MainWindow) -> UUID | None:
    chat = window.transcript.chat
    return chat.id if chat else None


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


def test_a_corrupt_store_shows_an_error_banner(qtbot: QtBot, bridge: ChatBridge, settings: Settings) -> None:
    path = store_path(settings)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database " * 200)
    window = MainWindow(bridge)
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(bridge.error, timeout=TIMEOUT_MS):
        bridge.open()
    assert window.banner.isVisible()
    assert "is damaged" in window.banner.text() and "parley chats repair" in window.banner.text()
    window.new_chat_button.click()  # requests after the failure neither hang nor pile up errors
    assert window.chats.rowCount() == 0
    window.dismiss_button.click()
    assert not window.banner.isVisible()


def test_a_resolved_error_takes_its_banner_down_and_no_other(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    seed(three_chats)
    window = open_window(qtbot, bridge)
    with qtbot.waitSignal(bridge.error, timeout=TIMEOUT_MS):
        bridge.post(Problem("Supabase cannot be reached."))
    with qtbot.waitSignal(bridge.error_resolved, timeout=TIMEOUT_MS):
        bridge.post(ProblemResolved("Supabase cannot be reached."))
    assert not window.banner.isVisible()
    with qtbot.waitSignal(bridge.error, timeout=TIMEOUT_MS):
        bridge.post(Problem("The microphone is gone."))
    with qtbot.waitSignal(bridge.error_resolved, timeout=TIMEOUT_MS):
        bridge.post(ProblemResolved("Supabase cannot be reached."))
    assert window.banner.isVisible()
    assert "microphone" in window.banner.text()


def test_a_deleted_chat_reports_its_error(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    ids = seed(three_chats)
    assert isinstance(ids, dict)
    window = open_window(qtbot, bridge)
    with qtbot.waitSignal(bridge.chats_changed, timeout=TIMEOUT_MS):
        bridge.delete(ids["Trip"])
    with qtbot.waitSignal(bridge.error, timeout=TIMEOUT_MS):
        bridge.select_chat(ids["Trip"])
    assert window.banner.isVisible()
    assert str(ids["Trip"]) in window.banner.text()


def test_a_reply_in_the_chat_the_voice_moved_to_waits_for_that_chats_transcript(
    qtbot: QtBot, bridge: ChatBridge, seed: Seed, runtime: Runtime
) -> None:
    ids = seed(three_chats)
    assert isinstance(ids, dict)
    window = open_window(qtbot, bridge)
    bridge.select_chat(ids["Taxes"])
    qtbot.waitUntil(lambda: shown(window) == ids["Taxes"], timeout=TIMEOUT_MS)
    drawn_in: list[UUID | None] = []
    bridge.turn_spoken.connect(lambda _turn: drawn_in.append(shown(window)))
    reply = Turn(role="model", text="Here is your trip chat.", at=utc_now(), id=uuid4())

    async def switch_and_answer() -> None:  # the reply comes before the trip chat's transcript has loaded
        bridge.post(VoiceInChat(ids["Trip"]))
        bridge.post(TurnSpoken(ids["Trip"], reply))

    runtime.submit(switch_and_answer()).result(timeout=5)
    qtbot.waitUntil(lambda: "Here is your trip chat." in window.transcript.toPlainText(), timeout=TIMEOUT_MS)
    assert shown(window) == ids["Trip"]
    assert drawn_in == [ids["Trip"]]  # never drawn under the taxes chat still on screen


def test_the_voice_loop_reaches_the_window_from_its_thread(
    qtbot: QtBot, bridge: ChatBridge, seed: Seed, runtime: Runtime, settings: Settings
) -> None:
    ids = seed(three_chats)
    assert isinstance(ids, dict)
    window = open_window(qtbot, bridge)
    emitted_on: list[str] = []
    bridge.state_changed.connect(lambda _state: emitted_on.append(threading.current_thread().name))

    async def switch_and_listen() -> None:
        bridge.post(VoiceInChat(ids["Trip"]))
        bridge.post(StatusChanged(VoiceStatus.LISTENING))

    runtime.submit(switch_and_listen()).result(timeout=5)
    qtbot.waitUntil(lambda: shown(window) == ids["Trip"], timeout=TIMEOUT_MS)
    assert window.voice.state_label.text() == "Assistant: listening"
    assert emitted_on == [threading.main_thread().name]  # public signals come from the GUI thread only
    assert window.chat_list.currentIndex().data(ChatRole.ID) == ids["Trip"]

    async def speak() -> None:
        bridge.post(TurnSpoken(ids["Trip"], Turn(role="user", text="Let's add <i>Osaka</i>.", at=utc_now())))
        bridge.post(TurnSpoken(ids["Taxes"], Turn(role="user", text="Not shown: another chat.", at=utc_now())))

    runtime.submit(speak()).result(timeout=5)
    qtbot.waitUntil(lambda: "Let's add <i>Osaka</i>." in window.transcript.toPlainText(), timeout=TIMEOUT_MS)
    assert "Not shown" not in window.transcript.toPlainText()

    async def save_the_turn() -> None:
        # A second connection, as the voice loop's own store would be: the window reloads on the signal.
        from chats.sqlite import SqliteChatStore

        store = await SqliteChatStore.open(store_path(settings), settings.user_id)
        try:
            await store.append(ids["Trip"], [Turn(role="user", text="Let's add <i>Osaka</i>.")])
        finally:
            await store.close()
        bridge.post(ChatSaved(ids["Trip"]))

    runtime.submit(save_the_turn()).result(timeout=TIMEOUT_MS / 1000)
    qtbot.waitUntil(lambda: len(loaded_history(window)) == 3, timeout=TIMEOUT_MS)
    assert window.transcript.toPlainText().count("Osaka") == 1  # saved, no longer shown as waiting too
    qtbot.waitUntil(lambda: window.chats.data(window.chats.index(0), ChatRole.ID) == ids["Trip"], timeout=TIMEOUT_MS)


def loaded_history(window: MainWindow) -> tuple[Turn, ...]:
    chat = window.transcript.chat
    return chat.full_history if chat else ()


def test_asyncio_is_not_running_on_the_gui_thread() -> None:
    """The window never needs an event loop of its own: everything asynchronous is on the runtime."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise AssertionError("a loop runs on the GUI thread")


class WindowCloser(QObject):
    """Closes `run_window`'s window once it shows the seeded chats, or at the deadline: never a hang."""

    def __init__(self, rows: int) -> None:
        super().__init__()
        self.rows = rows
        self.saw_chats = False
        self.poll = QTimer(self)
        self.poll.timeout.connect(self.check)
        self.poll.start(20)
        QTimer.singleShot(TIMEOUT_MS, self.close_all)

    @Slot()
    def check(self) -> None:
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, MainWindow) and widget.isVisible() and widget.chats.rowCount() == self.rows:
                self.saw_chats = True
                widget.close()

    @Slot()
    def close_all(self) -> None:
        QApplication.closeAllWindows()


def test_run_window_shows_the_chats_and_stops_cleanly_when_closed(
    qapp: QApplication, settings: Settings, seed: Seed
) -> None:
    seed(three_chats)
    closer = WindowCloser(rows=3)
    assert run_window(settings) == 0
    closer.poll.stop()
    assert closer.saw_chats
    assert not [thread for thread in threading.enumerate() if thread.name == THREAD_NAME]


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
