"""A timer that rings while the model speaks is heard at once, over the model's voice (ducked beneath it),
not after all of it: the real ringer on the real speaker sink, whose device is PortAudio's callback run by
the test (tests/voice/portaudio_fake.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, Sequence
from datetime import UTC

from app.core.timer import Timer
from app.timers.ringing import SoundRinger
from tests.app.test_timers_by_voice import WAIT_S, Front
from tests.app.timers.clock import START, ManualClock
from tests.voice.portaudio_fake import FakeBackend, on_portaudio_thread
from voice.audio.chunks import MODEL_VOICE_FORMAT, AudioChunk
from voice.audio.earcon import earcon
from voice.audio.overlay import overlaid
from voice.audio.preroll import PrerollStream
from voice.audio.speaker import SpeakerSink
from voice.audio.synthetic import tone

TIMER = Timer("a1b2c3", "timer", "pasta", START, START)
BLOCK = 960
"""20 ms of the model's voice, what one callback takes."""


async def test_a_ring_during_the_models_answer_is_heard_at_once_and_the_answer_goes_on_after() -> None:
    backend = FakeBackend()
    speaker = SpeakerSink(backend=backend)
    answer = tone(8000, 220, format=MODEL_VOICE_FORMAT)  # eight seconds of the model's voice, queued
    await speaker.write(answer)
    stream = await backend.started()
    await on_portaudio_thread(lambda: stream.play(50))  # one second of it heard
    clock = ManualClock()
    ringer = SoundRinger(post=Front().post, language="en", zone=UTC, sink=speaker, pause=clock.pause)

    ringing = asyncio.create_task(ringer.ring(TIMER))
    async with asyncio.timeout(WAIT_S):
        await clock.pauses.wait()  # the first round was handed to the speaker
    heard = await on_portaudio_thread(lambda: stream.play(10))

    chime = earcon(MODEL_VOICE_FORMAT).pcm
    assert heard == overlaid(answer.pcm[50 * BLOCK : 60 * BLOCK], chime[: 10 * BLOCK])  # the chime, now
    ringer.stop()
    await ringing
    rest = await on_portaudio_thread(lambda: stream.play(350))
    left = answer.pcm[50 * BLOCK :]
    assert (heard + rest)[: len(left)] == overlaid(left, chime)  # then all the rest of the answer, as it was
    await speaker.aclose()


async def test_a_ring_stopped_mid_round_is_silent_from_the_next_block_and_the_answer_goes_on_as_it_was() -> None:
    backend = FakeBackend()
    speaker = SpeakerSink(backend=backend)
    answer = tone(8000, 220, format=MODEL_VOICE_FORMAT)
    await speaker.write(answer)
    stream = await backend.started()
    clock = ManualClock()

    async def words(text: str, language: str) -> bytes:  # a round of a few seconds: the chime, then words
        return tone(3000, 880, format=MODEL_VOICE_FORMAT).pcm

    ringer = SoundRinger(post=Front().post, language="en", zone=UTC, sink=speaker, speak=words, pause=clock.pause)
    ringing = asyncio.create_task(ringer.ring(TIMER))
    async with asyncio.timeout(WAIT_S):
        await clock.pauses.wait()  # the first round was handed to the speaker
    heard = await on_portaudio_thread(lambda: stream.play(20))  # 400 ms of the round
    ringer.stop()  # the window's Stop, or "stop" heard
    await ringing
    rest = await on_portaudio_thread(lambda: stream.play(20))

    assert heard != answer.pcm[: len(heard)]  # the ring was heard over the answer
    assert rest == answer.pcm[len(heard) : len(heard) + len(rest)]  # then at once the answer alone, not ducked
    await speaker.aclose()


async def test_a_ring_listens_for_the_stop_words_it_does_not_say_itself() -> None:
    asked: list[list[str]] = []

    async def spot(chunks: AsyncIterable[AudioChunk], words: Sequence[str], language: str) -> bool:
        asked.append(list(words))
        return True  # heard at once: the ring stops

    microphone = PrerollStream()
    for label in ("stop watch", "pasta"):
        ringer = SoundRinger(post=Front().post, language="en", zone=UTC, spot=spot, pause=ManualClock().pause)
        ringer.listen_through(lambda: microphone.since(microphone.end_ms))
        async with asyncio.timeout(WAIT_S):
            await ringer.ring(Timer("a1", "timer", label, START, START))
    assert asked == [["enough", "quiet", "shut up"], ["stop", "enough", "quiet", "shut up"]]
