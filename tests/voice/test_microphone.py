from __future__ import annotations

import asyncio
from contextlib import aclosing

import numpy as np
import pytest

from tests.voice.portaudio_fake import FakeBackend, on_portaudio_thread, peak_hz
from voice.audio.chunks import AudioChunk
from voice.audio.microphone import MicrophoneSource
from voice.audio.pcm import float_to_pcm16
from voice.audio.synthetic import noise
from voice.errors import NoAudioDevice


async def read_all(mic: MicrophoneSource) -> list[AudioChunk]:
    async with aclosing(mic.chunks()) as chunks:
        return [chunk async for chunk in chunks]


async def test_the_microphone_yields_exact_80ms_frames_timed_by_sample_count() -> None:
    backend = FakeBackend()
    mic = MicrophoneSource(backend=backend)
    reading = asyncio.create_task(read_all(mic))
    stream = await backend.started()
    recorded = noise(800, seed=5).pcm

    await on_portaudio_thread(lambda: stream.record(recorded))
    await mic.aclose()
    chunks = await reading

    assert stream.kind == "input" and stream.block_frames == 1280
    assert [len(chunk.pcm) for chunk in chunks] == [2560] * 10
    assert [chunk.start_ms for chunk in chunks] == [80.0 * i for i in range(10)]
    assert b"".join(chunk.pcm for chunk in chunks) == recorded
    assert stream.stopped and stream.closed


async def test_a_device_that_only_runs_at_48k_is_resampled_to_16k_frames() -> None:
    backend = FakeBackend(device_rate=48_000)
    mic = MicrophoneSource(backend=backend)
    reading = asyncio.create_task(read_all(mic))
    stream = await backend.started()
    t = np.arange(48_000) / 48_000
    recorded = float_to_pcm16(0.5 * np.sin(2 * np.pi * 1000 * t))

    await on_portaudio_thread(lambda: stream.record(recorded))
    await mic.aclose()
    chunks = await reading

    assert all(len(chunk.pcm) == 2560 for chunk in chunks)
    pcm = b"".join(chunk.pcm for chunk in chunks)
    assert len(pcm) // 2 == pytest.approx(16_000, abs=1280)  # minus what the resampler still holds
    assert peak_hz(pcm, 16_000) == pytest.approx(1000, abs=2)


async def test_a_consumer_that_falls_behind_loses_the_oldest_chunks_not_memory() -> None:
    backend = FakeBackend()
    mic = MicrophoneSource(backend=backend, max_queued_ms=800)  # ten frames
    got_first = asyncio.Event()
    go_on = asyncio.Event()

    async def slow_reader() -> list[AudioChunk]:
        seen = []
        async with aclosing(mic.chunks()) as chunks:
            async for chunk in chunks:
                seen.append(chunk)
                got_first.set()
                await go_on.wait()
        return seen

    reading = asyncio.create_task(slow_reader())
    stream = await backend.started()
    await on_portaudio_thread(lambda: stream.record(noise(80).pcm))
    await got_first.wait()
    await on_portaudio_thread(lambda: stream.record(noise(2400, seed=1).pcm, overflowed=True))
    go_on.set()
    await mic.aclose()
    chunks = await reading

    assert mic.dropped_chunks == 20
    assert mic.overflows == 30
    assert [chunk.start_ms for chunk in chunks] == [0.0] + [80.0 * i for i in range(21, 31)]


async def test_a_device_that_goes_away_ends_the_stream_with_no_audio_device() -> None:
    backend = FakeBackend()
    mic = MicrophoneSource(backend=backend)
    reading = asyncio.create_task(read_all(mic))
    stream = await backend.started()

    await on_portaudio_thread(stream.finished_callback)

    with pytest.raises(NoAudioDevice, match="the microphone stopped"):
        await reading
    assert stream.closed


async def test_a_closed_microphone_yields_nothing() -> None:
    backend = FakeBackend()
    mic = MicrophoneSource(backend=backend)
    await mic.aclose()
    assert await read_all(mic) == []
    assert backend.streams == []
