"""What the window says is true: tool notes under their own turn, the newest turn in view, a new chat's
provisional name, dates and folders in the list, one problem a line in the banner, and settings shown as
loaded. Each through the real window on a real SQLite store, news posted as the voice loop posts it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from uuid import UUID

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.account.supabase_reachability import BACK
from app.config.settings import Settings, load_settings
from app.controller import ChatController
from app.core.events import Notice, Problem, ProblemResolved, ToolActivity, TurnSpoken
from app.core.status import OFFLINE_NOTICE, VoiceStatus
from app.runtime import Runtime
from chats.models import Turn, utc_now
from tests.ui.chat_window import open_window, select_row, three_chats
from tests.ui.conftest import TIMEOUT_MS, Seed
from ui.app import open_window as open_parley
from ui.bridge import ChatBridge
from ui.chat.chat_list import format_when, provisional_title
from ui.settings.dialog import SettingsDialog, as_saved
from ui.tray.status import state_words

NOW = datetime(2026, 11, 27, 16, 0, tzinfo=UTC)  # a Friday


def saved_memory(chat_id: UUID, call_id: str, content: str, *, done: bool) -> ToolActivity:
    args = {"content": content}
    result = {"success": True, "content": content, "memoryId": "m", "category": "preference"} if done else None
    return ToolActivity(chat_id, call_id, "save_memory", args, result)


def test_a_reused_call_id_keeps_each_note_under_its_own_turn(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    ids = seed(three_chats)
    assert isinstance(ids, dict)
    window = open_window(qtbot, bridge)
    trip = ids["Trip"]
    select_row(qtbot, window, trip)
    # Two conversations in the same chat; the service numbers tool calls afresh in each.
    for said, content in (("I like window seats.", "User likes window seats"), ("I'm vegan.", "User is vegan")):
        bridge.post(TurnSpoken(trip, Turn(role="user", text=said, at=utc_now())))
        bridge.post(saved_memory(trip, "call-1", content, done=False))
        bridge.post(saved_memory(trip, "call-1", content, done=True))
    qtbot.waitUntil(lambda: "Saved to memory: User is vegan" in window.transcript.toPlainText(), timeout=TIMEOUT_MS)
    text = window.transcript.toPlainText()
    assert "Saving to memory…" not in text
    first, second = text.index("Saved to memory: User likes window seats"), text.index("Saved to memory: User is vegan")
    assert text.index("I like window seats.") < first < text.index("I'm vegan.") < second
    assert window.transcript.chip_texts(trip) == [
        (3, "Saved to memory: User likes window seats"),
        (4, "Saved to memory: User is vegan"),
    ]


def test_the_newest_turn_is_in_view_at_launch_and_after_typing(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    ids = seed(three_chats)
    assert isinstance(ids, dict)
    window = open_window(qtbot, bridge)
    window.resize(700, 400)  # the long chat does not fit
    home = ids["Home works"]
    select_row(qtbot, window, home)
    bar = window.transcript.verticalScrollBar()
    QApplication.processEvents()  # Qt lays the document out after `setHtml` returns
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum(), timeout=TIMEOUT_MS)

    bar.setValue(0)  # the reader scrolled up
    assert not window.transcript.following
    window.voice.text_box.setText("And the grout colour?")
    window.voice.text_box.setEnabled(True)
    window.voice.send_text()
    bridge.post(TurnSpoken(home, Turn(role="user", text="And the grout colour?", at=utc_now())))
    bridge.post(TurnSpoken(home, Turn(role="model", text="Light grey hides dirt best.", at=utc_now())))
    qtbot.waitUntil(lambda: "Light grey hides dirt" in window.transcript.toPlainText(), timeout=TIMEOUT_MS)
    QApplication.processEvents()
    qtbot.waitUntil(lambda: bar.value() == bar.maximum(), timeout=TIMEOUT_MS)


def test_a_new_chat_is_named_by_its_first_words_until_it_has_a_title(
    qtbot: QtBot, bridge: ChatBridge, seed: Seed
) -> None:
    async def one_new_chat(controller: ChatController) -> UUID:
        return (await controller.new_chat()).id

    chat_id = seed(one_new_chat)
    assert isinstance(chat_id, UUID)
    window = open_window(qtbot, bridge)
    select_row(qtbot, window, chat_id)
    assert str(window.chats.data(window.chats.index(0), Qt.ItemDataRole.DisplayRole)).startswith("New chat\n")
    said = "what tiles should we put on the bathroom wall this spring?"
    bridge.post(TurnSpoken(chat_id, Turn(role="user", text=said, at=utc_now())))
    name = "What tiles should we put on…"
    qtbot.waitUntil(lambda: window.transcript.toPlainText().startswith(name), timeout=TIMEOUT_MS)
    assert str(window.chats.data(window.chats.index(0), Qt.ItemDataRole.DisplayRole)).startswith(f"{name}\n")
    assert said in window.transcript.toPlainText()
    assert provisional_title("Hello.") == "Hello"
    assert provisional_title("   ") is None


def test_the_list_says_when_by_the_day_and_shows_the_folder(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    local = NOW.astimezone()
    assert format_when(NOW - timedelta(minutes=5), NOW) == (NOW - timedelta(minutes=5)).astimezone().strftime("%H:%M")
    assert format_when(NOW - timedelta(days=1), NOW) == "Yesterday"
    assert format_when(NOW - timedelta(days=3), NOW) == (local - timedelta(days=3)).strftime("%A")
    assert format_when(NOW - timedelta(days=10), NOW) == "Nov 17"
    assert format_when(NOW - timedelta(days=400), NOW) == "2025-10-23"

    async def in_a_folder(controller: ChatController) -> UUID:
        chat = await controller.new_chat(title="Tiles")
        folder = await controller.create_folder("Home")
        await controller.move_chat(chat.id, folder.id)
        return chat.id

    chat_id = seed(in_a_folder)
    window = open_window(qtbot, bridge)
    row = window.chats.row_of(chat_id)  # type: ignore[arg-type]
    assert row is not None
    qtbot.waitUntil(lambda: "▸ Home" in str(window.chats.data(window.chats.index(row))), timeout=TIMEOUT_MS)
    assert "in Home" in str(window.chats.data(window.chats.index(row), Qt.ItemDataRole.AccessibleTextRole))


def test_the_banner_says_one_problem_a_line_and_notices_stay_whole(
    qtbot: QtBot, bridge: ChatBridge, seed: Seed
) -> None:
    seed(three_chats)
    window = open_window(qtbot, bridge)
    bridge.post(Problem("No microphone found."))
    bridge.post(Problem("No speaker found."))
    bridge.post(Problem("No microphone found."))  # said again: once
    qtbot.waitUntil(lambda: len(window.banner_messages) == 2, timeout=TIMEOUT_MS)
    assert window.banner.text() == "No microphone found.\nNo speaker found."
    bridge.post(ProblemResolved("No microphone found."))
    qtbot.waitUntil(lambda: window.banner.text() == "No speaker found.", timeout=TIMEOUT_MS)
    assert not window.banner_row.isHidden()

    bridge.post(Notice(OFFLINE_NOTICE))
    qtbot.waitUntil(lambda: not window.voice.notice.isHidden(), timeout=TIMEOUT_MS)
    assert window.voice.notice.text() == "Offline voice: a small local model (SmolLM2-135M) answers."
    bridge.post(Notice(BACK))
    qtbot.waitUntil(lambda: window.voice.notice.text() == BACK, timeout=TIMEOUT_MS)


def test_without_a_microphone_the_states_say_only_typing_works() -> None:
    assert state_words(VoiceStatus.LISTENING) == "listening"
    assert state_words(VoiceStatus.LISTENING, microphone=False) == "waiting for a typed message"
    assert state_words(VoiceStatus.SLEEPING, microphone=False) == "no microphone, type to talk"
    assert state_words(VoiceStatus.RESPONDING, microphone=False) == "speaking"


def test_settings_show_what_is_loaded_and_the_language(
    qtbot: QtBot, settings: Settings, runtime: Runtime, tmp_path: Path
) -> None:
    settings.config_file.write_text('voice_model = "gemini"\nwake_threshold = 0.425\nlanguage = "it"\n', "utf-8")
    loaded = as_saved(settings, env={})
    dialog = SettingsDialog(loaded, runtime, devices=list, env={})
    qtbot.addWidget(dialog)
    assert dialog.threshold.value() == 0.425  # not rounded to 0.43
    assert dialog.language.currentData() == "it"
    assert dialog.changes() == {}
    assert as_saved(settings, env={"PARLEY_WAKE_THRESHOLD": "0.97"}).wake_threshold == 0.97
    shown = SettingsDialog(as_saved(settings, env={"PARLEY_WAKE_THRESHOLD": "0.97"}), runtime, devices=list, env={})
    qtbot.addWidget(shown)
    assert shown.threshold.value() == 0.97  # in force, not clamped to 0.95

    saved: list[Settings] = []
    dialog.saved.connect(saved.append)
    dialog.language.setCurrentIndex(dialog.language.findData("es"))
    assert dialog.save()
    assert (
        load_settings({"data_dir": str(settings.data_dir), "config_file": str(settings.config_file)}, env={}).language
        == "es"
    )
    assert [s.language for s in saved] == ["es"]


def test_a_saved_tray_setting_applies_at_once_and_the_dialog_shows_it_next_time(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    opened = open_parley(settings, runtime, tray_available=True)
    qtbot.addWidget(opened.main)
    try:
        assert opened.tray.keeps_running
        opened.main.open_settings()
        dialog = opened.main.settings_dialog
        assert isinstance(dialog, SettingsDialog)
        dialog.close_to_tray.setChecked(False)
        assert dialog.save()
        assert not opened.tray.keeps_running
        opened.main.open_settings()
        again = opened.main.settings_dialog
        assert isinstance(again, SettingsDialog)
        assert not again.close_to_tray.isChecked()  # the saved value, not the one Parley started with
        again.reject()
    finally:
        QApplication.instance().setQuitOnLastWindowClosed(True)  # type: ignore[union-attr]
