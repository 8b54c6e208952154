"""The WAV fixtures in assets/audio (made by scripts/make_audio_fixtures.sh) as `AudioChunk`s.

Read with the standard `wave` module, independent of the application's own WAV source.
"""

from __future__ import annotations

import wave
from collections.abc import AsyncIterator, Iterable
from pathlib import Path

import numpy as np

from voice.audio.chunks import MIC_FORMAT, AudioChunk

AUDIO = Path(__file__).resolve().parents[2] / "assets" / "audio"

SPEECH_LEVEL = 33
"""A 10 ms window whose peak reaches 0.1 % of full scale counts as sound: the level at which the
fixture script trims espeak-ng's own silence. Everything else in a fixture is digital silence."""
SPEECH_GAP_MS = 200.0
"""A pause at least this long separates two utterances (the script leaves 300 ms after the wake phrase)."""


def read_pcm(name: str) -> bytes:
    """The samples of `assets/audio/<name>.wav`, which must be 16 kHz mono PCM16."""
    with wave.open(str(AUDIO / f"{name}.wav"), "rb") as wav:
        found = (wav.getframerate(), wav.getnchannels(), wav.getsampwidth())
        assert found == (MIC_FORMAT.rate, MIC_FORMAT.channels, MIC_FORMAT.width), f"{name}.wav is {found}"
        return wav.readframes(wav.getnframes())


def split(pcm: bytes, chunk_ms: float = 80.0, start_ms: float = 0.0) -> list[AudioChunk]:
    """`pcm` as consecutive chunks of `chunk_ms` (the last one may be shorter)."""
    size = round(chunk_ms * MIC_FORMAT.bytes_per_second / 1000) // MIC_FORMAT.width * MIC_FORMAT.width
    return [
        AudioChunk(MIC_FORMAT, pcm[at : at + size], start_ms + MIC_FORMAT.duration_ms(at))
        for at in range(0, len(pcm), size)
    ]


def fixture_chunks(name: str, chunk_ms: float = 80.0) -> list[AudioChunk]:
    return split(read_pcm(name), chunk_ms)


async def stream(chunks: Iterable[AudioChunk]) -> AsyncIterator[AudioChunk]:
    for chunk in chunks:
        yield chunk


def silence(ms: float) -> bytes:
    return bytes(round(ms * MIC_FORMAT.bytes_per_second / 1000) // MIC_FORMAT.width * MIC_FORMAT.width)


def utterances(pcm: bytes) -> list[tuple[float, float]]:
    """(start, end) of each stretch of sound in `pcm` (milliseconds), pauses under `SPEECH_GAP_MS` bridged."""
    samples = np.abs(np.frombuffer(pcm, dtype="<i2").astype(np.int32))
    window = MIC_FORMAT.rate // 100
    peaks = [int(samples[at : at + window].max()) for at in range(0, len(samples), window)]
    spans: list[tuple[float, float]] = []
    for index, peak in enumerate(peaks):
        if peak < SPEECH_LEVEL:
            continue
        start, end = index * 10.0, min((index + 1) * 10.0, 1000.0 * len(samples) / MIC_FORMAT.rate)
        if spans and start - spans[-1][1] < SPEECH_GAP_MS:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans


def wake_phrase_end_ms(pcm: bytes) -> float:
    """Where the first utterance (the wake phrase, in every positive fixture) ends (milliseconds)."""
    return utterances(pcm)[0][1]


WAKE_POSITIVES = {
    "wake_hey_jarvis": "hey_jarvis",
    "wake_hey_jarvis_slow_female": "hey_jarvis",
    "wake_hey_jarvis_fast_british": "hey_jarvis",
    "wake_weather": "hey_jarvis",
    "wake_switch_chat": "hey_jarvis",
    "wake_goodbye": "hey_jarvis",
    "wake_alexa": "alexa",
}
"""Fixture -> the wake word model that must fire on it, once."""
WAKE_NEGATIVES = ["speech_hello", "speech_hey_travis", "silence", "white_noise", "pink_noise"]
"""Fixtures on which no wake word may fire."""
