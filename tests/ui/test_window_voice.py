"""The voice loop inside the window: a recording instead of the microphone, the real wake word model,
the real google-genai client against the fake Live server (on a thread of its own: a Qt test holds the
test's event loop), the real store; what happens shows in the window as it happens."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

import pytest
from pytestqt.qtbot import QtBot

from app.runtime import Runtime
from app.settings import Settings
from app.wiring import open_chat_services
from chats.models import Turn
from tests.fakes.gemini_live_scenario import (
    AfterAudio,
    AfterToolResponse,
    Call,
    CallTools,
    CompleteTurn,
    InputTranscript,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.ui.conftest import TIMEOUT_MS, settings_on_live_server
from ui.bridge import ChatBridge
from ui.main_window import MainWindow
from ui.voice import NO_KEY, WindowVoice
from voice.audio import MODEL_VOICE_FORMAT
from voice.null_sink import NullSink
from voice.wav import WavFileSource

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "audio"


@pytest.fixture
def voice_settings(tmp_path: Path, live_server: FakeGeminiLiveServer) -> Iterator[Settings]:
    env = {"GEMINI_API_KEY": live_server.api_key, "PARLEY_IDLE_SECONDS": "0.3"}
    yield from settings_on_live_server(tmp_path, live_server, env)


@dataclass
class Window:
    main: MainWindow
    bridge: ChatBridge
    voice: WindowVoice


def open_window(qtbot: QtBot, runtime: Runtime, settings: Settings, recording: str) -> Window:
    bridge = ChatBridge(runtime, functools.partial(open_chat_services, settings))
    main = MainWindow(bridge)
    qtbot.addWidget(main)
    bridge.open()
    voice = WindowVoice(
        bridge,
        runtime,
        settings,
        lambda: (WavFileSource(ASSETS / recording, realtime=False), NullSink(MODEL_VOICE_FORMAT)),
    )
    voice.start()
    return Window(main, bridge, voice)


def seed_chats(settings: Settings, *said: str) -> list[UUID]:
    """One chat per text, created before the window opens the store."""

    async def create() -> list[UUID]:
        async with open_chat_services(settings) as services:
            return [(await services.store.create(turns=[Turn(role="user", text=text)])).id for text in said]

    return asyncio.run(create())


def test_a_conversation_shows_in_the_window_as_it_happens(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings, live_server: FakeGeminiLiveServer
) -> None:
    live_server.script(
        script(
            (
                AfterAudio(16_000),
                (
                    InputTranscript("What's the weather like in Rome tomorrow?"),
                    OutputTranscript("Sunny and warm."),
                    CompleteTurn(),
                ),
            )
        )
    )
    window = open_window(qtbot, runtime, voice_settings, "wake_weather.wav")
    seen_states: list[str] = []
    window.bridge.state_changed.connect(seen_states.append)
    transcript = window.main.transcript
    qtbot.waitUntil(lambda: "Sunny and warm." in transcript.toPlainText(), timeout=TIMEOUT_MS)
    assert "What's the weather like in Rome tomorrow?" in transcript.toPlainText()
    qtbot.waitUntil(lambda: "stopped" in seen_states, timeout=TIMEOUT_MS)
    assert {"connecting", "listening", "responding", "sleeping"} <= set(seen_states)
    assert window.main.banner_row.isHidden()


def test_a_voice_switch_selects_the_chat_in_the_window(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings, live_server: FakeGeminiLiveServer
) -> None:
    kitchen_id, japan_id = seed_chats(
        voice_settings, "We are renovating the kitchen with oak cabinets.", "Plan a trip to Japan in April."
    )
    live_server.script(
        script(
            (
                AfterAudio(16_000),
                (
                    InputTranscript("Let's go back to the chat about the kitchen renovation."),
                    CallTools((Call("c-1", "switch_chat", {"chat_id": str(kitchen_id)}),)),
                ),
            ),
            (AfterToolResponse("c-1"), (OutputTranscript("Back to the kitchen."), CompleteTurn())),
        ),
        script(),
    )
    window = open_window(qtbot, runtime, voice_settings, "wake_switch_chat.wav")
    # The conversation starts in the most recent chat (Japan), then the voice switch selects the kitchen.
    qtbot.waitUntil(lambda: window.bridge.current_chat_id == kitchen_id, timeout=TIMEOUT_MS)
    qtbot.waitUntil(lambda: "oak cabinets" in window.main.transcript.toPlainText(), timeout=TIMEOUT_MS)
    assert window.voice is not None and japan_id != kitchen_id


def test_without_a_key_the_window_says_what_to_do(qtbot: QtBot, runtime: Runtime, settings: Settings) -> None:
    window = open_window(qtbot, runtime, settings, "silence.wav")
    qtbot.waitUntil(lambda: not window.main.banner_row.isHidden(), timeout=TIMEOUT_MS)
    assert window.main.banner.text() == f"Error: {NO_KEY}"
    qtbot.waitUntil(lambda: window.main.state_label.text().endswith("off"), timeout=TIMEOUT_MS)
