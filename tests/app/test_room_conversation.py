"""A conversation in a room, in real time: the voice loop on a microphone and speaker in a simulated living
room (tests/voice/room_sound_card.py: the user 2 m away, 0.45 s of reverberation, pink noise 15 dB under
the voice), the real echo canceller, barge-in detector, google-genai client and SQLite store, against the
fake Gemini Live that answers faster than real time, as the service does.

Parley's voice comes back to the microphone through the laptop's echo path. About 1.2 s into the first
answer, a loud, clipped passage of it comes through AEC3 at -20 to -28 dBFS (scored up to 0.47) before the
canceller has converged: the detector is armed only once the canceller has heard `armed_after_ms` of
Parley's voice (voice/echo/barge_in.py), and the first seconds of this answer must stop nothing. The user speaks
once the canceller's linear filter has learnt the echo path (12-14 s of Parley's voice in this room; it
lives as long as the voice loop, so this is every answer but the first), what the detector hears then.
Before that, on AEC3's output alone, the user was missed in about one run in three here."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.config.settings import load_settings
from app.voice_loop import VoiceLoop
from app.wiring import open_chat_services
from tests.app.voice_harness import LOOP_WAIT_S, Watcher
from tests.fakes.gemini_live_scenario import (
    AfterSpeech,
    CompleteTurn,
    InputTranscript,
    OutputTranscript,
    Speak,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.voice.fixtures import read_pcm
from tests.voice.laptop_room import parley_voice
from tests.voice.room_sound_card import RoomSoundCard
from tests.voice.rooms import GOAL_CONDITION, SimulatedRoom
from voice.audio.chunks import MODEL_VOICE_FORMAT, AudioChunk
from voice.audio.microphone import MicrophoneSource
from voice.audio.speaker import SpeakerSink
from voice.echo.canceller import EchoCancelledSource, EchoCanceller
from voice.state import AssistantState

LINEAR_FILTER_LEARNT_MS = 17_000.0
"""Parley's voice played before the user speaks (milliseconds)."""
STORY = "Rome was founded, the story goes, by Romulus and Remus, twins raised by a she-wolf on the Palatine."


async def test_speaking_over_an_answer_the_service_has_finished_stops_the_voice_and_is_answered(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLEY_IDLE_SECONDS", "5")  # the user takes a few seconds to ask
    answer = parley_voice(24.0, seed=21)
    gemini_live_server.script(
        script(
            (AfterSpeech(), (InputTranscript("Tell me about Rome."), Speak(answer, STORY))),
            (AfterSpeech(), (InputTranscript("Hey, that's enough."), OutputTranscript("Sure."), CompleteTurn())),
        )
    )
    settings = load_settings()
    watcher = Watcher()
    voice_heard = asyncio.Event()
    voice_ms = 0.0

    def played(chunk: AudioChunk) -> None:
        nonlocal voice_ms
        canceller.played(chunk)
        voice_ms += chunk.duration_ms if voice_ms or any(chunk.pcm) else 0.0  # from the answer's first sound
        if voice_ms >= LINEAR_FILTER_LEARNT_MS:
            voice_heard.set()

    with RoomSoundCard(SimulatedRoom(GOAL_CONDITION, seed=7)) as card:
        canceller = EchoCanceller(clock=None)  # as app.voice_loop wires it to the speaker
        sink = SpeakerSink(MODEL_VOICE_FORMAT, backend=card, on_played=played)
        async with open_chat_services(settings) as services:
            chat_id = (await services.store.create()).id
            loop = VoiceLoop(
                settings=settings,
                services=services,
                source=EchoCancelledSource(MicrophoneSource(backend=card), canceller),
                sink=sink,
                chat_id=chat_id,
                observer=watcher,
            )
            running = asyncio.create_task(loop.run(), name="test-room-loop")
            try:
                await watcher.until(lambda: bool(watcher.of("ready")))
                assert await loop.talk()
                await watcher.until(lambda: AssistantState.LISTENING in watcher.of("state"))
                card.say(read_pcm("speech_hello"))
                # The user's turn is recorded when the service completes its answer's turn: it has generated
                # the whole answer, four times faster than it plays.
                await watcher.until(lambda: len(watcher.spoken()) == 1)
                connection = await gemini_live_server.connection(0)
                assert connection.replies[0].ended_at is not None and not connection.replies[0].interrupted
                async with asyncio.timeout(LOOP_WAIT_S):
                    await voice_heard.wait()
                assert sink.queued_ms > 2_000  # seconds of it still to play
                card.say(read_pcm("speech_hey_travis"))
                await watcher.until(lambda: len(watcher.spoken()) == 4)
            finally:
                loop.stop()
                async with asyncio.timeout(LOOP_WAIT_S):
                    await running
            chat = await services.store.get(chat_id)
    turns = watcher.spoken()
    assert [(t.role, t.interrupted) for t in turns] == [
        ("user", False),
        ("model", True),
        ("user", False),
        ("model", False),
    ]
    assert turns[1].text and STORY.startswith(turns[1].text) and len(turns[1].text) < len(STORY)
    assert sink.dropped_bytes > 0  # the rest of the answer was never played
    assert [turn.interrupted for turn in chat.full_history] == [False, True, False, False]
