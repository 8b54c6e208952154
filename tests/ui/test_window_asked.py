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
from tests.ui.voice_window import open_on_microphone, seed_chats

CHILD_START_MS = 120_000
"""A `parley` in another process starts in seconds, and in a minute on a loaded machine."""


@pytest.fixture
def voice_settings(tmp_path: Path, live_server: FakeGeminiLiveServer) -> Iterator[Settings]:
    yield from settings_on_live_server(tmp_path, live_server, {"GEMINI_API_KEY": live_server.api_key})


def ask_elsewhere(settings: Settings, *args: str) -> subprocess.Popen[bytes]:
    """`parley ask` in another process, on the window's chats."""
    env = dict(os.environ, PARLEY_DATA_DIR=str(settings.data_dir), PARLEY_CONFIG=str(settings.config_file))
    env.pop("GEMINI_API_KEY", None)  # the window's key answers: the command needs none
    command = [sys.executable, "-m", "app.cli.main", "ask", *args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def test_an_ask_from_the_command_line_is_answered_in_the_open_window(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings, live_server: FakeGeminiLiveServer
) -> None:
    live_server.script(script((AfterText(), (OutputTranscript("Milk, eggs and bread."), CompleteTurn()))))
    window, _ = open_on_microphone(qtbot, runtime, voice_settings)
    shown = window.bridge.current_chat_id
    child = ask_elsewhere(voice_settings, "What is on my shopping list?", "--json")
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


def test_an_ask_in_another_chat_brings_the_window_to_that_chat(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings, live_server: FakeGeminiLiveServer
) -> None:
    live_server.script(script((AfterText(), (OutputTranscript("Oak."), CompleteTurn()))))
    kitchen, _ = seed_chats(voice_settings, "We renovate the kitchen.", "Plan a trip to Japan.")  # Japan: the newest
    window, _ = open_on_microphone(qtbot, runtime, voice_settings)
    assert window.bridge.current_chat_id != kitchen
    child = ask_elsewhere(voice_settings, "Which wood?", "--chat", str(kitchen))
    try:
        transcript = window.main.transcript
        qtbot.waitUntil(lambda: "Oak." in transcript.toPlainText(), timeout=CHILD_START_MS)
        out, err = child.communicate(timeout=TIMEOUT_MS / 1000)
    finally:
        child.kill()
        child.wait()
    assert (child.returncode, out) == (0, b"Oak.\n"), err.decode()
    assert window.bridge.current_chat_id == kitchen
    assert "We renovate the kitchen." in transcript.toPlainText()
