"""Parley never wakes itself: its own voice saying the wake word, heard back from the speaker through
the room, is cancelled before the real wake word model hears it. The user saying it still wakes it."""

from __future__ import annotations

import numpy as np

from tests.voice.fixtures import read_pcm, split, stream
from voice.audio.chunks import MIC_FORMAT, AudioChunk
from voice.echo.canceller import EchoCanceller
from voice.wake.detector import OpenWakeWordDetector

LEAD_MS = 2_000
"""Parley speaks for a while before it says the wake word, so the canceller has converged."""


def samples(pcm: bytes) -> np.ndarray:
    return np.frombuffer(pcm, dtype="<i2").astype(np.float64)


def pcm(signal: np.ndarray) -> bytes:
    return np.clip(np.round(signal), -32768, 32767).astype("<i2").tobytes()


def through_the_room(played: np.ndarray, delay_ms: float = 50.0, gain: float = 0.5) -> np.ndarray:
    delay = int(MIC_FORMAT.rate * delay_ms / 1000)
    return np.concatenate([np.zeros(delay), played[: len(played) - delay]]) * gain


async def wakes(chunks: list[AudioChunk]) -> int:
    async with OpenWakeWordDetector("hey_jarvis") as detector:
        return len([event async for event in detector.detections(stream(chunks))])


def cleaned(played: np.ndarray, heard: np.ndarray) -> list[AudioChunk]:
    """What the microphone hands on: each 80 ms of `heard`, after the speaker played that of `played`."""
    canceller = EchoCanceller(clock=lambda: 0.0)
    out: list[AudioChunk] = []
    for spoken, chunk in zip(split(pcm(played)), split(pcm(heard)), strict=True):
        canceller.played(spoken)
        out.append(canceller.cleaned(chunk))
    return out


def parley_saying_the_wake_word() -> np.ndarray:
    talk = samples(read_pcm("speech_hello"))
    wake = samples(read_pcm("wake_hey_jarvis"))
    lead = np.tile(talk, LEAD_MS * MIC_FORMAT.rate // 1000 // len(talk) + 1)[: LEAD_MS * MIC_FORMAT.rate // 1000]
    return np.concatenate([lead, wake])


async def test_parley_saying_the_wake_word_does_not_wake_it() -> None:
    played = parley_saying_the_wake_word()
    echo = through_the_room(played)
    assert await wakes(split(pcm(echo))) == 1  # without cancellation, it would wake itself
    assert await wakes(cleaned(played, echo)) == 0


async def test_the_user_saying_it_over_parley_still_wakes_it() -> None:
    played = parley_saying_the_wake_word()[: LEAD_MS * MIC_FORMAT.rate // 1000]
    played = np.concatenate([played, played])  # Parley keeps talking
    user = samples(read_pcm("wake_hey_jarvis"))
    heard = through_the_room(played)
    start = len(played) - len(user)
    heard[start:] += user
    assert await wakes(cleaned(played, heard)) == 1
