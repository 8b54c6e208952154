"""A held tool call answered by a click: the panel on its own, and in the window with the fake Live server
calling a destructive tool of the real stdio MCP test server, allowed by Allow and refused by Deny."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.core.events import ConfirmationAsked
from app.runtime import Runtime
from tests.app.mcp import fake_server, write_mcp_json
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
from tests.ui.conftest import TIMEOUT_MS, open_voice_window, settings_on_live_server
from ui.voice.confirmations import ConfirmationsPanel

CLICK = Qt.MouseButton.LeftButton


def test_the_panel_shows_a_held_call_and_answers_it_once(qtbot: QtBot) -> None:
    panel = ConfirmationsPanel()
    qtbot.addWidget(panel)
    assert panel.isHidden()  # nothing waits
    panel.show_asked(ConfirmationAsked("c1", "notes", "delete_note", {"title": "shopping"}))
    panel.show_asked(ConfirmationAsked("c2", "notes", "delete_note", {"title": "work"}))
    assert not panel.isHidden()
    assert panel.rows["c1"].label.text() == 'delete_note (from notes) asks to run with {"title": "shopping"}'
    assert panel.rows["c1"].allow.accessibleName() == "Allow delete_note"
    with qtbot.waitSignal(panel.answered) as answered:
        QTest.mouseClick(panel.rows["c2"].deny, CLICK)
    assert answered.args == ["c2", False]
    assert list(panel.rows) == ["c1"] and not panel.isHidden()
    panel.show_settled("c1")  # answered by voice
    assert not panel.rows and panel.isHidden()


@pytest.fixture
def voice_settings(tmp_path: Path, live_server: FakeGeminiLiveServer) -> Iterator[Settings]:
    # A long idle: the typed Allow and Deny continue the conversation that asked.
    env = {"GEMINI_API_KEY": live_server.api_key, "PARLEY_IDLE_SECONDS": "60"}
    yield from settings_on_live_server(tmp_path, live_server, env)


def test_a_held_destructive_call_is_allowed_by_allow_and_refused_by_deny(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings, live_server: FakeGeminiLiveServer, tmp_path: Path
) -> None:
    ran = tmp_path / "ran.txt"
    write_mcp_json(tmp_path / "mcp.json", [fake_server("notes", env={"FAKE_MCP_LOG": str(ran)})])
    live_server.script(
        script(
            (AfterText(), (CallTools((Call("m-1", "notes__delete_note", {"title": "shopping"}),)),)),
            (AfterToolResponse("m-1"), (OutputTranscript("Delete it?"), CompleteTurn())),
            (AfterText(), (CallTools((Call("m-2", "confirm_action", {"confirmation": "c1"}),)),)),
            (AfterToolResponse("m-2"), (OutputTranscript("Deleted."), CompleteTurn())),
            (AfterText(), (CallTools((Call("m-3", "notes__delete_note", {"title": "work"}),)),)),
            (AfterToolResponse("m-3"), (OutputTranscript("Delete that one too?"), CompleteTurn())),
            (AfterText(), (CallTools((Call("m-4", "confirm_action", {"confirmation": "c2"}),)),)),
            (AfterToolResponse("m-4"), (OutputTranscript("Kept it."), CompleteTurn())),
        )
    )
    _bridge, main, _voice = open_voice_window(qtbot, runtime, voice_settings)

    # The conversation waits 5 s at most for the server to start (`DECLARE_WAIT_S`): seconds here.
    QTest.keyClicks(main.voice.text_box, "Delete my shopping note")
    QTest.keyClick(main.voice.text_box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "c1" in main.confirmations.rows, timeout=TIMEOUT_MS)
    held = main.confirmations.rows["c1"]
    assert held.label.text() == 'delete_note (from notes) asks to run with {"title": "shopping"}'
    assert not ran.exists()
    QTest.mouseClick(held.allow, CLICK)
    qtbot.waitUntil(lambda: "Deleted." in main.transcript.toPlainText(), timeout=TIMEOUT_MS)
    assert ran.read_text(encoding="utf-8") == "deleted shopping\n"
    assert not main.confirmations.rows

    QTest.keyClicks(main.voice.text_box, "And my work note")
    QTest.keyClick(main.voice.text_box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "c2" in main.confirmations.rows, timeout=TIMEOUT_MS)
    QTest.mouseClick(main.confirmations.rows["c2"].deny, CLICK)
    qtbot.waitUntil(lambda: "Kept it." in main.transcript.toPlainText(), timeout=TIMEOUT_MS)
    assert ran.read_text(encoding="utf-8") == "deleted shopping\n"  # refused: not run
    assert not main.confirmations.isVisible()
