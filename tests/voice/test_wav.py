from __future__ import annotations

import re
import warnings
import wave
from pathlib import Path

import numpy as np
import pytest
import soundfile

from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT, AudioChunk, AudioFormat
from voice.audio.pacing import RealTimePacer
from voice.audio.pcm import float_to_pcm16, pcm16_to_float
from voice.audio.synthetic import frames, noise, tone
from voice.audio.wav import WavFileSink, WavFileSource, read_recording
from voice.errors import AudioError, UnreadableAudio


class FakeClock:
    """Time that moves only when the code under test sleeps or the test says so."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now
        self.wakeups: list[float] = []
        """The clock reading at the end of each sleep: the deadline the sleeper aimed at."""

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        assert seconds > 0
        self.now += seconds
        self.wakeups.append(self.now)

    def pacer(self) -> RealTimePacer:
        return RealTimePacer(clock=self.clock, sleep=self.sleep)


async def collect(source: WavFileSource) -> list[AudioChunk]:
    return [chunk async for chunk in source.chunks()]


def pcm_of(chunks: list[AudioChunk]) -> bytes:
    return b"".join(chunk.pcm for chunk in chunks)


def peak_hz(pcm: bytes, rate: int) -> float:
    samples = pcm16_to_float(pcm, 1)[:, 0]
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
    return float(np.fft.rfftfreq(len(samples), 1 / rate)[np.argmax(spectrum)])


def write_mic_wav(path: Path, pcm: bytes) -> Path:
    with wave.open(str(path), "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(16_000)
        file.writeframes(pcm)
    return path


async def test_what_the_sink_writes_the_source_reads_back_sample_for_sample(tmp_path: Path) -> None:
    clip = noise(1000, amplitude=0.3, seed=7)
    sink = WavFileSink(tmp_path / "roundtrip.wav", MIC_FORMAT)
    for chunk in frames(clip, frame_ms=30):
        await sink.write(chunk)
    await sink.aclose()

    chunks = await collect(WavFileSource(sink.path, realtime=False))

    assert pcm_of(chunks) == clip.pcm
    assert sink.written_ms == 1000


async def test_the_sink_header_is_complete_after_close(tmp_path: Path) -> None:
    sink = WavFileSink(tmp_path / "reply.wav", MODEL_VOICE_FORMAT)
    for chunk in frames(tone(1500, 300, format=MODEL_VOICE_FORMAT), frame_ms=40):
        await sink.write(chunk)
    await sink.drain()
    await sink.aclose()

    with wave.open(str(sink.path), "rb") as file:
        assert (file.getframerate(), file.getnchannels(), file.getsampwidth()) == (24_000, 1, 2)
        assert file.getnframes() == 36_000
        assert peak_hz(file.readframes(36_000), 24_000) == pytest.approx(300, abs=1)


async def test_an_untouched_sink_leaves_a_valid_empty_wav(tmp_path: Path) -> None:
    sink = WavFileSink(tmp_path / "nothing.wav")
    await sink.aclose()
    with wave.open(str(sink.path), "rb") as file:
        assert (file.getframerate(), file.getnframes()) == (24_000, 0)
    assert await collect(WavFileSource(sink.path, realtime=False)) == []


async def test_clear_drops_what_was_written_since_the_last_drain(tmp_path: Path) -> None:
    heard, interrupted, after = (tone(200, hz, format=MODEL_VOICE_FORMAT) for hz in (200, 500, 800))
    sink = WavFileSink(tmp_path / "bargein.wav", MODEL_VOICE_FORMAT, clock=lambda: 0.0)  # nothing plays by itself
    await sink.write(heard)
    await sink.drain()
    await sink.write(interrupted)
    assert sink.queued_ms == 200
    sink.clear()
    assert sink.queued_ms == 0
    await sink.write(after)
    await sink.aclose()

    samples, rate = soundfile.read(sink.path, dtype="int16")
    assert rate == 24_000
    assert samples.tobytes() == heard.pcm + after.pcm


async def test_the_sink_refuses_chunks_of_another_format(tmp_path: Path) -> None:
    sink = WavFileSink(tmp_path / "x.wav", MODEL_VOICE_FORMAT)
    with pytest.raises(ValueError, match="does not match"):
        await sink.write(tone(80))  # 16 kHz
    await sink.aclose()


async def test_a_sink_in_a_missing_folder_fails_with_one_line_naming_the_file(tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "folder" / "out.wav"
    sink = WavFileSink(target)
    await sink.write(tone(80, format=MODEL_VOICE_FORMAT))
    with pytest.raises(AudioError, match=re.escape(str(target))) as caught:
        await sink.drain()
    assert "\n" not in str(caught.value)


async def test_a_44k_stereo_recording_becomes_16k_mono_with_its_duration_and_pitch(tmp_path: Path) -> None:
    rate, seconds = 44_100, 2.0
    t = np.arange(int(rate * seconds)) / rate
    left = 0.5 * np.sin(2 * np.pi * 1000 * t)
    right = 0.5 * np.sin(2 * np.pi * 1000 * t + 0.3)  # a little out of phase: downmixing must not cancel it
    path = tmp_path / "tone_44k_stereo.wav"
    soundfile.write(path, np.stack([left, right], axis=1), rate, subtype="PCM_16")

    chunks = await collect(WavFileSource(path, realtime=False))
    pcm = pcm_of(chunks)

    assert all(chunk.format == MIC_FORMAT for chunk in chunks)
    assert MIC_FORMAT.duration_ms(len(pcm)) == pytest.approx(seconds * 1000, abs=80)
    assert peak_hz(pcm, 16_000) == pytest.approx(1000, abs=1)
    level = np.abs(pcm16_to_float(pcm, 1)[1000:-1000]).max()
    assert level == pytest.approx(0.5 * np.cos(0.15), abs=0.02)  # mean of two sines 0.3 rad apart


async def test_other_formats_libsndfile_reads_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "tone.flac"
    clip = tone(500, 700)
    soundfile.write(path, np.frombuffer(clip.pcm, dtype=np.int16), 16_000, format="FLAC")
    assert pcm_of(await collect(WavFileSource(path, realtime=False))) == clip.pcm


async def test_chunks_are_frame_ms_long_and_timed_from_zero_and_the_last_is_the_remainder(tmp_path: Path) -> None:
    clip = noise(500, seed=3)  # 8000 samples: six 80 ms frames and 20 ms left over
    path = write_mic_wav(tmp_path / "half_second.wav", clip.pcm)

    chunks = await collect(WavFileSource(path, realtime=False))

    assert [len(chunk.pcm) // 2 for chunk in chunks] == [1280] * 6 + [320]
    assert [chunk.start_ms for chunk in chunks] == [0, 80, 160, 240, 320, 400, 480]
    assert chunks[-1].end_ms == 500
    assert pcm_of(chunks) == clip.pcm

    small = await collect(WavFileSource(path, frame_ms=20, realtime=False))
    assert [len(chunk.pcm) for chunk in small] == [640] * 25
    assert small[3].start_ms == 60


def test_a_frame_length_that_is_not_positive_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="positive"):
        WavFileSource("whatever.wav", frame_ms=0)


async def test_real_time_hands_each_chunk_out_when_a_microphone_would_have_finished_it(tmp_path: Path) -> None:
    path = write_mic_wav(tmp_path / "clip.wav", noise(500).pcm)
    time = FakeClock(now=1000.0)

    chunks = await collect(WavFileSource(path, pacer=time.pacer()))

    assert len(chunks) == 7
    assert time.wakeups == pytest.approx([1000.08, 1000.16, 1000.24, 1000.32, 1000.40, 1000.48, 1000.50])


async def test_a_slow_consumer_does_not_push_later_chunks_back(tmp_path: Path) -> None:
    path = write_mic_wav(tmp_path / "clip.wav", noise(800).pcm)
    time = FakeClock(now=50.0)
    arrivals = []
    async for chunk in WavFileSource(path, pacer=time.pacer()).chunks():
        arrivals.append(time.now)
        # The consumer takes 30 ms per chunk, and 250 ms once (a hiccup): real time must catch up.
        time.now += 0.25 if chunk.start_ms == 160 else 0.03

    # Each chunk comes at its deadline (50 s + its end), or at once when the consumer is already late.
    assert arrivals == pytest.approx([50.08, 50.16, 50.24, 50.49, 50.52, 50.55, 50.58, 50.64, 50.72, 50.80])
    assert all(round((wakeup - 50.0) / 0.08, 6).is_integer() for wakeup in time.wakeups)


async def test_fast_mode_never_sleeps(tmp_path: Path) -> None:
    path = write_mic_wav(tmp_path / "clip.wav", noise(2000).pcm)
    chunks = await collect(WavFileSource(path, realtime=False))
    assert len(chunks) == 25


async def test_aclose_ends_an_iteration_in_progress(tmp_path: Path) -> None:
    path = write_mic_wav(tmp_path / "clip.wav", noise(2000).pcm)
    source = WavFileSource(path, realtime=False)
    seen = []
    async for chunk in source.chunks():
        seen.append(chunk)
        if len(seen) == 3:
            await source.aclose()
    assert len(seen) == 3


def unreadable_files(folder: Path) -> dict[str, Path]:
    good = folder / "good.wav"
    write_mic_wav(good, noise(200).pcm)
    header_only = folder / "truncated.wav"
    header_only.write_bytes(good.read_bytes()[:30])
    empty = folder / "empty.wav"
    empty.touch()
    text = folder / "notes.wav"
    text.write_text("these are meeting notes, not audio\n" * 20)
    garbage = folder / "garbage.wav"
    garbage.write_bytes(b"RIFF" + bytes(range(256)) * 8)
    directory = folder / "a_folder.wav"
    directory.mkdir()
    return {
        "missing": folder / "missing.wav",
        "empty": empty,
        "truncated header": header_only,
        "not audio": text,
        "corrupt": garbage,
        "a folder": directory,
    }


@pytest.mark.parametrize("case", ["missing", "empty", "truncated header", "not audio", "corrupt", "a folder"])
async def test_an_unreadable_file_fails_with_one_line_naming_it_and_yields_nothing(tmp_path: Path, case: str) -> None:
    path = unreadable_files(tmp_path)[case]
    source = WavFileSource(path, realtime=False)
    seen: list[AudioChunk] = []

    with pytest.raises(UnreadableAudio) as caught:
        async for chunk in source.chunks():
            seen.append(chunk)

    message = str(caught.value)
    assert seen == []
    assert str(path) in message
    assert "\n" not in message
    assert message.startswith("cannot read audio from ")


def test_read_recording_converts_to_any_target_format(tmp_path: Path) -> None:
    path = write_mic_wav(tmp_path / "clip.wav", tone(1000, 440).pcm)
    stereo_24k = AudioFormat(rate=24_000, channels=2)
    pcm = read_recording(path, stereo_24k)
    samples = pcm16_to_float(pcm, 2)
    assert samples.shape == (24_000, 2)
    assert np.array_equal(samples[:, 0], samples[:, 1])
    assert peak_hz(float_to_pcm16(samples[:, 0]), 24_000) == pytest.approx(440, abs=1)


def test_a_float_recording_with_samples_that_are_not_numbers_reads_as_silence(tmp_path: Path) -> None:
    damaged = tmp_path / "nan.wav"
    samples = np.full(1600, np.nan)
    samples[:4] = (np.inf, -np.inf, 0.5, -0.5)
    soundfile.write(damaged, samples, 16000, subtype="FLOAT")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning on the user's terminal either
        pcm = read_recording(damaged)
    assert np.frombuffer(pcm, dtype="<i2")[:5].tolist() == [32767, -32768, 16384, -16384, 0]
    assert not np.frombuffer(pcm, dtype="<i2")[4:].any()
