"""The wake word across a room: the real openWakeWord on the fixtures put into the goal room of issue 13
(talker 2 m away, RT60 0.45 s, pink noise 15 dB under the speech; tests/voice/rooms.py), heard through
Parley's echo-cancelled microphone path, with fixed seeds. bench/wake_rooms.py measures the same on
more voices, rooms and an hour of other speech; these tests keep its main findings true."""

from __future__ import annotations

from contextlib import aclosing

import pytest

from tests.voice.fixtures import WAKE_NEGATIVES, read_pcm, silence, split, stream, utterances, wake_phrase_end_ms
from tests.voice.room_sounds import cough, door, to_pcm
from tests.voice.rooms import GOAL_CONDITION, SimulatedRoom
from voice.audio.chunks import MIC_FORMAT
from voice.echo.canceller import EchoCanceller
from voice.wake.detector import OpenWakeWordDetector

POSITIVES = ("wake_hey_jarvis", "wake_hey_jarvis_slow_female", "wake_hey_jarvis_fast_british", "wake_weather")
"""One clip per voice of the fixtures (the en-us ones share one utterance), and one followed by a question."""
SEEDS = (0, 1, 2)
"""Talker positions (and noise draws) in the goal room."""
LATEST_AFTER_PHRASE_MS = 1000.0


def heard(pcm: bytes) -> bytes:
    """`pcm` as the sleeping assistant hears it: through the echo canceller, nothing playing."""
    canceller = EchoCanceller()
    return b"".join(canceller.cleaned(chunk).pcm for chunk in split(pcm))


def in_room(name: str, seed: int) -> bytes:
    return heard(SimulatedRoom(GOAL_CONDITION, seed).microphone(read_pcm(name)))


async def offsets(detector: OpenWakeWordDetector, pcm: bytes) -> list[float]:
    async with aclosing(detector.detections(stream(split(pcm)))) as events:
        return [event.offset_ms async for event in events]


def negatives(seed: int) -> bytes:
    """The negative fixtures, what the positives say after their wake phrase, a cough and a door, in the
    goal room, back to back."""
    parts = [read_pcm(name) for name in WAKE_NEGATIVES]
    for name in ("wake_weather", "wake_switch_chat", "wake_goodbye"):
        pcm = read_pcm(name)
        parts.append(pcm[round((wake_phrase_end_ms(pcm) + 150) * MIC_FORMAT.rate / 1000) * 2 :])
    parts += [to_pcm(cough(seed)), silence(700), to_pcm(door(seed))]
    return heard(SimulatedRoom(GOAL_CONDITION, seed).microphone(silence(300).join(parts)))


async def test_the_goal_room_loses_wakes_and_the_vad_gate_does_not_bring_them_back() -> None:
    """The default detector in the goal room: a third of these wakes are lost (bench/wake_rooms.py: 27 of
    72 on more voices and positions), those that come through land on the wake phrase, and openWakeWord's
    VAD gate at 0.5 changes none of them here (over the bench's 864 wakes it lost 3: it stays off)."""
    gap = silence(2000)
    hits = 0
    async with OpenWakeWordDetector() as default, OpenWakeWordDetector(vad_threshold=0.5) as gated:
        for seed in SEEDS:
            clips = [read_pcm(name) for name in POSITIVES]
            pcm = heard(SimulatedRoom(GOAL_CONDITION, seed).microphone(gap.join(clips)))
            found = await offsets(default, pcm)
            assert found == await offsets(gated, pcm), seed
            phrases, at = [], 0.0
            for clip in clips:
                start, end = utterances(clip)[0]
                phrases.append((at + start, at + end + LATEST_AFTER_PHRASE_MS))
                at += MIC_FORMAT.duration_ms(len(clip) + len(gap))
            assert all(any(start <= x <= end for start, end in phrases) for x in found), (seed, found)
            hits += len(found)
    assert 6 <= hits <= 9  # 7 of these 12 come through


@pytest.mark.parametrize("seed", SEEDS)
async def test_nothing_else_in_the_goal_room_wakes_parley(seed: int) -> None:
    async with OpenWakeWordDetector() as detector:
        assert await offsets(detector, negatives(seed)) == []
