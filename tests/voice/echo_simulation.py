"""Parley's reply (the espeak-ng fixtures in assets/audio/) coming back to the microphone through a made-up
room, both streams run through the real `EchoCanceller` in live order on a simulated clock, and how the tests
judge what it leaves: ERLE, the level of each 80 ms chunk, log-spectrogram similarity. Shared by test_echo.py
(the echo removed) and test_echo_stream.py (the stream: formats, timing, the linear canceller's view)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from voice.audio.chunks import MIC_FORMAT, AudioChunk, AudioFormat
from voice.audio.pcm import split
from voice.audio.wav import read_recording
from voice.echo.canceller import EchoCanceller

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
