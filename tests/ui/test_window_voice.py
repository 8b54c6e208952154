"""The voice loop inside the window: a recording instead of the microphone, the real wake word model,
the real google-genai client against the fake Live server (on a thread of its own: a Qt test holds the
test's event loop), the real store; what happens shows in the window as it happens.
On a microphone the test feeds: test_window_microphone.py."""

from __future__ import annotations

import functools
from dataclasses import replace
from uuid import UUID

from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.front.voice_presenter import NO_KEY, WAITING_FOR
from app.runtime import Runtime
from app.wiring import open_chat_services
from tests.app.other_listener import another_process_listening
from tests.fakes.fed_microphone import FedMicrophone
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
from tests.ui.conftest import TIMEOUT_MS
from tests.ui.voice_window import ASSETS, Window, open_window, seed_chats
from ui.bridge import ChatBridge
from ui.main_window import MainWindow
from ui.voice.window_voice import WindowVoice
from voice.audio.chunks import MODEL_VOICE_FORMAT
from voice.audio.null_sink import NullSink
from voice.audio.wav import WavFileSource


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
