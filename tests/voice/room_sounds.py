"""The sounds the simulated rooms of tests/voice/rooms.py are made of, as floats at 16 kHz: conversions to and
from PCM16, the level of speech while it sounds, pink noise, babble material from the fixtures that do not
say the wake phrase, and two sounds that are not speech: a cough and a door."""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import NDArray
from scipy import signal as sig

from tests.voice.fixtures import read_pcm, utterances, wake_phrase_end_ms

Signal = NDArray[np.float64]
"""Mono audio as floats, full scale 1.0, at 16 kHz."""

RATE = 16_000
BABBLE_FIXTURES = ("speech_hello",)
"""Whole fixtures babble may use; the positives lend what follows their wake phrase (`BABBLE_TAILS`)."""
BABBLE_TAILS = ("wake_weather", "wake_switch_chat", "wake_goodbye", "wake_remember", "wake_recall")
REFERENCE_SPEECH = "wake_hey_jarvis"
"""The speech whose level sets the echo's and, when the talker says nothing, the noise's."""


def floats(pcm: bytes) -> Signal:
    return np.frombuffer(pcm, dtype="<i2").astype(np.float64) / 32768.0


def to_pcm(signal: Signal) -> bytes:
    """Floats (full scale 1.0) -> PCM16, clipped to the int16 range as a microphone's converter does."""
    return np.clip(np.rint(signal * 32768.0), -32768, 32767).astype("<i2").tobytes()


def speech_rms(pcm: bytes, heard: Signal) -> float:
    """RMS of `heard` over the 10 ms windows where the dry `pcm` is sound; 0 when it holds none."""
    spans = utterances(pcm)
    if not spans:
        return 0.0
    parts = [heard[round(start * RATE / 1000) : round(end * RATE / 1000)] for start, end in spans]
    return float(np.sqrt(np.mean(np.concatenate(parts) ** 2)))


def rms(signal: Signal) -> float:
    return float(np.sqrt(np.mean(signal**2))) if len(signal) else 0.0


def pink(rng: np.random.Generator, samples: int) -> Signal:
    """Pink (1/f power) noise, unit RMS, DC removed."""
    spectrum = np.fft.rfft(rng.standard_normal(samples))
    freqs = np.fft.rfftfreq(samples, 1 / RATE)
    spectrum[1:] /= np.sqrt(freqs[1:] / freqs[1])
    spectrum[0] = 0
    noise = np.fft.irfft(spectrum, samples)
    return noise / rms(noise)


@functools.cache
def babble_material() -> tuple[Signal, ...]:
    """Utterances without the wake phrase, each trimmed to its sound."""
    pieces: list[Signal] = []
    for name in (*BABBLE_FIXTURES, *BABBLE_TAILS):
        pcm = read_pcm(name)
        spans = utterances(pcm)
        if name in BABBLE_TAILS:
            spans = [span for span in spans if span[0] >= wake_phrase_end_ms(pcm)]
        audio = floats(pcm)
        pieces += [audio[round(start * RATE / 1000) : round(end * RATE / 1000)] for start, end in spans]
    return tuple(pieces)


def cough(seed: int = 0) -> Signal:
    """A synthetic cough at speech level (RMS while sounding about that of the speech fixtures): two or
    three bursts of band-limited noise over 0.3-0.5 s, each with a sharp onset, a resonant body and a
    fast decay."""
    rng = np.random.default_rng([seed, 1])
    total_s = rng.uniform(0.3, 0.5)
    out = np.zeros(round(total_s * RATE))
    bursts = int(rng.integers(2, 4))
    starts = np.sort(rng.uniform(0, total_s - 0.12, bursts))
    starts[0] = 0.0
    for index, start in enumerate(starts):
        length = round(rng.uniform(0.08, 0.15) * RATE)
        noise = rng.standard_normal(length)
        low, high = rng.uniform(300, 600), rng.uniform(2500, 4500)
        burst = sig.sosfilt(sig.butter(2, [low, high], btype="bandpass", fs=RATE, output="sos"), noise)
        t = np.arange(length) / RATE
        envelope = (1 - np.exp(-t / 0.004)) * np.exp(-t / rng.uniform(0.03, 0.06))
        at = round(start * RATE)
        end = min(at + length, len(out))
        out[at:end] += (burst * envelope)[: end - at] * (1.0 if index == 0 else rng.uniform(0.4, 0.8))
    return _at_level(out, 0.0)


def door(seed: int = 0) -> Signal:
    """A door closing, 6 dB over speech level (its peak held at 0.9 of full scale): a low thud (a 50-120 Hz
    body ringing for about 0.2 s) with a short broadband bang on top (the latch), then a little rattle."""
    rng = np.random.default_rng([seed, 2])
    length = round(0.6 * RATE)
    t = np.arange(length) / RATE
    thud = np.sin(2 * np.pi * rng.uniform(50, 120) * t) * np.exp(-t / 0.06)
    thud += (
        0.5 * sig.sosfilt(sig.butter(2, 300, fs=RATE, output="sos"), rng.standard_normal(length)) * np.exp(-t / 0.03)
    )
    bang = rng.standard_normal(length) * np.exp(-t / 0.008)
    rattle_at = round(rng.uniform(0.05, 0.12) * RATE)
    rattle = np.zeros(length)
    rattle[rattle_at:] = rng.standard_normal(length - rattle_at) * np.exp(-t[: length - rattle_at] / 0.04) * 0.3
    rattle = sig.sosfilt(sig.butter(2, [1500, 5000], btype="bandpass", fs=RATE, output="sos"), rattle)
    sound = _at_level(thud + 0.8 * bang + rattle, 6.0)
    return np.asarray(sound * min(1.0, 0.9 / np.abs(sound).max()), dtype=np.float64)


def _at_level(sound: Signal, over_speech_db: float) -> Signal:
    """`sound` scaled so its RMS over the part within 30 dB of its peak envelope is the speech fixtures'
    RMS while speaking, plus `over_speech_db`."""
    reference = read_pcm(REFERENCE_SPEECH)
    target = speech_rms(reference, floats(reference)) * 10 ** (over_speech_db / 20)
    frames = sound[: len(sound) // 160 * 160].reshape(-1, 160)
    levels = np.sqrt(np.mean(frames**2, axis=1))
    loud = frames[levels >= levels.max() * 10 ** (-30 / 20)]
    return np.asarray(sound * target / rms(loud.reshape(-1)), dtype=np.float64)
