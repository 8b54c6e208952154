"""The window's controls on the voice loop: push-to-talk, typed text, mute and the microphone level.

A microphone the test feeds, the real wake word model, the real google-genai client against the fake Live
server, the real SQLite store and journal; what the window would see is what a `VoiceObserver` records."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.voice_harness import history, running_loop
from tests.fakes.gemini_live_scenario import (
    AfterAudio,
    AfterText,
    CompleteTurn,
    InputTranscript,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.voice.fixtures import read_pcm
from voice.audio.chunks import MIC_FORMAT, AudioChunk
from voice.audio.synthetic import silence, tone
from voice.session_events import SpokenTurn
from voice.state import AssistantState
from voice.wake.protocol import PUSH_TO_TALK, TYPED_TEXT, WakeEvent


async def test_push_to_talk_starts_a_conversation_without_the_wake_word(
    environment: Path, gemini_live_server: FakeGeminiLiveServer
) -> None:
    answer = (InputTranscript("Is anyone there?"), OutputTranscript("I'm here."), CompleteTurn())
    gemini_live_server.script(script((AfterAudio(3_200), answer)))
    async with running_loop(environment) as running:
        running.microphone.feed(silence(400))
        await running.microphone.until_drained()
        assert await running.loop.talk()
        await running.watcher.until(lambda: AssistantState.LISTENING in running.watcher.of("state"))
        running.microphone.feed(silence(400))
        await running.watcher.until_saved(turns=2)
        assert await history(running) == [("user", "Is anyone there?"), ("model", "I'm here.")]
    assert running.watcher.of("wake") == [WakeEvent(PUSH_TO_TALK, 1.0, 400.0)]
    assert not await running.loop.talk()  # stopped: nothing happens


async def test_typed_text_wakes_the_assistant_and_is_saved_as_a_user_turn(
    environment: Path, gemini_live_server: FakeGeminiLiveServer
) -> None:
    gemini_live_server.script(script((AfterText(), (OutputTranscript("Nothing today."), CompleteTurn()))))
    async with running_loop(environment) as running:
        running.microphone.feed(silence(240))
        await running.microphone.until_drained()
        await running.loop.send_text("  What's on my calendar?\n")
        await running.loop.send_text("   ")
        await running.watcher.until_saved(turns=2)
        assert await history(running) == [("user", "What's on my calendar?"), ("model", "Nothing today.")]
    assert [w.model for w in running.watcher.of("wake")] == [TYPED_TEXT]
    assert running.watcher.spoken() == [
        SpokenTurn("user", "What's on my calendar?", typed=True),
        SpokenTurn("model", "Nothing today."),
    ]
    sent = await gemini_live_server.connection(0)
    assert sent.texts == ["What's on my calendar?"]
    # The default model (3.8 Live) takes typed text as realtime input, as every Gemini 3 Live model does.
    assert [f["realtime_input"]["text"] for f in sent.frames if "text" in f.get("realtime_input", {})] == [
        "What's on my calendar?"
    ]


async def test_muted_the_wake_word_goes_unheard_and_no_level_is_reported(
    environment: Path, gemini_live_server: FakeGeminiLiveServer
) -> None:
    wake_word = AudioChunk(MIC_FORMAT, read_pcm("wake_hey_jarvis"), 0.0)
    async with running_loop(environment) as running:
        running.microphone.feed(tone(400, amplitude=0.1))
        await running.microphone.until_drained()
        await running.loop.set_muted(True)
        await running.loop.set_muted(True)  # no change: not reported again
        running.microphone.feed(wake_word)
        await running.microphone.until_drained()
        muted_until_ms = running.microphone.end_ms
        await running.loop.set_muted(False)
        running.microphone.feed(wake_word)
        await running.watcher.until(lambda: bool(running.watcher.of("wake")))
    assert running.watcher.of("muted") == [True, False]
    [wake] = running.watcher.of("wake")
    assert wake.model == "hey_jarvis" and wake.offset_ms > muted_until_ms  # the unmuted saying, not the muted one
    kinds = [kind for kind, _ in running.watcher.seen if kind in ("muted", "level")]
    muted_at, unmuted_at = kinds.index("muted"), len(kinds) - 1 - kinds[::-1].index("muted")
    assert "level" not in kinds[muted_at:unmuted_at]
    levels = running.watcher.of("level")
    assert levels[:4] == [pytest.approx(-20.0, abs=0.1)] * 4  # 400 ms of tone: four reports, ten a second
    heard_unmuted_ms = 400 + (running.microphone.end_ms - muted_until_ms)
    assert abs(len(levels) - heard_unmuted_ms / 100) <= 2
