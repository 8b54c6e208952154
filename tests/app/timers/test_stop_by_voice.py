"""A ringing timer hears "stop" on the microphone stream the voice loop hands it (the real ringer, the real
Silero VAD and Whisper base): another word does not stop it, and without a microphone only the button does."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path

import pytest

from app.core.events import TimerStopped
from app.core.timer import Timer
from app.core.toolkit import ConversationVoice, Overhear
from app.timers.ring_voice import RingVoice
from app.timers.ringing import ROUND_GAP_S, SoundRinger
from app.timers.wiring import StopSpotter
from tests.app.test_timers_by_voice import WAIT_S, Front, Speaker
from tests.app.timers.clock import START, ManualClock
from tests.voice.fixtures import silence, split
from tests.voice.offline.said import said
from voice.audio.preroll import PrerollStream
from voice.offline.engine import LoadedTranscriber, OfflineVoice, load_transcriber
from voice.offline.heard import Heard

TIMER = Timer("a1b2c3", "timer", "pasta", START, START)
QUIET_S = 600.0
"""The spotter's models are kept over a test, as between the rings of a day, unless a test lets them go."""


@pytest.fixture(autouse=True)
def models(model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))  # Whisper base, prepared once for the session
    yield


async def ringing(
    front: Front,
    speaker: Speaker,
    clock: ManualClock,
    language: str,
    overhear: Overhear,
    *,
    spotter: StopSpotter | None = None,
) -> SoundRinger:
    spot = (spotter or StopSpotter(quiet_s=QUIET_S)).spot
    ringer = SoundRinger(post=front.post, language=language, zone=UTC, sink=speaker, spot=spot, pause=clock.pause)
    ringer.listen_through(overhear)
    return ringer


async def between_rounds(clock: ManualClock) -> None:
    """Until the ring waits on the clock for its next round."""
    async with asyncio.timeout(WAIT_S):
        await clock.pauses.wait()


def hearing_task() -> asyncio.Task[object]:
    """The ring's listening, by its name."""
    [task] = [t for t in asyncio.all_tasks() if t.get_name() == f"timer-hears-stop-{TIMER.id}"]
    return task


@pytest.mark.parametrize(("language", "word", "stops"), [("de", "stopp", True), ("en", "hello", False)])
async def test_a_stop_word_stops_the_ring_and_another_word_does_not(language: str, word: str, stops: bool) -> None:
    clock, front, speaker, microphone = ManualClock(), Front(), Speaker(), PrerollStream()
    ringer = await ringing(front, speaker, clock, language, lambda: microphone.since(microphone.end_ms))
    ring = asyncio.create_task(ringer.ring(TIMER))
    await speaker.until(1)  # the first round's chime (no voice here)
    hearing = hearing_task()
    for chunk in split(silence(500) + await said(word, language) + silence(1_500)):
        microphone.append(chunk)
    microphone.end()
    async with asyncio.timeout(WAIT_S):
        await hearing  # it heard the word, or the stream ended
    if not stops:
        await between_rounds(clock)
        clock.advance(ROUND_GAP_S)
        await speaker.until(2)  # a second round: the ring went on
        assert front.of(TimerStopped) == []
        ringer.stop(TIMER.id)  # the button
    async with asyncio.timeout(WAIT_S):
        await ring
    assert len(front.of(TimerStopped)) == 1
    assert len(speaker.played) == (1 if stops else 2)


async def stopped_by_voice(ringer: SoundRinger, speaker: Speaker, microphone: PrerollStream) -> None:
    """Ring, say "stop" after the first chime; until the ring ends."""
    ring = asyncio.create_task(ringer.ring(TIMER))
    await speaker.until(len(speaker.played) + 1)
    for chunk in split(silence(500) + await said("stop", "en") + silence(1_500)):
        microphone.append(chunk)
    microphone.end()
    async with asyncio.timeout(WAIT_S):
        await ring


async def test_the_spotters_models_are_let_go_after_a_quiet_spell_and_load_again_at_the_next_ring() -> None:
    spotter = StopSpotter(quiet_s=0.0)
    front, speaker, microphones = Front(), Speaker(), [PrerollStream(), PrerollStream()]
    ringer = await ringing(
        front, speaker, ManualClock(), "en", lambda: microphones[0].since(microphones[0].end_ms), spotter=spotter
    )
    await stopped_by_voice(ringer, speaker, microphones[0])
    assert len(front.of(TimerStopped)) == 1 and len(speaker.played) == 1  # heard: loaded for the ring
    async with spotter.part.lease() as loaded:  # what the ring used, still held until its quiet spell
        assert loaded is not None
        kept = weakref.ref(loaded)
    del loaded
    releases = [t for t in asyncio.all_tasks() if t.get_name() == "release the timer's stop spotter"]
    async with asyncio.timeout(WAIT_S):
        await asyncio.gather(*releases)
    assert not spotter.part.loaded and kept() is None  # nothing holds Whisper and the VAD any more

    microphones.pop(0)
    await stopped_by_voice(ringer, speaker, microphones[0])
    assert len(front.of(TimerStopped)) == 2 and len(speaker.played) == 2  # loaded again, and heard
    await spotter.part.aclose()


async def test_without_a_microphone_only_the_button_stops_a_ring() -> None:
    clock, front, speaker = ManualClock(), Front(), Speaker()
    ringer = await ringing(front, speaker, clock, "en", lambda: None)
    ring = asyncio.create_task(ringer.ring(TIMER))
    await speaker.until(1)
    await between_rounds(clock)
    clock.advance(ROUND_GAP_S)
    await speaker.until(2)  # a second round
    assert front.of(TimerStopped) == []
    ringer.stop()
    async with asyncio.timeout(WAIT_S):
        await ring
    assert len(front.of(TimerStopped)) == 1


async def test_offline_a_stop_is_heard_by_the_offline_voices_own_whisper_not_a_second_copy(model_cache: Path) -> None:
    voice = await OfflineVoice.load(model_cache, LoadedTranscriber(await load_transcriber(model_cache)), language="en")
    heard: list[str] = []

    async def transcribe(pcm: bytes, prompt: str, language: str) -> Heard:  # the offline voice's, counted
        words = await voice.transcribe_in(pcm, prompt, language)
        heard.append(words.text)
        return words

    lent = RingVoice(None)
    lent.speak_with(ConversationVoice(connected=lambda: False, transcribe=transcribe))
    clock, front, speaker, microphone = ManualClock(), Front(), Speaker(), PrerollStream()
    ringer = SoundRinger(
        post=front.post,
        language="en",
        zone=UTC,
        sink=speaker,
        spot=StopSpotter(lent.shared_whisper, quiet_s=QUIET_S).spot,
        pause=clock.pause,
    )
    ringer.listen_through(lambda: microphone.since(microphone.end_ms))
    try:
        ring = asyncio.create_task(ringer.ring(TIMER))
        await speaker.until(1)
        for chunk in split(silence(500) + await said("stop", "en") + silence(1_500)):
            microphone.append(chunk)
        microphone.end()
        async with asyncio.timeout(WAIT_S):
            await ring
    finally:
        await voice.aclose()
    assert len(front.of(TimerStopped)) == 1 and len(speaker.played) == 1
    assert [text.strip(" .").lower() for text in heard] == ["stop"]
