"""A speaker the conversation can do without: once it fails, the voice is dropped and the failure told once."""

from __future__ import annotations

from voice.audio.chunks import MODEL_VOICE_FORMAT, AudioChunk
from voice.audio.null_sink import NullSink
from voice.audio.optional_sink import OptionalSink
from voice.errors import AudioError, NoAudioDevice

CHUNK = AudioChunk(MODEL_VOICE_FORMAT, bytes(4800), 0.0)


class Unplugged(NullSink):
    """Plays `works` chunks, then fails as a speaker whose device went away."""

    def __init__(self, works: int) -> None:
        super().__init__(clock=lambda: 0.0)  # nothing plays out by itself: what is written stays queued
        self.works = works

    async def write(self, chunk: AudioChunk) -> None:
        if self.chunks_written == self.works:
            raise NoAudioDevice("the speaker stopped: the output device went away")
        await super().write(chunk)


async def test_a_failing_speaker_is_told_once_and_the_voice_dropped_from_then_on() -> None:
    told: list[AudioError] = []
    speaker = Unplugged(works=1)
    sink = OptionalSink(speaker, told.append)
    await sink.write(CHUNK)
    assert sink.queued_ms == 100.0 and sink.failure is None
    await sink.write(CHUNK)
    await sink.write(CHUNK)
    assert [str(error) for error in told] == ["the speaker stopped: the output device went away"]
    assert sink.failure is told[0]
    assert sink.queued_ms == 0.0  # nothing to wait for: the idle countdown need not wait for it
    assert speaker.chunks_written == 1
    await sink.drain()
    await sink.aclose()
    assert speaker.closed


async def test_a_working_speaker_plays_everything() -> None:
    told: list[AudioError] = []
    speaker = NullSink(clock=lambda: 0.0)
    sink = OptionalSink(speaker, told.append)
    await sink.write(CHUNK)
    await sink.write(CHUNK)
    sink.clear()
    await sink.write(CHUNK)
    await sink.drain()
    assert told == [] and speaker.chunks_written == 3 and speaker.clears == 1
    assert speaker.dropped_ms == 200.0 and speaker.played_ms == 100.0


async def test_a_speaker_that_failed_is_tried_again_once_its_device_is_replaced() -> None:
    told: list[AudioError] = []
    speaker = Unplugged(works=0)
    sink = OptionalSink(speaker, told.append)
    assert not await sink.retry()  # it has not failed: nothing to try
    await sink.write(CHUNK)
    assert not await sink.retry()  # still unplugged: it fails again, and says so again
    assert len(told) == 2 and sink.failure is told[1]
    speaker.works = 1_000  # plugged in again
    assert await sink.retry()
    assert sink.failure is None and speaker.chunks_written == 1  # the moment of silence that opened it
    await sink.write(CHUNK)
    assert speaker.chunks_written == 2 and len(told) == 2
