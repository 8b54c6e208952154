"""A microphone and a speaker changed for others while in use: one unbroken stream, the old device closed."""

from __future__ import annotations

import asyncio

import pytest

from tests.fakes.fed_microphone import FedMicrophone
from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT, AudioChunk
from voice.audio.null_sink import NullSink
from voice.audio.overlay import Overlays
from voice.audio.switchable import SwitchableSink, SwitchableSource
from voice.audio.synthetic import silence, tone


async def test_the_new_microphone_follows_the_old_one_timed_on_from_where_it_stopped() -> None:
    old, new = FedMicrophone(), FedMicrophone()
    source = SwitchableSource(old)
    old.feed(tone(160, 440.0))
    new.feed(silence(400), silence(160))  # its own clock: from 0, again
    read: list[AudioChunk] = []
    reading = asyncio.create_task(read_all(source, read), name="test-read")
    await old.until_drained()
    await source.switch(new)
    await new.until_drained()
    await source.aclose()
    await reading
    starts = [chunk.start_ms for chunk in read]
    assert starts == [0.0, 80.0, 160.0, 240.0, 320.0, 400.0, 480.0, 560.0, 640.0]
    assert read[0].pcm == tone(160, 440.0).pcm[: len(read[0].pcm)]
    assert all(chunk.format == MIC_FORMAT for chunk in read)


async def read_all(source: SwitchableSource, into: list[AudioChunk]) -> None:
    async for chunk in source.chunks():
        into.append(chunk)


async def test_a_recording_that_ends_by_itself_ends_the_stream() -> None:
    microphone = FedMicrophone()
    microphone.feed(silence(160))
    microphone.end()
    assert len([chunk async for chunk in SwitchableSource(microphone).chunks()]) == 2


async def test_a_source_of_another_format_is_refused_and_one_switched_in_after_closing_is_closed() -> None:
    source = SwitchableSource(FedMicrophone())
    with pytest.raises(ValueError, match="gives"):
        await source.switch(FedMicrophone(MODEL_VOICE_FORMAT))
    await source.aclose()
    late = FedMicrophone()
    late.feed(silence(80))
    await source.switch(late)
    assert len([chunk async for chunk in late.chunks()]) == 1  # ended: closed as it came


async def test_the_speaker_plays_through_the_new_sink_and_closes_the_old() -> None:
    old, new = NullSink(MODEL_VOICE_FORMAT), NullSink(MODEL_VOICE_FORMAT)
    sink = SwitchableSink(old)
    await sink.switch(new)
    await sink.write(AudioChunk(MODEL_VOICE_FORMAT, bytes(4_800), 0.0))
    await sink.drain()
    assert new.written_ms == 100.0 and old.written_ms == 0.0
    assert old.closed and not new.closed
    with pytest.raises(ValueError, match="takes"):
        await sink.switch(NullSink(MIC_FORMAT))


class MixingSink(NullSink):
    """A sink that lays a chunk over what it holds, as the speaker does (`voice.audio.overlay`)."""

    def __init__(self) -> None:
        super().__init__(MODEL_VOICE_FORMAT)
        self.overlaid: list[AudioChunk] = []

    async def overlay(self, chunk: AudioChunk) -> None:
        self.overlaid.append(chunk)

    def withdraw_overlays(self) -> None:
        self.overlaid.clear()


async def test_a_ring_is_laid_over_the_voice_through_the_switchable_speaker_when_the_sink_in_use_can() -> None:
    ring = AudioChunk(MODEL_VOICE_FORMAT, bytes(4_800), 0.0)
    plain, mixing = NullSink(MODEL_VOICE_FORMAT), MixingSink()
    sink = SwitchableSink(plain)
    assert isinstance(sink, Overlays)  # the ringer asks this of the sink it was given
    await sink.overlay(ring)
    await sink.drain()
    assert plain.written_ms == 100.0  # a sink that cannot mix plays it after what it holds
    sink.withdraw_overlays()  # a ring stopped: nothing to withdraw from a sink that cannot mix
    await sink.switch(mixing)
    await sink.overlay(ring)
    assert mixing.overlaid == [ring] and mixing.written_ms == 0.0
    sink.withdraw_overlays()
    assert mixing.overlaid == []  # withdrawn from the sink in use
