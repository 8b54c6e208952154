"""The window and the runtime thread: the voice loop's events reach the window from its thread and are drawn in
the right chat; no event loop on the GUI thread; `run_window` shows the chats and stops cleanly when closed."""

from __future__ import annotations

import asyncio
import threading
from uuid import UUID, uuid4

from PySide6.QtCore import QObject, QTimer, Slot
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.core.events import ChatSaved, StatusChanged, TurnSpoken, VoiceInChat
from app.core.status import VoiceStatus
from app.runtime import THREAD_NAME, Runtime
from app.wiring import store_path
from chats.models import Turn, utc_now
from tests.ui.chat_window import open_window, shown, three_chats
from tests.ui.conftest import TIMEOUT_MS, Seed
from ui.app import run_window
from ui.bridge import ChatBridge
from ui.chat.chat_list import ChatRole
from ui.main_window import MainWindow


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
        from chats.sqlite.store import SqliteChatStore

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
