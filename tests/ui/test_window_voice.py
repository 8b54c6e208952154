"""The voice loop inside the window: a recording instead of the microphone, the real wake word model,
the real google-genai client against the fake Live server (on a thread of its own: a Qt test holds the
test's event loop), the real store; what happens shows in the window as it happens."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from uuid import UUID

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.config.settings import Settings, load_settings
from app.front.status import OFFLINE_NOTICE
from app.front.voice_presenter import NO_KEY, NO_MICROPHONE, NO_SPEAKER, WAITING_FOR
from app.runtime import Runtime
from app.wiring import open_chat_services
from chats.models import Turn
from tests.app import MemoryKeyring, using_keyring
from tests.app.other_listener import another_process_listening
from tests.fakes.fed_microphone import FedMicrophone
from tests.fakes.gemini_live_scenario import (
    AfterAudio,
    AfterText,
    AfterToolResponse,
    Audio,
    Call,
    CallTools,
    CompleteTurn,
    InputTranscript,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import IDLE_SECONDS, FakeGeminiLiveServer
from tests.ui.conftest import TIMEOUT_MS, settings_on_live_server
from ui.bridge import ChatBridge
from ui.main_window import MainWindow
from ui.voice import WindowVoice
from voice.audio.chunks import MODEL_VOICE_FORMAT, AudioChunk
from voice.audio.devices import RawStream, StreamRequest
from voice.audio.microphone import MicrophoneSource
from voice.audio.null_sink import NullSink
from voice.audio.speaker import SpeakerSink
from voice.audio.synthetic import silence, tone
from voice.audio.wav import WavFileSource
from voice.errors import NoAudioDevice

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "audio"


@pytest.fixture
def voice_settings(tmp_path: Path, live_server: FakeGeminiLiveServer) -> Iterator[Settings]:
    env = {"GEMINI_API_KEY": live_server.api_key, "PARLEY_IDLE_SECONDS": IDLE_SECONDS}
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


def switch_by_voice(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings, live_server: FakeGeminiLiveServer
) -> tuple[Window, UUID, UUID]:
    """A window whose conversation, begun in the Japan chat (the most recent), switches to the kitchen chat by
    voice and hears "Back to the kitchen."; the window, and the kitchen and Japan chats' ids."""
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
    return window, kitchen_id, japan_id


def test_a_voice_switch_selects_the_chat_in_the_window(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings, live_server: FakeGeminiLiveServer
) -> None:
    window, kitchen_id, japan_id = switch_by_voice(qtbot, runtime, voice_settings, live_server)
    # The conversation starts in the most recent chat (Japan), then the voice switch selects the kitchen.
    qtbot.waitUntil(lambda: window.bridge.current_chat_id == kitchen_id, timeout=TIMEOUT_MS)
    qtbot.waitUntil(lambda: "oak cabinets" in window.main.transcript.toPlainText(), timeout=TIMEOUT_MS)
    assert window.voice is not None and japan_id != kitchen_id
    # What the tool did shows in the chat switched to, after its stored turns.
    text = window.main.transcript.toPlainText()
    assert "Switched to chat: New chat" in text
    assert text.index("oak cabinets") < text.index("Switched to chat")


def test_after_a_voice_switch_the_reply_is_shown_in_the_chat_switched_to_not_the_one_left(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings, live_server: FakeGeminiLiveServer
) -> None:
    window, kitchen_id, japan_id = switch_by_voice(qtbot, runtime, voice_settings, live_server)
    shown_in: list[tuple[UUID | None, str]] = []
    window.bridge.turn_spoken.connect(lambda turn: shown_in.append((window.bridge.current_chat_id, turn.text)))
    transcript = window.main.transcript
    # The reply is journaled in the kitchen chat: the window shows it there, never under Japan's turns.
    qtbot.waitUntil(lambda: window.bridge.current_chat_id == kitchen_id, timeout=TIMEOUT_MS)
    qtbot.waitUntil(lambda: "Back to the kitchen." in transcript.toPlainText(), timeout=TIMEOUT_MS)
    assert (japan_id, "Back to the kitchen.") not in shown_in
    window.bridge.select_chat(japan_id)
    qtbot.waitUntil(lambda: "Plan a trip to Japan" in transcript.toPlainText(), timeout=TIMEOUT_MS)
    assert "Back to the kitchen." not in transcript.toPlainText()


def test_without_a_key_the_window_says_what_to_do(qtbot: QtBot, runtime: Runtime, settings: Settings) -> None:
    _older, newest = seed_chats(settings, "An older chat.", "The newest chat.")
    window = open_window(qtbot, runtime, settings, "silence.wav")
    qtbot.waitUntil(lambda: not window.main.banner_row.isHidden(), timeout=TIMEOUT_MS)
    assert window.main.banner_messages == (NO_KEY,)
    qtbot.waitUntil(lambda: window.main.voice.state_label.text().endswith("off"), timeout=TIMEOUT_MS)
    assert not window.main.voice.talk_button.isEnabled()
    # The chats are still there to read: the most recent one is shown.
    qtbot.waitUntil(lambda: window.bridge.current_chat_id == newest, timeout=TIMEOUT_MS)
    qtbot.waitUntil(lambda: "The newest chat." in window.main.transcript.toPlainText(), timeout=TIMEOUT_MS)


def test_a_voice_loop_that_fails_shows_the_error_state(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings
) -> None:
    bridge = ChatBridge(runtime, functools.partial(open_chat_services, voice_settings))
    main = MainWindow(bridge)
    qtbot.addWidget(main)
    bridge.open()
    settings = replace(voice_settings, wake_word="no_such_wake_word")
    voice = WindowVoice(bridge, runtime, settings, lambda: (FedMicrophone(), NullSink(MODEL_VOICE_FORMAT)))
    voice.start()
    qtbot.waitUntil(lambda: not main.banner_row.isHidden(), timeout=TIMEOUT_MS)
    assert "unknown wake word model 'no_such_wake_word'" in main.banner.text()
    qtbot.waitUntil(lambda: main.voice.state_label.text() == "Assistant: error", timeout=TIMEOUT_MS)
    assert not main.voice.text_box.isEnabled()


def test_a_recording_that_cannot_be_read_is_said_and_typing_still_works(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings
) -> None:
    bridge = ChatBridge(runtime, functools.partial(open_chat_services, voice_settings))
    main = MainWindow(bridge)
    qtbot.addWidget(main)
    bridge.open()
    missing = ASSETS / "no_such_recording.wav"
    voice = WindowVoice(bridge, runtime, voice_settings, lambda: (WavFileSource(missing), NullSink(MODEL_VOICE_FORMAT)))
    voice.start()
    qtbot.waitUntil(lambda: not main.banner_row.isHidden(), timeout=TIMEOUT_MS)
    assert "no_such_recording.wav" in main.banner.text()
    assert "You can still type to Parley" in main.banner.text()
    # The status does not claim Parley hears anything: only typing works, and Talk is off, saying why.
    qtbot.waitUntil(
        lambda: main.voice.state_label.text() == "Assistant: no microphone, type to talk", timeout=TIMEOUT_MS
    )
    assert main.voice.text_box.isEnabled()
    assert not main.voice.talk_button.isEnabled() and not main.voice.talk_shortcut.isEnabled()
    assert "no_such_recording.wav" in main.voice.talk_button.toolTip()


def test_the_window_waits_for_parley_listen_on_the_same_chats_to_quit_then_listens(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings
) -> None:
    with another_process_listening(voice_settings.data_dir) as listener:
        window = open_window(qtbot, runtime, voice_settings, "silence.wav")
        qtbot.waitUntil(lambda: not window.main.banner_row.isHidden(), timeout=TIMEOUT_MS)
        assert window.main.banner_messages == (WAITING_FOR.format(owner=f"process {listener.pid}"),)
        assert window.main.voice.state_label.text() == "Assistant: off"
    qtbot.waitUntil(window.main.banner_row.isHidden, timeout=TIMEOUT_MS)  # it quit: this window listens
    assert window.main.voice.state_label.text() != "Assistant: error"


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
