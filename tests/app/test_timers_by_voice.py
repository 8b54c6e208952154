"""A timer set in a conversation (the real google-genai client against the fake Live server, the real voice
loop, SQLite store and timers file) rings when a clock the test moves reaches its time, with Parley
asleep: the chime and the words on the speaker, the news for the window, a line in its chat; until Stop, or
until the user says "stop" into the microphone (the real Whisper base and Silero VAD)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

import pytest

from app.config.settings import load_settings
from app.core.events import FrontEvent, TimerRinging, TimersChanged, TimerStopped
from app.core.toolkit import ToolKit
from app.timers.ringing import SoundRinger
from app.timers.wiring import timer_kit
from app.wiring import ChatServices
from tests.app.timers.clock import ManualClock
from tests.app.voice_harness import history, running_loop
from tests.fakes.gemini_live_scenario import (
    AfterText,
    AfterToolResponse,
    Call,
    CallTools,
    CompleteTurn,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.voice.fixtures import silence
from tests.voice.offline.said import said
from tests.voice.session_harness import RecordingSink
from voice.audio.chunks import MIC_FORMAT, AudioChunk
from voice.audio.earcon import earcon
from voice.audio.null_sink import NullSink
from voice.state import AssistantState
from voice.wake.protocol import TYPED_TEXT

WAIT_S = 30.0
E = TypeVar("E")


class Speaker(RecordingSink):
    """The speaker, told when something is played."""

    def __init__(self) -> None:
        super().__init__()
        self._news = asyncio.Event()

    async def write(self, chunk: AudioChunk) -> None:
        await super().write(chunk)
        self._news.set()

    async def until(self, count: int) -> None:
        async with asyncio.timeout(WAIT_S):
            while len(self.played) < count:
                self._news.clear()
                await self._news.wait()


async def planned(clock: ManualClock, seconds: float) -> None:
    """Move the clock once the scheduler waits on it, and wait until it has looked at the timers again."""
    async with asyncio.timeout(WAIT_S):
        await clock.waiting()
        clock.pauses.clear()
        clock.advance(seconds)
        await clock.pauses.wait()


class Front:
    """What the window would be told, in order."""

    def __init__(self) -> None:
        self.events: list[FrontEvent] = []
        self._news = asyncio.Event()

    def post(self, event: FrontEvent) -> None:
        self.events.append(event)
        self._news.set()

    def of(self, kind: type[E]) -> list[E]:
        return [event for event in self.events if isinstance(event, kind)]

    async def until(self, kind: type[FrontEvent], count: int = 1) -> None:
        async with asyncio.timeout(WAIT_S):
            while len(self.of(kind)) < count:
                self._news.clear()
                await self._news.wait()


async def test_a_pasta_timer_set_by_voice_rings_on_time_while_parley_sleeps(
    environment: Path, gemini_live_server: FakeGeminiLiveServer
) -> None:
    gemini_live_server.script(
        script(
            (AfterText(), (CallTools((Call("t-1", "set_timer", {"seconds": 540, "label": "pasta"}),)),)),
            (AfterToolResponse("t-1"), (OutputTranscript("Pasta timer set for nine minutes."), CompleteTurn())),
        )
    )
    clock, front, speaker = ManualClock(), Front(), Speaker()
    ringers: list[SoundRinger] = []

    def kits(services: ChatServices, _sink: NullSink) -> Sequence[ToolKit]:
        kit, ringer = timer_kit(
            load_settings(), services, post=front.post, sink=speaker, clock=clock, pause=clock.pause
        )
        assert ringer is not None
        ringers.append(ringer)
        return [kit]

    async with running_loop(environment, toolkits=kits) as running:
        await running.loop.send_text("Set a pasta timer for nine minutes")
        await running.watcher.until_saved(turns=2)
        await running.watcher.until(lambda: running.watcher.of("state")[-1] is AssistantState.SLEEPING)
        sent = await gemini_live_server.connection(0)
        assert "set_timer" in json.dumps(sent.setup)
        [timers] = [e.timers for e in front.of(TimersChanged) if e.timers]
        assert [(t.label, t.chat_id) for t in timers] == [("pasta", running.chat_id)]

        await planned(clock, 539)
        assert front.of(TimerRinging) == [] and speaker.played == []
        clock.advance(1)
        await front.until(TimerRinging)
        [ringing] = front.of(TimerRinging)
        assert ringing.message == "Your pasta timer is up."
        await speaker.until(2)  # the chime, then the words
        assert speaker.played[0] == earcon().pcm and len(speaker.played[1]) > 0
        assert front.of(TimersChanged)[-1] == TimersChanged(())  # no longer running
        assert (await history(running))[-1] == ("model", "Your pasta timer is up.")

        ringers[0].stop(ringing.timer.id)  # the window's Stop button
        await front.until(TimerStopped)
        assert len(speaker.played) == 2  # stopped before the next round
        await planned(clock, 3600)
    assert len(front.of(TimerRinging)) == 1
    assert len(gemini_live_server.connections) == 1  # asleep, it rang in the offline voice: no session opened


@pytest.mark.parametrize(("language", "word"), [("en", "stop"), ("it", "basta")])
async def test_a_ringing_timer_stops_when_the_user_says_stop_without_the_wake_word(
    environment: Path,
    gemini_live_server: FakeGeminiLiveServer,
    *,
    model_cache: Path,
    monkeypatch: pytest.MonkeyPatch,
    language: str,
    word: str,
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))  # Whisper base, prepared once for the session
    monkeypatch.setenv("PARLEY_LANGUAGE", language)
    gemini_live_server.script(
        script(
            (AfterText(), (CallTools((Call("t-1", "set_timer", {"seconds": 60, "label": "pasta"}),)),)),
            (AfterToolResponse("t-1"), (OutputTranscript("Done."), CompleteTurn())),
        )
    )
    clock, front, speaker = ManualClock(), Front(), Speaker()

    def kits(services: ChatServices, _sink: NullSink) -> Sequence[ToolKit]:
        kit, _ = timer_kit(load_settings(), services, post=front.post, sink=speaker, clock=clock, pause=clock.pause)
        return [kit]

    async with running_loop(environment, toolkits=kits) as running:
        await running.loop.send_text("Set a pasta timer for a minute")
        await running.watcher.until_saved(turns=2)
        await running.watcher.until(lambda: running.watcher.of("state")[-1] is AssistantState.SLEEPING)
        await planned(clock, 60)
        await front.until(TimerRinging)
        await speaker.until(2)  # the first round: the chime, then the words

        running.microphone.feed(AudioChunk(MIC_FORMAT, silence(500) + await said(word, language) + silence(1_500), 0.0))
        await front.until(TimerStopped)
        await planned(clock, 3600)
        assert len(speaker.played) == 2  # no second round
        assert [wake.model for wake in running.watcher.of("wake")] == [TYPED_TEXT]  # the wake word was not needed
