"""The window's voice loop on a microphone the test feeds: typing and push-to-talk open a conversation, mute stops
the level, a refused key stays in the banner until a conversation connects, the offline voice without a key,
typing answered without a sound card."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.config.settings import Settings, load_settings
from app.core.status import OFFLINE_NOTICE
from app.front.voice_presenter import NO_MICROPHONE, NO_SPEAKER
from app.runtime import Runtime
from app.wiring import open_chat_services
from tests.app import MemoryKeyring, using_keyring
from tests.fakes.gemini_live_scenario import (
    AfterAudio,
    AfterText,
    Audio,
    CompleteTurn,
    InputTranscript,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.ui.conftest import TIMEOUT_MS, settings_on_live_server
from tests.ui.voice_window import feed, open_on_microphone
from ui.bridge import ChatBridge
from ui.main_window import MainWindow
from ui.voice.window_voice import WindowVoice
from voice.audio.chunks import MODEL_VOICE_FORMAT
from voice.audio.devices import RawStream, StreamRequest
from voice.audio.microphone import MicrophoneSource
from voice.audio.speaker import SpeakerSink
from voice.audio.synthetic import silence, tone
from voice.errors import NoAudioDevice


def test_typing_to_parley_starts_a_conversation_and_shows_both_turns(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings, live_server: FakeGeminiLiveServer
) -> None:
    live_server.script(script((AfterText(), (OutputTranscript("Milk, eggs and bread."), CompleteTurn()))))
    window, microphone = open_on_microphone(qtbot, runtime, voice_settings)
    QTest.keyClicks(window.main.voice.text_box, "What is on my shopping list?")
    QTest.keyClick(window.main.voice.text_box, Qt.Key.Key_Return)
    transcript = window.main.transcript
    qtbot.waitUntil(lambda: "Milk, eggs and bread." in transcript.toPlainText(), timeout=TIMEOUT_MS)
    text = transcript.toPlainText()
    assert text.index("What is on my shopping list?") < text.index("Milk, eggs and bread.")
    assert live_server.connections[0].texts == ["What is on my shopping list?"]
    feed(runtime, microphone, silence(800))  # the conversation goes idle and is saved
    qtbot.waitUntil(lambda: window.main.voice.state_label.text() == "Assistant: sleeping", timeout=TIMEOUT_MS)


def test_push_to_talk_opens_a_conversation(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings, live_server: FakeGeminiLiveServer
) -> None:
    live_server.script(
        script((AfterAudio(1_600), (InputTranscript("Hello?"), OutputTranscript("Hi!"), CompleteTurn())))
    )
    window, microphone = open_on_microphone(qtbot, runtime, voice_settings)
    states: list[str] = []
    window.bridge.state_changed.connect(states.append)
    window.main.voice.talk_button.click()
    qtbot.waitUntil(lambda: "listening" in states, timeout=TIMEOUT_MS)
    feed(runtime, microphone, silence(2_000))
    qtbot.waitUntil(lambda: "Hi!" in window.main.transcript.toPlainText(), timeout=TIMEOUT_MS)


@pytest.fixture
def new_key_settings(tmp_path: Path, live_server: FakeGeminiLiveServer) -> Iterator[Settings]:
    """A key the fake Live server does not take (yet)."""
    env = {"GEMINI_API_KEY": "a-key-not-enabled-yet", "PARLEY_IDLE_SECONDS": "0.3"}
    yield from settings_on_live_server(tmp_path, live_server, env)


def test_a_refused_key_shows_in_the_banner_until_a_conversation_connects(
    qtbot: QtBot, runtime: Runtime, new_key_settings: Settings, live_server: FakeGeminiLiveServer
) -> None:
    window, _microphone = open_on_microphone(qtbot, runtime, new_key_settings)
    window.main.voice.talk_button.click()
    qtbot.waitUntil(lambda: not window.main.banner_row.isHidden(), timeout=TIMEOUT_MS)
    assert window.main.banner.text().startswith("Gemini Live refused the API key")
    assert "a-key-not-enabled-yet" not in window.main.banner.text()
    qtbot.waitUntil(lambda: window.main.voice.state_label.text() == "Assistant: sleeping", timeout=TIMEOUT_MS)

    live_server.api_key = "a-key-not-enabled-yet"  # the key is enabled: the next conversation connects
    states: list[str] = []
    window.bridge.state_changed.connect(states.append)
    window.main.voice.talk_button.click()
    qtbot.waitUntil(lambda: "listening" in states, timeout=TIMEOUT_MS)
    qtbot.waitUntil(window.main.banner_row.isHidden, timeout=TIMEOUT_MS)


def test_mute_stops_the_level_and_unmute_brings_it_back(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings
) -> None:
    window, microphone = open_on_microphone(qtbot, runtime, voice_settings)
    levels: list[float] = []
    window.bridge.level_changed.connect(levels.append)
    with qtbot.waitSignal(window.bridge.muted_changed, timeout=TIMEOUT_MS) as muted:
        window.main.voice.mute_action.trigger()
    assert muted.args == [True]
    feed(runtime, microphone, tone(400, 440.0, amplitude=0.5))
    assert levels == []
    assert window.main.voice.level_meter.value() == 0
    with qtbot.waitSignal(window.bridge.muted_changed, timeout=TIMEOUT_MS) as unmuted:
        window.main.voice.mute_button.click()
    assert unmuted.args == [False]
    feed(runtime, microphone, tone(400, 440.0, amplitude=0.5))
    qtbot.waitUntil(lambda: bool(levels), timeout=TIMEOUT_MS)
    assert max(levels) > -10.0
    qtbot.waitUntil(lambda: window.main.voice.level_meter.value() > 80, timeout=TIMEOUT_MS)


OFFLINE_LOAD_MS = 120_000
"""How long the offline voice's models may take to load before a test fails (a guard, not a goal)."""


def test_without_a_key_the_offline_voice_listens_and_says_it_is_small(
    qtbot: QtBot, runtime: Runtime, tmp_path: Path
) -> None:
    config = tmp_path / "offline.toml"
    config.write_text("", encoding="utf-8")  # voice_model auto, and no key: offline
    with using_keyring(MemoryKeyring()):
        settings = load_settings({"data_dir": str(tmp_path / "offline"), "config_file": str(config)}, env={})
    assert settings.effective_voice_model == "offline"
    # Whisper and SmolLM2 load before the loop is ready: about 15 s alone on 2 cores, and more under load.
    window, _microphone = open_on_microphone(qtbot, runtime, settings, ready_ms=OFFLINE_LOAD_MS)
    notice = window.main.voice.notice
    qtbot.waitUntil(lambda: not notice.isHidden(), timeout=TIMEOUT_MS)
    assert notice.text() == "Offline voice: a small local model (SmolLM2-135M) answers."
    assert notice.toolTip() == OFFLINE_NOTICE
    assert window.main.banner_row.isHidden()
    assert window.main.voice.talk_button.isEnabled()


class NoSoundCard:
    """PortAudio on a machine without a sound card: no stream opens."""

    def open_stream(self, request: StreamRequest) -> RawStream:
        what = "microphone" if request.kind == "input" else "speaker"
        raise NoAudioDevice(f"no {what} found: no sound card (test)")


def test_without_a_microphone_or_speaker_a_typed_message_is_answered_in_the_window(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings, live_server: FakeGeminiLiveServer
) -> None:
    live_server.script(
        script((AfterText(), (OutputTranscript("Milk, eggs and bread."), Audio(bytes(4800)), CompleteTurn())))
    )
    bridge = ChatBridge(runtime, functools.partial(open_chat_services, voice_settings))
    main = MainWindow(bridge)
    qtbot.addWidget(main)
    bridge.open()
    states: list[str] = []
    bridge.state_changed.connect(states.append)
    voice = WindowVoice(
        bridge,
        runtime,
        voice_settings,
        lambda: (MicrophoneSource(backend=NoSoundCard()), SpeakerSink(MODEL_VOICE_FORMAT, backend=NoSoundCard())),
    )
    voice.bind(main.voice)
    voice.start()
    no_microphone = NO_MICROPHONE.format(problem="no microphone found: no sound card (test)")
    qtbot.waitUntil(lambda: main.banner_messages == (no_microphone,), timeout=TIMEOUT_MS)
    # Only typing reaches Parley: the state says so, and Talk and Mute are off, saying why.
    qtbot.waitUntil(
        lambda: main.voice.state_label.text() == "Assistant: no microphone, type to talk", timeout=TIMEOUT_MS
    )
    assert main.voice.text_box.isEnabled() and main.voice.send_button.isEnabled()
    assert not main.voice.talk_button.isEnabled() and not main.voice.mute_button.isEnabled()
    assert main.voice.talk_button.toolTip().startswith("Talk needs a microphone: no microphone found")

    QTest.keyClicks(main.voice.text_box, "What is on my shopping list?")
    main.voice.send_button.click()
    qtbot.waitUntil(lambda: "Milk, eggs and bread." in main.transcript.toPlainText(), timeout=TIMEOUT_MS)
    text = main.transcript.toPlainText()
    assert text.index("What is on my shopping list?") < text.index("Milk, eggs and bread.")
    assert live_server.connections[0].texts == ["What is on my shopping list?"]
    assert live_server.connections[0].audio == b""
    # The speaker could not play the answer either: both are said, one a line, and the conversation went on.
    no_speaker = NO_SPEAKER.format(problem="no speaker found: no sound card (test)")
    assert main.banner_messages == (no_microphone, no_speaker)
    assert main.banner.text() == f"{no_microphone}\n{no_speaker}"
    qtbot.waitUntil(lambda: states[-1:] == ["sleeping"], timeout=TIMEOUT_MS)  # idle: saved, asleep again
    assert {"connecting", "listening", "thinking"} <= set(states)
    assert main.voice.state_label.text() == "Assistant: no microphone, type to talk"
