"""`parley ask` in another process while the window is open on the same chats: the question reaches the
window's voice loop and shows in its transcript as if typed there, with the answer, which the command prints."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.runtime import Runtime
from tests.fakes.gemini_live_scenario import AfterText, CompleteTurn, OutputTranscript, script
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.ui.conftest import TIMEOUT_MS, settings_on_live_server
from tests.ui.test_window_voice import open_on_microphone

CHILD_START_MS = 120_000
"""A `parley` in another process starts in seconds, and in a minute on a loaded machine."""


@pytest.fixture
def voice_settings(tmp_path: Path, live_server: FakeGeminiLiveServer) -> Iterator[Settings]:
    yield from settings_on_live_server(tmp_path, live_server, {"GEMINI_API_KEY": live_server.api_key})


def test_an_ask_from_the_command_line_is_answered_in_the_open_window(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings, live_server: FakeGeminiLiveServer
) -> None:
    live_server.script(script((AfterText(), (OutputTranscript("Milk, eggs and bread."), CompleteTurn()))))
    window, _ = open_on_microphone(qtbot, runtime, voice_settings)
    shown = window.bridge.current_chat_id
    env = dict(os.environ, PARLEY_DATA_DIR=str(voice_settings.data_dir), PARLEY_CONFIG=str(voice_settings.config_file))
    env.pop("GEMINI_API_KEY", None)  # the window's key answers: the command needs none
    child = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "ask", "What is on my shopping list?", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        transcript = window.main.transcript
        qtbot.waitUntil(lambda: "Milk, eggs and bread." in transcript.toPlainText(), timeout=CHILD_START_MS)
        out, err = child.communicate(timeout=TIMEOUT_MS / 1000)
    finally:
        child.kill()
        child.wait()
    assert child.returncode == 0, err.decode()
    answer = json.loads(out)
    assert (answer["chat_id"], answer["model"]) == (str(shown), "Milk, eggs and bread.")
    text = transcript.toPlainText()
    assert text.index("What is on my shopping list?") < text.index("Milk, eggs and bread.")
    assert window.bridge.current_chat_id == shown
    assert live_server.connections[0].texts == ["What is on my shopping list?"]
