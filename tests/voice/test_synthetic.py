from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import numpy as np
import pytest

from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT, AudioChunk, AudioFormat
from voice.audio.null_sink import NullSink
from voice.audio.pacing import RealTimePacer
from voice.audio.pcm import pcm16_to_float
from voice.audio.synthetic import SyntheticSource, frames, noise, silence, tone


async def collect(source: SyntheticSource) -> list[AudioChunk]:
    return [chunk async for chunk in source.chunks()]


def test_silence_is_zero_samples_of_the_asked_length() -> None:
    clip = silence(250)
    assert clip.format == MIC_FORMAT
    assert clip.pcm == bytes(8000)
    assert clip.duration_ms == 250
    stereo = silence(10, format=AudioFormat(rate=48_000, channels=2), start_ms=40)
    assert (len(stereo.pcm), stereo.start_ms, stereo.end_ms) == (1920, 40, 50)


def test_a_tone_has_its_pitch_and_amplitude() -> None:
    clip = tone(1000, 440, amplitude=0.25, format=MODEL_VOICE_FORMAT)
    samples = pcm16_to_float(clip.pcm, 1)[:, 0]
    assert len(samples) == 24_000
    assert np.abs(samples).max() == pytest.approx(0.25, abs=1e-3)
    spectrum = np.abs(np.fft.rfft(samples))
    assert np.fft.rfftfreq(len(samples), 1 / 24_000)[np.argmax(spectrum)] == 440


def test_noise_is_repeatable_by_seed_and_has_the_asked_spread() -> None:
    assert noise(200, seed=1) == noise(200, seed=1)
    assert noise(200, seed=1).pcm != noise(200, seed=2).pcm
    samples = pcm16_to_float(noise(2000, amplitude=0.1).pcm, 1)
    assert samples.std() == pytest.approx(0.1, rel=0.05)
    assert abs(samples.mean()) < 0.01


def test_clip_lengths_cannot_be_negative() -> None:
    with pytest.raises(ValueError, match="-5 ms"):
        silence(-5)


def test_frames_joins_clips_and_cuts_them_into_timed_frames() -> None:
    chunks = frames(silence(400), tone(800), silence(30))
    assert len(chunks) == 16
    assert [chunk.start_ms for chunk in chunks[:3]] == [0, 80, 160]
    assert chunks[-1].duration_ms == 30
    assert chunks[4].pcm == bytes(2560)  # the last frame of silence
    assert chunks[5].pcm == tone(800).pcm[:2560]
    assert frames() == []
    with pytest.raises(ValueError, match="different formats"):
        frames(silence(80), silence(80, format=MODEL_VOICE_FORMAT))


async def test_a_list_of_chunks_is_yielded_as_given_every_time() -> None:
    given = [tone(80, start_ms=0), silence(80, start_ms=80), noise(80, start_ms=160)]
    source = SyntheticSource(given)
    assert await collect(source) == given
    assert await collect(source) == given
    assert source.format == MIC_FORMAT


async def test_sync_and_async_generators_are_consumed_once() -> None:
    def sync_chunks() -> Iterator[AudioChunk]:
        yield from frames(tone(240))

    async def async_chunks() -> AsyncIterator[AudioChunk]:
        for chunk in frames(noise(160)):
            yield chunk

    assert [c.start_ms for c in await collect(SyntheticSource(sync_chunks()))] == [0, 80, 160]
    assert len(await collect(SyntheticSource(async_chunks()))) == 2


async def test_from_clips_builds_a_stream_for_state_machine_tests() -> None:
    source = SyntheticSource.from_clips(silence(160), tone(160, 600), silence(160))
    chunks = await collect(source)
    assert len(chunks) == 6
    assert [chunk.pcm == bytes(2560) for chunk in chunks] == [True, True, False, False, True, True]


async def test_a_chunk_in_another_format_is_refused() -> None:
    source = SyntheticSource([silence(80, format=MODEL_VOICE_FORMAT)])
    with pytest.raises(ValueError, match="does not match"):
        await collect(source)


async def test_a_pacer_makes_it_real_time() -> None:
    now = [10.0]
    wakeups: list[float] = []

    async def sleep(seconds: float) -> None:
        now[0] += seconds
        wakeups.append(now[0])

    source = SyntheticSource(frames(silence(240)), pacer=RealTimePacer(clock=lambda: now[0], sleep=sleep))
    await collect(source)
    assert wakeups == pytest.approx([10.08, 10.16, 10.24])


async def test_aclose_ends_the_stream() -> None:
    source = SyntheticSource(frames(silence(800)))
    seen = []
    async for chunk in source.chunks():
        seen.append(chunk)
        await source.aclose()
    assert len(seen) == 1


async def test_the_null_sink_counts_played_and_dropped_audio() -> None:
    sink = NullSink(clock=lambda: 0.0)  # nothing plays by itself: what is written stays queued until drained
    assert sink.format == MODEL_VOICE_FORMAT
    for chunk in frames(tone(400, format=MODEL_VOICE_FORMAT), frame_ms=100):
        await sink.write(chunk)
    await sink.drain()
    await sink.write(silence(300, format=MODEL_VOICE_FORMAT))
    sink.clear()
    await sink.write(silence(50, format=MODEL_VOICE_FORMAT))
    await sink.aclose()

    assert sink.chunks_written == 6
    assert (sink.played_ms, sink.dropped_ms, sink.written_ms) == (450, 300, 750)
    assert sink.clears == 1
    assert sink.closed
    with pytest.raises(RuntimeError, match="closed"):
        await sink.write(silence(20, format=MODEL_VOICE_FORMAT))


async def test_the_null_sink_refuses_chunks_of_another_format() -> None:
    with pytest.raises(ValueError, match="does not match"):
        await NullSink().write(silence(80))
