"""The talk shortcut in the window and in Settings: pressed in a virtual X session it opens a conversation in the
real window's voice loop, Settings record another by pressing it and the window holds that one from the save on;
Settings say whether this desktop allows a shortcut, and refuse a key alone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.front.shortcut.talk import NO_DESKTOP, ON_X11
from app.runtime import Runtime
from tests.app.shortcut.x_session import SIZE, grabbed_by_another_client, press
from tests.fakes.gemini_live_scenario import (
    AfterAudio,
    CompleteTurn,
    ConnectionScript,
    InputTranscript,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.fakes.virtual_screen import virtual_screen
from tests.ui.conftest import TIMEOUT_MS, MakeSettings
from tests.ui.live_settings_window import DEVICES, Devices, close, feed, save, settings_of
from tests.ui.settings_dialog_parts import make_dialog, reload
from ui.app import open_window
from voice.audio.synthetic import silence


@pytest.fixture
def x_display(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A virtual X session, named in the environment Settings look at (Qt itself stays offscreen)."""
    with virtual_screen(SIZE) as name:
        monkeypatch.setenv("DISPLAY", name)
        yield name


def conversation(words: str) -> ConnectionScript:
    return script((AfterAudio(1_600), (InputTranscript("Hello?"), OutputTranscript(words), CompleteTurn())))


def test_the_shortcut_opens_a_conversation_and_the_one_saved_in_settings_replaces_it(
    qtbot: QtBot,
    runtime: Runtime,
    live_server: FakeGeminiLiveServer,
    parley: MakeSettings,
    x_display: str,
) -> None:
    live_server.script(conversation("Hi!"), conversation("Hi again!"))
    devices = Devices()
    window = open_window(
        parley("idle_seconds = 0.3\n"),
        runtime,
        tray_available=False,
        open_devices=devices.open,
        devices=lambda: DEVICES,
        environ={"DISPLAY": x_display},
    )
    qtbot.addWidget(window.main)
    states: list[str] = []
    window.bridge.state_changed.connect(states.append)
    try:
        qtbot.waitUntil(lambda: "sleeping" in states, timeout=TIMEOUT_MS)
        press(x_display, "Ctrl+Alt+Space")  # in whichever application has the focus
        qtbot.waitUntil(lambda: "listening" in states, timeout=TIMEOUT_MS)
        feed(runtime, devices.microphone, silence(2_000).pcm)
        qtbot.waitUntil(lambda: "Hi!" in window.main.transcript.toPlainText(), timeout=TIMEOUT_MS)
        qtbot.waitUntil(lambda: states[-1:] == ["sleeping"], timeout=TIMEOUT_MS)

        dialog = settings_of(window)
        assert dialog.talk_shortcut.text() == "Ctrl+Alt+Space"
        assert dialog.talk_shortcut.support.text() == ON_X11
        dialog.talk_shortcut.edit.setFocus()
        QTest.keyClick(
            dialog.talk_shortcut.edit,
            Qt.Key.Key_K,
            Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
        )
        assert dialog.talk_shortcut.text() == "Ctrl+Shift+K"
        save(dialog)
        assert dialog.saved_note == "Settings saved: they apply now."
        with grabbed_by_another_client(x_display, "Ctrl+Alt+Space"):
            pass  # let go: another application may have it now
        states.clear()
        press(x_display, "Ctrl+Shift+K")
        qtbot.waitUntil(lambda: "listening" in states, timeout=TIMEOUT_MS)
        feed(runtime, devices.microphone, silence(2_000).pcm)
        qtbot.waitUntil(lambda: "Hi again!" in window.main.transcript.toPlainText(), timeout=TIMEOUT_MS)
        assert window.main.banner_messages == ()
    finally:
        close(window)
        window.shortcut.close()


def test_without_a_desktop_settings_say_the_shortcut_cannot_work(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    dialog = make_dialog(qtbot, settings, runtime)  # an environment that names no display
    assert dialog.talk_shortcut.support.text() == NO_DESKTOP
    assert dialog.talk_shortcut.text() == "Ctrl+Alt+Space"


def test_settings_refuse_a_key_alone_and_save_no_shortcut_when_it_is_cleared(
    qtbot: QtBot, settings: Settings, runtime: Runtime
) -> None:
    dialog = make_dialog(qtbot, settings, runtime)
    dialog.talk_shortcut.edit.setFocus()
    QTest.keyClick(dialog.talk_shortcut.edit, Qt.Key.Key_Space)
    assert not dialog.save()
    assert dialog.error.text() == "Error: 'Space' would take that key from every application: add Ctrl, Alt or Meta"
    assert "talk_shortcut" not in settings.config_file.read_text(encoding="utf-8")

    dialog.talk_shortcut.edit.clear()
    assert dialog.save()
    assert reload(settings).talk_shortcut is None
