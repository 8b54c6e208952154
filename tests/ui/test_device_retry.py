"""Devices that failed are opened again from Settings: the speaker as the microphone, and a second save made
while the first one's retry is under way. The real window, its real voice loop, the real microphone and
speaker code on PortAudio's test stand-in acting as devices unplugged then plugged in, the real google-genai
client against the fake Live server."""

from __future__ import annotations

import asyncio
import threading

from pytestqt.qtbot import QtBot

from app.front.voice_presenter import NO_MICROPHONE, NO_SPEAKER
from app.runtime import Runtime
from tests.fakes.gemini_live_scenario import AfterText, Audio, CompleteTurn, OutputTranscript, script
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.ui.conftest import TIMEOUT_MS, MakeSettings
from tests.ui.live_settings_window import (
    UnpluggedCard,
    close,
    opened_on,
    recording_on,
    save,
    settings_of,
    speaking_on,
)
from tests.voice.portaudio_fake import FakeBackend, FakeStream
from ui.app import ParleyWindow
from voice.audio.chunks import MODEL_VOICE_FORMAT
from voice.audio.devices import StreamRequest
from voice.audio.synthetic import tone
from voice.errors import NoAudioDevice

UNPLUGGED = "no speaker found: the USB speaker is unplugged (test)"
GONE = "the speaker stopped: the output device went away"
ANSWER = tone(200, 440.0, amplitude=0.5, format=MODEL_VOICE_FORMAT).pcm
"""The model's voice in each answer: 200 ms of a tone, at the rate the speaker is opened at."""


def send(window: ParleyWindow, states: list[str], text: str) -> None:
    """Type `text` to Parley, forgetting the states it went through before."""
    states.clear()
    window.voice.send_text(text)


def answered(qtbot: QtBot, window: ParleyWindow, states: list[str], answer: str) -> None:
    """Wait for `answer` in the transcript, and for Parley to sleep again after it."""
    qtbot.waitUntil(lambda: answer in window.main.transcript.toPlainText(), timeout=TIMEOUT_MS)
    qtbot.waitUntil(lambda: states[-1:] == ["sleeping"], timeout=TIMEOUT_MS)


def heard(qtbot: QtBot, stream: FakeStream) -> None:
    """PortAudio's thread plays the speaker's stream until the answer's voice has come out of it."""
    played = bytearray()

    def answer_played() -> bool:
        played.extend(stream.play(5))
        return ANSWER in played

    qtbot.waitUntil(answer_played, timeout=TIMEOUT_MS)


def test_a_speaker_that_failed_is_opened_again_when_settings_are_saved(
    qtbot: QtBot, runtime: Runtime, live_server: FakeGeminiLiveServer, parley: MakeSettings
) -> None:
    live_server.script(
        script((AfterText(), (OutputTranscript("Not heard."), Audio(ANSWER), CompleteTurn()))),
        script((AfterText(), (OutputTranscript("Heard now."), Audio(ANSWER), CompleteTurn()))),
    )
    settings = parley("idle_seconds = 0.3\n")
    card = UnpluggedCard(UNPLUGGED)
    opened, open_devices = speaking_on(card)
    window, states = opened_on(qtbot, runtime, settings, open_devices)
    try:
        qtbot.waitUntil(lambda: "sleeping" in states, timeout=TIMEOUT_MS)
        send(window, states, "Can you hear me?")
        answered(qtbot, window, states, "Not heard.")  # shown, not spoken
        assert window.main.banner_messages == (NO_SPEAKER.format(problem=UNPLUGGED),)

        card.plug_in()
        save(settings_of(window))  # the same speaker (the system default) once more
        speaker = card.stream()  # opened again, at once: Parley sleeps
        qtbot.waitUntil(lambda: window.main.banner_messages == (), timeout=TIMEOUT_MS)
        assert opened == [None, None]
        send(window, states, "And now?")
        heard(qtbot, speaker)
        answered(qtbot, window, states, "Heard now.")
        assert not window.main.banner_messages
    finally:
        close(window)


def test_a_speaker_that_went_away_is_opened_again_when_settings_are_saved(
    qtbot: QtBot, runtime: Runtime, live_server: FakeGeminiLiveServer, parley: MakeSettings
) -> None:
    live_server.script(
        *(script((AfterText(), (OutputTranscript(words), Audio(ANSWER), CompleteTurn()))) for words in "ABC")
    )
    settings = parley("idle_seconds = 0.3\n")
    card = UnpluggedCard(UNPLUGGED)
    card.plug_in()
    opened, open_devices = speaking_on(card)
    window, states = opened_on(qtbot, runtime, settings, open_devices)
    try:
        qtbot.waitUntil(lambda: "sleeping" in states, timeout=TIMEOUT_MS)
        send(window, states, "One?")
        speaker = card.stream()
        heard(qtbot, speaker)
        answered(qtbot, window, states, "A")

        speaker.finished_callback()  # unplugged: PortAudio ends the stream by itself
        send(window, states, "Two?")
        answered(qtbot, window, states, "B")
        assert window.main.banner_messages == (NO_SPEAKER.format(problem=GONE),)

        save(settings_of(window))  # plugged in again: the same speaker once more
        qtbot.waitUntil(lambda: len(card.streams) == 2, timeout=TIMEOUT_MS)
        qtbot.waitUntil(lambda: not window.main.banner_messages, timeout=TIMEOUT_MS)
        assert opened == [None, None]
        send(window, states, "Three?")
        heard(qtbot, card.stream())
        answered(qtbot, window, states, "C")
    finally:
        close(window)


class SlowCard(UnpluggedCard):
    """A USB microphone slow to open: an opening waits until the test lets it through (`held`), and fails if
    the card was unplugged when it began."""

    def __init__(self) -> None:
        super().__init__()
        self.held = threading.Event()
        self.held.set()
        self.opening = threading.Event()
        """Set as an opening begins."""

    def open_stream(self, request: StreamRequest) -> FakeStream:
        plugged = self.plugged
        self.opening.set()
        assert self.held.wait(TIMEOUT_MS / 1000)
        if not plugged:
            raise NoAudioDevice(self.problem)
        return FakeBackend.open_stream(self, request)


def test_settings_saved_again_while_a_microphone_is_being_retried_apply_once_the_retry_fails(
    qtbot: QtBot, runtime: Runtime, live_server: FakeGeminiLiveServer, parley: MakeSettings
) -> None:
    settings = parley("")
    card = SlowCard()
    opened, open_devices = recording_on(card)
    window, _ = opened_on(qtbot, runtime, settings, open_devices)
    voice = window.main.voice
    try:
        unplugged = NO_MICROPHONE.format(problem=card.problem)
        qtbot.waitUntil(lambda: window.main.banner_messages == (unplugged,), timeout=TIMEOUT_MS)
        card.held.clear()
        card.opening.clear()
        save(settings_of(window))  # still unplugged: the microphone is tried again, slowly
        qtbot.waitUntil(card.opening.is_set, timeout=TIMEOUT_MS)
        card.plug_in()
        save(settings_of(window))  # plugged in now, while the first try is still under way
        runtime.submit(asyncio.sleep(0)).result(timeout=TIMEOUT_MS / 1000)  # the second save has been seen
        assert opened == [None, None]  # it waits for the first try
        card.held.set()  # the first try fails: it began while the card was unplugged
        qtbot.waitUntil(lambda: len(card.streams) == 1, timeout=TIMEOUT_MS)  # and the second opens it again
        card.stream().record(bytes(3_200))
        qtbot.waitUntil(voice.talk_button.isEnabled, timeout=TIMEOUT_MS)
        assert opened == [None, None, None]
        assert not window.main.banner_messages
    finally:
        close(window)
