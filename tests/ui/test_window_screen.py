"""Looking at the screen from the window: the Look button asks the model in the user's words, the model's
call takes the (virtual, Xvfb) screen and shows it to the fake Live server, and the status bar and the tray
say "looking at your screen" while it is taken, then go back to the conversation's state."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.core.status import VoiceStatus
from app.runtime import Runtime
from languages.registry import table
from tests.fakes.gemini_live_scenario import (
    AfterText,
    AfterToolResponse,
    Call,
    CallTools,
    CompleteTurn,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.fakes.virtual_screen import virtual_screen
from tests.ui.conftest import TIMEOUT_MS, open_voice_window
from ui.tray.icon import Tray

ANSWER = "A terminal with a failed build."


@pytest.fixture
def display(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An X11 screen to take (the window itself draws offscreen)."""
    with virtual_screen("1600x900x24") as display:
        monkeypatch.setenv("DISPLAY", display)
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        yield display


def test_the_look_button_shows_the_screen_to_the_model_and_the_window_says_it_is_looking(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings, live_server: FakeGeminiLiveServer, display: str
) -> None:
    live_server.script(
        script(
            (AfterText(), (CallTools((Call("s-1", "look_at_screen"),)),)),
            (AfterToolResponse("s-1"), (OutputTranscript(ANSWER), CompleteTurn())),
        )
    )
    bridge, main, _voice = open_voice_window(qtbot, runtime, voice_settings)
    tray = Tray(main, main.voice.mute_action, close_to_tray=False, available=False)
    bridge.state_changed.connect(tray.show_state)
    shown: list[tuple[VoiceStatus, str, str]] = []  # each state, with what the status bar and the tray said of it
    bridge.state_changed.connect(
        lambda state: shown.append((state, main.voice.state_label.text(), tray.icon.toolTip()))
    )
    assert main.voice.look_button.isVisibleTo(main)
    QTest.mouseClick(main.voice.look_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: ANSWER in main.transcript.toPlainText(), timeout=TIMEOUT_MS)
    [sent] = live_server.connections
    assert sent.texts == [table("en")["screen"]["request"]]
    assert len(sent.video) == 1
    states = [state for state, _, _ in shown]
    looking = states.index(VoiceStatus.LOOKING)
    assert states[looking - 1] == states[looking + 1] == VoiceStatus.THINKING  # the sign, then back
    assert states.count(VoiceStatus.LOOKING) == 1
    assert shown[looking][1:] == ("Assistant: looking at your screen", "Parley: looking at your screen")
    assert "looking" not in main.voice.state_label.text()
    assert "Looked at the screen at" in main.transcript.toPlainText()  # the chat's note


def test_with_screen_looking_off_there_is_no_look_button(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings
) -> None:
    _bridge, main, _voice = open_voice_window(qtbot, runtime, replace(voice_settings, look_at_screen=False))
    assert not main.voice.look_button.isVisibleTo(main)
