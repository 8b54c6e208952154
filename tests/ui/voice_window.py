"""The window with its voice loop: on a recording (`open_window`) or on a microphone the test feeds
(`open_on_microphone`, `feed`), and chats seeded in its store before it opens. Shared by test_window_voice.py,
test_window_microphone.py and test_window_asked.py."""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.runtime import Runtime
from app.wiring import open_chat_services
from chats.models import Turn
from tests.fakes.fed_microphone import FedMicrophone
from tests.ui.conftest import TIMEOUT_MS
from ui.bridge import ChatBridge
from ui.main_window import MainWindow
from ui.voice.window_voice import WindowVoice
from voice.audio.chunks import MODEL_VOICE_FORMAT, AudioChunk
from voice.audio.null_sink import NullSink
from voice.audio.wav import WavFileSource

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "audio"


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


def open_on_microphone(
    qtbot: QtBot, runtime: Runtime, settings: Settings, *, ready_ms: int = TIMEOUT_MS
) -> tuple[Window, FedMicrophone]:
    """The window with its voice loop on a microphone the test feeds; the loop is listening for the wake
    word when this returns (`ready_ms`: how long its models may take to load before the test fails)."""
    microphone = FedMicrophone()
    bridge = ChatBridge(runtime, functools.partial(open_chat_services, settings))
    main = MainWindow(bridge)
    qtbot.addWidget(main)
    bridge.open()
    voice = WindowVoice(bridge, runtime, settings, lambda: (microphone, NullSink(MODEL_VOICE_FORMAT)))
    voice.bind(main.voice)
    voice.start()
    qtbot.waitUntil(lambda: bridge.current_chat_id is not None, timeout=ready_ms)  # `ready` selects the chat
    return Window(main, bridge, voice), microphone


def feed(runtime: Runtime, microphone: FedMicrophone, *clips: AudioChunk) -> None:
    """Feed the microphone on the runtime's loop, where its reader runs, and wait until it is read."""

    async def go() -> None:
        microphone.feed(*clips)
        await microphone.until_drained()

    runtime.submit(go()).result(timeout=TIMEOUT_MS / 1000)
