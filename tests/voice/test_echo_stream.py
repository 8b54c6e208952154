"""The echo-cancelled stream itself: formats, timing and the latency the framing adds, the cancelled source's
order, backlog and failures, and the linear canceller's view that each chunk carries."""

from __future__ import annotations

from collections.abc import AsyncIterator

import numpy as np
import pytest

from tests.fakes.fed_microphone import FedMicrophone
from tests.voice.echo_simulation import (
    ASSETS,
    CHUNK_MS,
    USER,
    floats,
    level_db,
    pcm16,
    playing,
    reply,
    room_echo,
    samples,
    simulate,
    spectral_similarity,
    whole_chunks,
)
from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT, AudioChunk, AudioFormat
from voice.audio.pcm import split
from voice.audio.synthetic import SyntheticSource, tone
from voice.audio.wav import read_recording
from voice.echo.canceller import CancelledChunk, EchoCancelledSource, EchoCanceller
from voice.errors import NoAudioDevice


def test_80_ms_chunks_come_back_with_no_added_delay() -> None:
    clip = whole_chunks(floats(read_recording(ASSETS / USER)))

    cleaned, canceller = simulate(clip)

    assert canceller.delay_ms == 0.0
    assert len(cleaned) == len(clip)
    assert spectral_similarity(cleaned, clip) >= 0.95


@pytest.mark.parametrize("chunk_ms", [25, 85, 3])
def test_chunks_that_split_a_frame_are_delayed_by_less_than_a_frame(chunk_ms: int) -> None:
    """Same audio, other chunk sizes: the output is the 80 ms output, `delay_ms` later, sample for sample."""
    clip = floats(read_recording(ASSETS / USER))
    reference, _ = simulate(clip)

    cleaned, canceller = simulate(clip, mic_chunk_ms=chunk_ms)

    assert 0.0 < canceller.delay_ms < 10.0
    delay = samples(canceller.delay_ms)
    assert not cleaned[:delay].any()
    np.testing.assert_array_equal(cleaned[delay:], reference[: len(cleaned) - delay])


def test_chunks_in_another_format_are_refused() -> None:
    canceller = EchoCanceller()

    with pytest.raises(ValueError, match="does not match"):
        canceller.cleaned(AudioChunk(MODEL_VOICE_FORMAT, bytes(3840), 0.0))
    with pytest.raises(ValueError, match="whole number"):
        canceller.cleaned(AudioChunk(MIC_FORMAT, bytes(3), 0.0))
    with pytest.raises(ValueError, match="whole number"):
        canceller.played(AudioChunk(AudioFormat(rate=48_000, channels=2), bytes(6), 0.0))
    with pytest.raises(ValueError, match="16-bit"):
        canceller.played(AudioChunk(AudioFormat(rate=16_000, channels=1, width=4), bytes(640), 0.0))


@pytest.mark.parametrize(
    "audio_format",
    [AudioFormat(rate=44_100, channels=1), AudioFormat(rate=16_000, channels=2), AudioFormat(16_000, 1, width=4)],
)
def test_microphone_formats_webrtc_cannot_clean_are_refused(audio_format: AudioFormat) -> None:
    with pytest.raises(ValueError, match="echo cancellation needs"):
        EchoCanceller(audio_format)


async def test_a_cancelled_source_hands_on_cleaned_chunks_in_order() -> None:
    canceller = EchoCanceller()
    mic = [tone(80, format=MIC_FORMAT, start_ms=80.0 * i) for i in range(5)]
    source = EchoCancelledSource(SyntheticSource(mic), canceller)
    cleaned = [chunk async for chunk in source.chunks()]
    assert [(c.start_ms, len(c.pcm), c.format) for c in cleaned] == [(c.start_ms, len(c.pcm), c.format) for c in mic]
    assert source.format == MIC_FORMAT


class RecordingCanceller(EchoCanceller):
    """The real canceller, noting the start of every microphone chunk it cleans, in order."""

    def __init__(self) -> None:
        super().__init__(clock=None)
        self.cleaned_ms: list[float] = []

    def cleaned(self, chunk: AudioChunk) -> CancelledChunk:
        self.cleaned_ms.append(chunk.start_ms)
        return super().cleaned(chunk)


async def test_chunks_are_cleaned_when_the_microphone_hands_them_over_not_when_they_are_read() -> None:
    # The speaker's blocks reach the canceller as they play: a late reader must not let them run ahead.
    canceller, microphone = RecordingCanceller(), FedMicrophone()
    chunks = EchoCancelledSource(microphone, canceller).chunks()
    microphone.feed(tone(240, format=MIC_FORMAT))
    first = await anext(chunks)
    await microphone.until_drained()
    assert canceller.cleaned_ms == [0.0, 80.0, 160.0]  # all three, though one was read
    microphone.end()
    assert [first.start_ms, *[chunk.start_ms async for chunk in chunks]] == [0.0, 80.0, 160.0]


async def test_a_reader_far_behind_loses_the_oldest_cleaned_chunks() -> None:
    microphone = FedMicrophone()
    source = EchoCancelledSource(microphone, RecordingCanceller(), max_queued_ms=160.0)
    chunks = source.chunks()
    microphone.feed(tone(80, format=MIC_FORMAT))
    assert (await anext(chunks)).start_ms == 0.0
    microphone.feed(tone(400, format=MIC_FORMAT))  # five more while the reader is away
    await microphone.until_drained()
    microphone.end()
    assert [chunk.start_ms async for chunk in chunks] == [320.0, 400.0]
    assert source.dropped_chunks == 3


async def test_a_microphone_failure_reaches_the_reader() -> None:
    class Broken:
        format = MIC_FORMAT

        async def chunks(self) -> AsyncIterator[AudioChunk]:
            raise NoAudioDevice("no microphone: plug one in")
            yield  # pragma: no cover

        async def aclose(self) -> None:
            return None

    with pytest.raises(NoAudioDevice, match="plug one in"):
        [chunk async for chunk in EchoCancelledSource(Broken(), EchoCanceller()).chunks()]


# The linear canceller's view, handed on with each chunk for the barge-in detector (voice/echo/linear_canceller.py).


@pytest.mark.parametrize("played_format", [MODEL_VOICE_FORMAT, AudioFormat(rate=48_000, channels=2), MIC_FORMAT])
def test_each_chunk_carries_the_linear_cancellers_view_once_it_has_learnt_the_echo(played_format: AudioFormat) -> None:
    """Twice the reply (20 s): the linear filter is trusted after 12-14 s of it. Measured over the last
    4 s: the echo prediction within 0.3 dB of the echo, what the filter leaves 18-24 dB under it (the
    least from 24 kHz, see `LinearEchoFilter._at_mic_rate`)."""
    played = playing(reply(played_format) * 2, played_format, 20)
    echo = whole_chunks(room_echo(floats(reply() * 2), delay_ms=50.0, gain=0.5))
    canceller = EchoCanceller(clock=None)
    chunks: list[CancelledChunk] = []
    for chunk in split(pcm16(echo), MIC_FORMAT, CHUNK_MS):
        for block in played[4 * len(chunks) : 4 * len(chunks) + 4]:
            canceller.played(block)
        chunks.append(canceller.cleaned(chunk))
    assert not chunks[0].linear_trusted and chunks[-1].linear_trusted
    assert all(len(c.linear) == len(c.echo) == len(c.pcm) for c in chunks)
    last = slice(-samples(4000), None)
    linear = floats(b"".join(c.linear for c in chunks))[last]
    predicted = floats(b"".join(c.echo for c in chunks))[last]
    assert level_db(predicted) == pytest.approx(level_db(echo[last]), abs=1.0)
    assert level_db(echo[last]) - level_db(linear) >= 15.0
