"""A timer that rings while a Live session is connected speaks in Gemini's voice (the voice the user is
hearing answer), asked in a short session of its own; asleep, or when that session fails, is refused (a
limit of sessions open at once) or hangs, it speaks in the offline voice, its chime on time whatever the
session does. The real voice loop, timer kit and google-genai client against the fake Live server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import pytest

from app.config.settings import load_settings
from app.core.events import TimerRinging
from app.core.toolkit import ToolKit
from app.timers.ring_voice import GEMINI_WAIT_S, READ_ALOUD
from app.timers.ringing import ROUND_GAP_S, SoundRinger
from app.timers.wiring import timer_kit
from app.wiring import ChatServices
from tests.app.test_timers_by_voice import WAIT_S, Front, Speaker, planned
from tests.app.timers.clock import ManualClock
from tests.app.voice_harness import running_loop
from tests.fakes.gemini_live_scenario import (
    AfterText,
    AfterToolResponse,
    Audio,
    Call,
    CallTools,
    Close,
    CompleteTurn,
    ConnectionScript,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from voice.audio.earcon import earcon
from voice.audio.null_sink import NullSink

GEMINIS_WORDS = bytes(range(256)) * 40
"""What the fake Live service says for the reminder: 213 ms of 24 kHz voice."""


def setting_a_timer() -> ConnectionScript:
    return script(
        (AfterText(), (CallTools((Call("t-1", "set_timer", {"seconds": 60, "label": "pasta"}),)),)),
        (AfterToolResponse("t-1"), (OutputTranscript("Pasta timer set."), CompleteTurn())),
    )


async def the_first_round(speaker: Speaker, clock: ManualClock, server: FakeGeminiLiveServer) -> None:
    await speaker.until(2)  # the chime, then the words


async def ring_during_a_conversation(
    environment: Path,
    server: FakeGeminiLiveServer,
    monkeypatch: pytest.MonkeyPatch,
    while_ringing: Callable[[Speaker, ManualClock, FakeGeminiLiveServer], Awaitable[None]] = the_first_round,
) -> tuple[Speaker, Front]:
    """Set a one-minute timer by typing, and let it ring while the conversation is still open."""
    monkeypatch.setenv("PARLEY_IDLE_SECONDS", "600")  # the conversation stays connected
    clock, front, speaker = ManualClock(), Front(), Speaker()

    def kits(services: ChatServices, _sink: NullSink) -> Sequence[ToolKit]:
        kit, ringer = timer_kit(
            load_settings(), services, post=front.post, sink=speaker, clock=clock, pause=clock.pause
        )
        assert isinstance(ringer, SoundRinger)
        return [kit]

    async with running_loop(environment, toolkits=kits) as running:
        await running.loop.send_text("Set a pasta timer for one minute")
        await running.watcher.until(lambda: len(running.watcher.spoken()) == 2)  # answered, still connected
        await planned(clock, 60)
        await front.until(TimerRinging)
        await while_ringing(speaker, clock, server)
        running.loop.stop()
    return speaker, front


async def test_a_ring_while_connected_speaks_in_geminis_voice_from_a_session_of_its_own(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    gemini_live_server.script(
        setting_a_timer(), script((AfterText(), (Audio(GEMINIS_WORDS), OutputTranscript("x"), CompleteTurn())))
    )
    speaker, _ = await ring_during_a_conversation(environment, gemini_live_server, monkeypatch)
    assert speaker.played[:2] == [earcon().pcm, GEMINIS_WORDS]
    ring = await gemini_live_server.connection(1)
    assert ring.texts == ["Your pasta timer is up."]
    assert READ_ALOUD in json.dumps(ring.setup)
    assert "set_timer" not in json.dumps(ring.setup)  # no tools: it only reads the line
    conversation = await gemini_live_server.connection(0)
    assert conversation.texts == ["Set a pasta timer for one minute"]  # the conversation was not touched


async def test_a_ring_whose_gemini_session_fails_speaks_in_the_offline_voice(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    gemini_live_server.script(setting_a_timer(), script((AfterText(), (Close(1011, "internal error"),))))
    speaker, _ = await ring_during_a_conversation(environment, gemini_live_server, monkeypatch)
    assert speaker.played[0] == earcon().pcm
    assert speaker.played[1] != GEMINIS_WORDS and len(speaker.played[1]) > 0  # espeak-ng's
    assert len(gemini_live_server.connections) == 2


async def two_rounds(speaker: Speaker, clock: ManualClock, server: FakeGeminiLiveServer) -> None:
    await speaker.until(2)
    async with asyncio.timeout(WAIT_S):
        await clock.waited_on(ROUND_GAP_S)
    clock.advance(ROUND_GAP_S)
    await speaker.until(4)  # the second round: chime and words


async def test_a_ring_refused_a_second_session_speaks_in_the_offline_voice_and_asks_once(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    gemini_live_server.max_sessions = 1  # the conversation's session is the one allowed
    gemini_live_server.script(setting_a_timer())
    speaker, _ = await ring_during_a_conversation(environment, gemini_live_server, monkeypatch, two_rounds)
    chime = earcon().pcm
    assert speaker.played[0] == chime == speaker.played[2]
    assert speaker.played[1] != GEMINIS_WORDS and len(speaker.played[1]) > 0  # espeak-ng's
    assert speaker.played[3] == speaker.played[1]  # the same words the next round
    assert len(gemini_live_server.connections) == 2  # the conversation's, and one refused: not one a round
    assert gemini_live_server.connections[1].close_code == 1011


async def hanging(speaker: Speaker, clock: ManualClock, server: FakeGeminiLiveServer) -> None:
    await server.wait_until(lambda: len(server.connections) == 2 and server.connections[1].texts != [])
    async with asyncio.timeout(WAIT_S):
        await clock.waited_on(GEMINI_WAIT_S)
    assert len(speaker.played) == 1  # the chime is out while the session has not answered
    clock.advance(GEMINI_WAIT_S)
    await speaker.until(2)
    await server.wait_until(lambda: server.connections[1].closed)  # the session given up is closed


async def test_a_ring_whose_gemini_session_hangs_chimes_at_once_and_speaks_in_the_offline_voice(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    gemini_live_server.script(setting_a_timer(), script())  # the ring's session: set up, then nothing
    speaker, _ = await ring_during_a_conversation(environment, gemini_live_server, monkeypatch, hanging)
    assert speaker.played[0] == earcon().pcm
    assert len(speaker.played[1]) > 0 and speaker.played[1] != GEMINIS_WORDS  # espeak-ng's
