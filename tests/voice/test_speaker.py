from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

from tests.voice.portaudio_fake import FakeBackend, FakeStream, on_portaudio_thread, peak_hz
from voice.audio.chunks import MODEL_VOICE_FORMAT, AudioChunk
from voice.audio.overlay import overlaid
from voice.audio.speaker import PlaybackBuffer, SpeakerSink
from voice.audio.synthetic import frames, tone
from voice.errors import NoAudioDevice


def test_the_playback_buffer_hands_out_blocks_across_pushes_and_pads_with_silence() -> None:
    buffer = PlaybackBuffer()
    buffer.push(b"abc")
    buffer.push(b"")
    buffer.push(b"defgh")
    assert len(buffer) == 8
    assert buffer.pull(2) == (b"ab", False)
    assert buffer.pull(4) == (b"cdef", False)
    assert buffer.pull(4) == (b"gh\x00\x00", True)  # emptied by this pull
    assert buffer.pull(4) == (bytes(4), False)  # already empty: no new "emptied"
    buffer.push(b"xyz")
    assert buffer.clear() == 3
    assert buffer.pull(2) == (bytes(2), False)


async def test_barge_in_silences_the_speaker_from_the_next_callback_on() -> None:
    backend = FakeBackend()
    sink = SpeakerSink(backend=backend)
    reply = tone(1000, 440, format=MODEL_VOICE_FORMAT)
    for chunk in frames(reply, frame_ms=20):
        await sink.write(chunk)
    stream = await backend.started()
    assert stream.kind == "output" and stream.block_frames == 480  # 20 ms at 24 kHz

    heard = await on_portaudio_thread(lambda: stream.play(3))
    assert heard == reply.pcm[: 3 * 960]
    sink.clear()
    after = await on_portaudio_thread(lambda: stream.play(2))

    assert after == bytes(2 * 960)
    assert sink.dropped_bytes == len(reply.pcm) - 3 * 960
    assert sink.queued_ms == 0
    await sink.drain()  # nothing left: returns at once
    await sink.aclose()


async def test_drain_waits_until_the_callback_has_taken_the_last_of_the_audio() -> None:
    backend = FakeBackend()
    sink = SpeakerSink(backend=backend)
    await sink.write(tone(100, format=MODEL_VOICE_FORMAT))  # five 20 ms blocks
    stream = await backend.started()
    draining = asyncio.create_task(sink.drain())

    await on_portaudio_thread(lambda: stream.play(4))
    assert not draining.done()
    assert sink.queued_ms == 20
    await on_portaudio_thread(lambda: stream.play(1))
    await asyncio.wait_for(draining, timeout=10)

    await sink.aclose()
    assert stream.stopped and stream.closed


async def test_clear_releases_a_waiting_drain() -> None:
    backend = FakeBackend()
    sink = SpeakerSink(backend=backend)
    await sink.write(tone(500, format=MODEL_VOICE_FORMAT))
    await backend.started()
    draining = asyncio.create_task(sink.drain())
    await asyncio.sleep(0)
    assert not draining.done()
    sink.clear()
    await asyncio.wait_for(draining, timeout=10)
    await sink.aclose()


async def test_a_speaker_that_only_runs_at_48k_gets_resampled_audio() -> None:
    backend = FakeBackend(device_rate=48_000)
    sink = SpeakerSink(backend=backend)
    for chunk in frames(tone(1000, 1000, format=MODEL_VOICE_FORMAT), frame_ms=40):
        await sink.write(chunk)
    stream = await backend.started()
    assert stream.block_frames == 960
    draining = asyncio.create_task(sink.drain())
    await asyncio.sleep(0)  # the drain hands over what the resampler held back, then waits

    played = await on_portaudio_thread(lambda: stream.play(60))
    await asyncio.wait_for(draining, timeout=10)
    samples = np.frombuffer(played, dtype=np.int16)
    sounding = np.flatnonzero(np.abs(samples) > 1000)

    assert sounding[-1] - sounding[0] == pytest.approx(48_000, abs=960)
    assert peak_hz(played, 48_000) == pytest.approx(1000, abs=2)
    await sink.aclose()


async def test_a_speaker_that_goes_away_fails_the_waiting_drain_and_later_writes() -> None:
    backend = FakeBackend()
    sink = SpeakerSink(backend=backend)
    await sink.write(tone(1000, format=MODEL_VOICE_FORMAT))
    stream = await backend.started()
    draining = asyncio.create_task(sink.drain())
    await asyncio.sleep(0)

    await on_portaudio_thread(stream.finished_callback)

    with pytest.raises(NoAudioDevice, match="the speaker stopped"):
        await asyncio.wait_for(draining, timeout=10)
    with pytest.raises(NoAudioDevice, match="the speaker stopped"):
        await sink.write(tone(20, format=MODEL_VOICE_FORMAT))
    await sink.aclose()
    assert stream.closed


async def test_a_closed_speaker_refuses_audio_and_chunks_must_match_its_format() -> None:
    sink = SpeakerSink(backend=FakeBackend())
    with pytest.raises(ValueError, match="does not match"):
        await sink.write(tone(80))  # 16 kHz into a 24 kHz speaker
    await sink.aclose()
    with pytest.raises(RuntimeError, match="closed"):
        await sink.write(tone(80, format=MODEL_VOICE_FORMAT))


async def test_every_block_the_device_takes_is_reported_as_played() -> None:
    backend = FakeBackend()
    played: list[AudioChunk] = []
    sink = SpeakerSink(backend=backend, on_played=played.append)
    await sink.write(tone(60, format=MODEL_VOICE_FORMAT))  # three 20 ms blocks
    stream = await backend.started()
    sounded = await on_portaudio_thread(lambda: stream.play(4))
    assert [chunk.start_ms for chunk in played] == [0.0, 20.0, 40.0, 60.0]
    assert b"".join(chunk.pcm for chunk in played) == sounded
    assert all(chunk.format == MODEL_VOICE_FORMAT for chunk in played)
    await sink.aclose()


class EagerBackend(FakeBackend):
    """A device whose first callback comes while `start()` is still running, as PortAudio's may."""

    def open_stream(self, *args: Any, **kwargs: Any) -> FakeStream:
        stream = super().open_stream(*args, **kwargs)
        started = stream.start

        def start() -> None:
            started()
            stream.play(1)

        stream.start = start  # type: ignore[method-assign]
        return stream


async def test_what_is_played_is_reported_from_the_very_first_callback() -> None:
    played: list[AudioChunk] = []
    sink = SpeakerSink(backend=EagerBackend(), on_played=played.append)
    await sink.write(tone(20, 440, format=MODEL_VOICE_FORMAT))
    await asyncio.sleep(0)  # the callbacks PortAudio's thread queued on the loop have run
    assert [(chunk.format, chunk.start_ms) for chunk in played] == [(MODEL_VOICE_FORMAT, 0.0)]


def test_an_overlay_plays_from_the_next_pull_over_the_ducked_queue_and_the_next_follows_it() -> None:
    buffer = PlaybackBuffer()
    voice = np.full(8, 1000, dtype=np.int16).tobytes()
    buffer.push(voice)
    assert buffer.pull(4)[0] == voice[:4]  # two samples played
    buffer.overlay(np.full(2, 100, dtype=np.int16).tobytes())
    buffer.overlay(np.full(2, 7, dtype=np.int16).tobytes())  # after the first, not over it
    heard = np.frombuffer(buffer.pull(12)[0], dtype=np.int16).tolist()
    assert heard == [350, 350, 257, 257, 1000, 1000]  # ducked to 250 under both, then the voice as it was
    assert buffer.pull(4) == (bytes(4), False)
    buffer.overlay(np.full(2, 9, dtype=np.int16).tobytes())  # nothing queued: played at once
    assert np.frombuffer(buffer.pull(4)[0], dtype=np.int16).tolist() == [9, 9]


def test_withdrawn_overlays_fall_silent_at_once_and_the_queue_plays_on_unducked() -> None:
    buffer = PlaybackBuffer()
    voice = np.full(6, 1000, dtype=np.int16).tobytes()
    buffer.push(voice)
    buffer.overlay(np.full(4, 100, dtype=np.int16).tobytes())
    assert np.frombuffer(buffer.pull(4)[0], dtype=np.int16).tolist() == [350, 350]
    assert buffer.withdraw_overlays() == 4  # two samples of it were still to play
    assert np.frombuffer(buffer.pull(8)[0], dtype=np.int16).tolist() == [1000, 1000, 1000, 1000]
    buffer.overlay(np.full(2, 9, dtype=np.int16).tobytes())
    buffer.withdraw_overlays()
    assert buffer.pull(4) == (bytes(4), False)  # nothing left: silence


def test_overlaid_mixing_saturates_and_runs_as_long_as_the_longer_sound() -> None:
    loud = np.full(3, 30000, dtype=np.int16).tobytes()
    assert np.frombuffer(overlaid(loud[:2], loud), dtype=np.int16).tolist() == [32767, 30000, 30000]
    assert np.frombuffer(overlaid(loud, b""), dtype=np.int16).tolist() == [30000] * 3


async def test_an_overlay_is_heard_at_once_over_the_queued_voice_which_goes_on_after_it() -> None:
    backend = FakeBackend()
    sink = SpeakerSink(backend=backend)
    voice = tone(2000, 440, format=MODEL_VOICE_FORMAT)
    await sink.write(voice)
    stream = await backend.started()
    await on_portaudio_thread(lambda: stream.play(5))
    bell = tone(200, 1500, format=MODEL_VOICE_FORMAT)
    await sink.overlay(bell)
    heard = await on_portaudio_thread(lambda: stream.play(10))  # the next 200 ms
    assert peak_hz(heard, MODEL_VOICE_FORMAT.rate) == pytest.approx(1500, abs=10)
    rest = await on_portaudio_thread(lambda: stream.play(200))
    assert rest[: len(voice.pcm) - 15 * 960] == voice.pcm[15 * 960 :]  # nothing of the voice lost
    await sink.aclose()
