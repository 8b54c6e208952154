"""Echo cancellation on real speech. Parley's reply (the espeak-ng fixtures in assets/audio/; it even says
"hey jarvis") comes back to the microphone through a made-up room: delayed, attenuated, smoothed and with
a few reflections. Both streams go through the real `EchoCanceller` in the order they would live: each
played chunk when the speaker starts playing it, each microphone chunk once it has been recorded.

Thresholds. Echo return loss enhancement (ERLE: the echo's energy over what is left of it) is asserted
at >= 30 dB after a 2 s convergence period; WebRTC's AEC3 reaches about 60 to 70 dB on these signals
(figures in each test's docstring). 30 dB takes the echo here, -28 dBFS, down to -58 dBFS: 13 dB under
the level these tests count as someone speaking, and under the noise of most rooms through a laptop
microphone. The rest is margin for another build of the native library. Speech is compared by its log spectrogram, not
its waveform: WebRTC's high-pass filter turns the phase of speech by up to 2 radians below 500 Hz, which
alone brings the waveform correlation of clean speech with itself down to 0.71.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from tests.fakes.fed_microphone import FedMicrophone
from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT, AudioChunk, AudioFormat
from voice.audio.pcm import split
from voice.audio.synthetic import SyntheticSource, tone
from voice.audio.wav import read_recording
from voice.echo.canceller import CancelledChunk, EchoCancelledSource, EchoCanceller
from voice.errors import NoAudioDevice

Signal = NDArray[np.float64]
"""Mono audio as floats in [-1, 1] at 16 kHz."""

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "audio"
REPLY = ("wake_switch_chat.wav", "wake_weather.wav")
"""Parley's reply: 9.9 s of speech, with pauses."""
USER = "speech_hello.wav"
"""The user talking over it: "hello there, how are you today?" (3.3 s)."""

RATE = MIC_FORMAT.rate
CHUNK_MS = 80
CONVERGED_MS = 2000
"""Cancellation is judged from here on: AEC3 finds the echo path within the first second or two."""
MIN_ERLE_DB = 30.0
SPEAKING_DBFS = -45.0
"""A stand-in for the voice activity decision behind barge-in: an 80 ms chunk louder than this counts as
someone speaking. The user's speech is about -21 dBFS, the echo of the reply about -30 dBFS at the mic."""


def samples(ms: float) -> int:
    return round(ms * RATE / 1000)


def floats(pcm: bytes) -> Signal:
    return np.frombuffer(pcm, dtype="<i2").astype(np.float64) / 32768.0


def pcm16(signal: Signal) -> bytes:
    return np.clip(np.rint(signal * 32768.0), -32768, 32767).astype("<i2").tobytes()


def level_db(signal: Signal) -> float:
    """Mean power in dB relative to full scale (dBFS)."""
    return float(10 * np.log10(np.mean(np.square(signal)) + 1e-20))


def reply(audio_format: AudioFormat = MIC_FORMAT) -> bytes:
    return b"".join(read_recording(ASSETS / name, audio_format) for name in REPLY)


def whole_chunks(signal: Signal) -> Signal:
    """Cut to a whole number of 80 ms chunks, as a microphone delivers them."""
    return signal[: len(signal) - len(signal) % samples(CHUNK_MS)]


def room_echo(played: Signal, *, delay_ms: float, gain: float) -> Signal:
    """What the microphone hears of `played`: a direct path after `delay_ms` at `gain`, three weaker
    reflections up to 40 ms later (one inverted), all softened by a small low-pass filter."""
    taps = [(0.0, gain), (7.0, 0.3 * gain), (21.0, -0.16 * gain), (40.0, 0.1 * gain)]
    response = np.zeros(samples(delay_ms + 41.0))
    for after_ms, tap_gain in taps:
        response[samples(delay_ms + after_ms)] += tap_gain
    response = np.convolve(response, [0.25, 0.5, 0.25])
    return np.convolve(played, response)[: len(played)]


def playing(
    pcm: bytes, audio_format: AudioFormat = MIC_FORMAT, chunk_ms: int = 80, start_ms: float = 0.0
) -> list[AudioChunk]:
    """What the speaker plays, in `chunk_ms` chunks from `start_ms` on."""
    return list(split(pcm, audio_format, chunk_ms, start_ms=start_ms))


class FakeClock:
    """The simulation's time, in seconds."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def simulate(
    mic: Signal, played: list[AudioChunk] | None = None, *, mic_chunk_ms: int = CHUNK_MS
) -> tuple[Signal, EchoCanceller]:
    """Run both streams through a new `EchoCanceller` in live order, on a simulated clock, and return
    the cleaned microphone stream and the canceller.

    A played chunk is passed on when it starts to play; a microphone chunk when it has been recorded,
    at its end. Every cleaned chunk must keep its format, start and length."""
    clock = FakeClock()
    canceller = EchoCanceller(clock=clock)
    events = [(chunk.start_ms, 0, chunk) for chunk in played or []]
    events += [(chunk.end_ms, 1, chunk) for chunk in split(pcm16(mic), MIC_FORMAT, mic_chunk_ms)]
    events.sort(key=lambda event: event[:2])  # at a tie, what is played goes first
    cleaned: list[bytes] = []
    for at_ms, kind, chunk in events:
        clock.now = at_ms / 1000
        if kind == 0:
            canceller.played(chunk)
            continue
        out = canceller.cleaned(chunk)
        assert (out.format, out.start_ms, len(out.pcm)) == (chunk.format, chunk.start_ms, len(chunk.pcm))
        cleaned.append(out.pcm)
    return floats(b"".join(cleaned)), canceller


def erle_db(echo: Signal, cleaned: Signal, *, from_ms: float = CONVERGED_MS) -> float:
    start = samples(from_ms)
    return level_db(echo[start:]) - level_db(cleaned[start:])


def chunk_levels(signal: Signal, start: int = 0, stop: int | None = None) -> NDArray[np.float64]:
    """Level (dBFS) of each 80 ms chunk of `signal[start:stop]`."""
    part = signal[start:stop]
    size = samples(CHUNK_MS)
    chunks = part[: len(part) - len(part) % size].reshape(-1, size)
    levels: NDArray[np.float64] = 10 * np.log10(np.mean(np.square(chunks), axis=1) + 1e-20)
    return levels


def log_spectrogram(signal: Signal, floor_db: float) -> NDArray[np.float64]:
    """dB power of 32 ms Hann frames every 16 ms, 200 Hz to 4 kHz (where speech is told apart),
    floored at `floor_db`."""
    window = np.hanning(512)
    frames = np.lib.stride_tricks.sliding_window_view(signal, 512)[::256] * window
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    frequencies = np.fft.rfftfreq(512, 1 / RATE)
    band = (frequencies >= 200) & (frequencies <= 4000)
    spectrogram: NDArray[np.float64] = np.maximum(10 * np.log10(power[:, band] + 1e-20), floor_db)
    return spectrogram


def spectral_similarity(a: Signal, b: Signal) -> float:
    """Correlation of two log spectrograms over the 60 dB below the louder one's peak: 1 for the same
    sound, about 0 for unrelated sounds. Blind to phase and to small delays."""
    peak = max(float(log_spectrogram(a, -400).max()), float(log_spectrogram(b, -400).max()))
    return float(np.corrcoef(log_spectrogram(a, peak - 60).ravel(), log_spectrogram(b, peak - 60).ravel())[0, 1])


# Echo alone: Parley talks, nobody else does.


@pytest.mark.parametrize(("delay_ms", "gain"), [(40.0, 0.3), (50.0, 0.5), (60.0, 0.7)])
def test_the_echo_of_a_reply_is_removed(delay_ms: float, gain: float) -> None:
    """Measured: 61 to 71 dB of ERLE after 2 s; the loudest 80 ms chunk left is at -78 dBFS or below."""
    played = reply()
    echo = whole_chunks(room_echo(floats(played), delay_ms=delay_ms, gain=gain))

    cleaned, _ = simulate(echo, playing(played))

    assert erle_db(echo, cleaned) >= MIN_ERLE_DB
    loudest_left = chunk_levels(cleaned, samples(CONVERGED_MS)).max()
    assert loudest_left <= level_db(echo[samples(CONVERGED_MS) :]) - MIN_ERLE_DB


@pytest.mark.parametrize(
    ("played_format", "played_chunk_ms", "mic_chunk_ms"),
    [
        (MODEL_VOICE_FORMAT, 80, 80),  # Gemini's 24 kHz voice, straight from the model
        (MODEL_VOICE_FORMAT, 20, 80),  # the same, in the speaker's 20 ms blocks
        (MODEL_VOICE_FORMAT, 20, 85),  # microphone chunks that are not whole 10 ms frames
        (MODEL_VOICE_FORMAT, 100, 30),
        (AudioFormat(rate=48_000, channels=2), 20, 80),  # a stereo 48 kHz device
        (AudioFormat(rate=44_100, channels=1), 20, 80),
        (AudioFormat(rate=22_050, channels=1), 20, 80),  # no whole 10 ms frame: resampled with libsoxr
    ],
)
def test_played_audio_in_any_format_and_chunking_is_cancelled(
    played_format: AudioFormat, played_chunk_ms: int, mic_chunk_ms: int
) -> None:
    """The speaker's audio at its own rate, the echo recorded at 16 kHz. Measured: 65 to 68 dB."""
    echo = whole_chunks(room_echo(floats(reply()), delay_ms=50.0, gain=0.5))

    played = playing(reply(played_format), played_format, played_chunk_ms)

    cleaned, _ = simulate(echo, played, mic_chunk_ms=mic_chunk_ms)

    assert erle_db(echo, cleaned) >= MIN_ERLE_DB


def test_in_a_noisy_room_only_the_noise_is_left() -> None:
    """White noise at -70 dBFS under the echo. Measured: the output sits at -72 dBFS after 2 s."""
    played = playing(reply(MODEL_VOICE_FORMAT), MODEL_VOICE_FORMAT, 20)
    echo = whole_chunks(room_echo(floats(reply()), delay_ms=50.0, gain=0.5))
    noise = np.random.default_rng(7).normal(0.0, 10 ** (-70 / 20), len(echo))

    cleaned, _ = simulate(echo + noise, played)

    assert level_db(cleaned[samples(CONVERGED_MS) :]) <= level_db(noise) + 3.0


@pytest.mark.parametrize("pause_ms", [20, 80, 200, 1500])
@pytest.mark.parametrize("silence_passed_on", [False, True], ids=["silence left out", "silence passed on"])
def test_cancellation_holds_when_the_speaker_pauses(pause_ms: int, silence_passed_on: bool) -> None:
    """Part of the reply, a pause, the rest. Whether the caller passes the speaker's silence on or not,
    the echo after the pause is removed from its first chunk on. Measured: the worst 80 ms chunk in
    the second after the pause keeps 43 to 45 dB of cancellation, the same either way (when the
    canceller did not yet continue the reference with silence itself, pauses of 80 ms and more left
    chunks with 3 to 11 dB)."""
    speech = floats(read_recording(ASSETS / REPLY[0]))
    cut = samples(2600)  # mid-sentence
    before, after = pcm16(speech[:cut]), pcm16(speech[cut:])
    pause = bytes(samples(pause_ms) * MIC_FORMAT.width)
    echo = whole_chunks(room_echo(floats(before + pause + after), delay_ms=50.0, gain=0.5))
    resume_ms = MIC_FORMAT.duration_ms(len(before + pause))
    if silence_passed_on:
        played = playing(before + pause + after, chunk_ms=20)
    else:
        played = playing(before, chunk_ms=20) + playing(after, chunk_ms=20, start_ms=resume_ms)

    cleaned, _ = simulate(echo, played)

    resumed = samples(resume_ms)
    next_second = slice(resumed, resumed + RATE)
    worst = (chunk_levels(echo[next_second]) - chunk_levels(cleaned[next_second])).min()
    assert worst >= MIN_ERLE_DB
    assert erle_db(echo, cleaned) >= MIN_ERLE_DB


def test_played_calls_that_come_a_little_late_do_no_harm() -> None:
    """The loop hands each 20 ms block to the canceller up to 15 ms late (at random, order kept), as
    `call_soon_threadsafe` from a speaker callback might. Measured: 66 dB, the worst chunk 40 dB
    (with up to 25 ms: 58 and 41 dB)."""
    on_time = playing(reply(MODEL_VOICE_FORMAT), MODEL_VOICE_FORMAT, 20)
    echo = whole_chunks(room_echo(floats(reply()), delay_ms=50.0, gain=0.5))
    lateness = np.random.default_rng(1).uniform(0.0, 15.0, size=len(on_time))
    # `simulate` hands each played chunk over at its `start_ms`: moving that makes the hand-over late.
    played = [
        AudioChunk(chunk.format, chunk.pcm, chunk.start_ms + late)
        for chunk, late in zip(on_time, lateness, strict=True)
    ]

    cleaned, _ = simulate(echo, played)

    assert erle_db(echo, cleaned) >= MIN_ERLE_DB
    converged = samples(CONVERGED_MS)
    echoing = chunk_levels(echo, converged) > -50.0
    assert (chunk_levels(echo, converged) - chunk_levels(cleaned, converged))[echoing].min() >= MIN_ERLE_DB


def test_cancellation_resumes_at_once_after_a_long_quiet() -> None:
    """A reply, 5 s of nothing played (after a barge-in the speaker is cleared), the next reply.
    Measured: 68 dB over the first second of the next reply's sound."""
    first, second = (read_recording(ASSETS / name) for name in REPLY)
    second_start_ms = MIC_FORMAT.duration_ms(len(first)) + 5000
    gap = bytes(samples(5000) * MIC_FORMAT.width)
    echo = whole_chunks(room_echo(floats(first + gap + second), delay_ms=50.0, gain=0.5))
    played = playing(first, chunk_ms=20) + playing(second, chunk_ms=20, start_ms=second_start_ms)

    cleaned, _ = simulate(echo, played)

    sound_start = samples(second_start_ms) + int(np.flatnonzero(floats(second))[0])  # past its lead silence
    first_second = slice(sound_start, sound_start + RATE)
    assert level_db(echo[first_second]) - level_db(cleaned[first_second]) >= MIN_ERLE_DB
    assert erle_db(echo, cleaned, from_ms=second_start_ms) >= MIN_ERLE_DB


# Double talk: the user talks over Parley, which is what barge-in has to hear.


@dataclass(frozen=True)
class DoubleTalk:
    user: Signal
    """The user's speech alone, as it reaches the microphone."""
    echo: Signal
    """Parley's reply alone, as it reaches the microphone."""
    mic: Signal
    """Both: what the microphone records."""
    cleaned: Signal
    """What the canceller makes of `mic`."""
    speech: slice
    """Where the user speaks (samples)."""


@pytest.fixture(scope="module")
def double_talk() -> DoubleTalk:
    """The user says "hello there, how are you today?" at full level 5 s into Parley's reply (24 kHz,
    played in 20 ms blocks), long after the canceller has converged, and stops before the reply ends."""
    echo = whole_chunks(room_echo(floats(reply()), delay_ms=50.0, gain=0.5))
    clip = floats(read_recording(ASSETS / USER))
    start = samples(5000)
    user = np.zeros_like(echo)
    user[start : start + len(clip)] = clip
    mic = echo + user
    cleaned, _ = simulate(mic, playing(reply(MODEL_VOICE_FORMAT), MODEL_VOICE_FORMAT, 20))
    return DoubleTalk(user=user, echo=echo, mic=mic, cleaned=cleaned, speech=slice(start, start + len(clip)))


def test_the_users_speech_survives_double_talk(double_talk: DoubleTalk) -> None:
    """Measured: the user's speaking chunks come out 0.9 dB softer than the clean speech; the output's
    spectral similarity to the clean speech is 0.89 (the uncancelled microphone's is 0.75)."""
    user, mic, cleaned, speech = double_talk.user, double_talk.mic, double_talk.cleaned, double_talk.speech
    speaking = chunk_levels(user) > SPEAKING_DBFS

    def speaking_level(signal: Signal) -> float:
        return level_db(whole_chunks(signal).reshape(-1, samples(CHUNK_MS))[speaking])

    assert abs(speaking_level(cleaned) - speaking_level(user)) <= 3.0
    similarity = spectral_similarity(cleaned[speech], user[speech])
    assert similarity >= 0.8
    assert similarity > spectral_similarity(mic[speech], user[speech]) + 0.05


def test_the_echo_is_removed_while_the_user_talks(double_talk: DoubleTalk) -> None:
    """Under the user's speech, the output keeps no trace of the reply's spectrogram (similarity 0.02,
    against 0.60 for the microphone), and the filter does not lose its grip: 67 dB of ERLE before the
    user starts and after they stop."""
    echo, mic, cleaned, speech = double_talk.echo, double_talk.mic, double_talk.cleaned, double_talk.speech

    assert spectral_similarity(mic[speech], echo[speech]) >= 0.5  # the echo was there to remove
    assert spectral_similarity(cleaned[speech], echo[speech]) <= 0.2
    before = slice(samples(CONVERGED_MS), speech.start)
    after = slice(speech.stop, len(echo))
    for part in (before, after):
        assert level_db(echo[part]) - level_db(cleaned[part]) >= MIN_ERLE_DB


def test_barge_in_is_heard_and_the_echo_alone_is_not(double_talk: DoubleTalk) -> None:
    """Chunk by chunk, as a barge-in detector would see it. Measured: 20 of the 21 chunks where the user
    speaks stay above the speaking level (the one lost is a quiet stretch, -37 dBFS, under louder echo,
    -30 dBFS, which AEC3's suppressor takes for echo); none of the 54 chunks that hold only echo after
    convergence does (53 would without the canceller; the loudest of them comes out at -92 dBFS)."""
    user, echo, mic, cleaned = double_talk.user, double_talk.echo, double_talk.mic, double_talk.cleaned
    converged = samples(CONVERGED_MS)
    user_levels, echo_levels = chunk_levels(user, converged), chunk_levels(echo, converged)
    user_speaks = user_levels > SPEAKING_DBFS
    echo_only = (user_levels < -90.0) & (echo_levels > -50.0)
    heard = chunk_levels(cleaned, converged) > SPEAKING_DBFS

    assert user_speaks.sum() >= 15 and echo_only.sum() >= 30  # the scenario has both kinds of chunk
    assert (chunk_levels(mic, converged)[echo_only] > SPEAKING_DBFS).mean() >= 0.9  # the echo alone is loud
    assert heard[user_speaks].mean() >= 0.9
    assert not heard[echo_only].any()


# The stream itself: formats, timing and the latency the framing adds.


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
