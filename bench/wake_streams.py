"""The streams bench/wake_rooms.py scores: clips of one room condition back to back, each after `LEAD_MS`
of the room's noise, with where each positive's wake must land; and the hour of other speech and noise.

2 s of room noise before each clip flush openWakeWord's feature buffers (its window is 1.28 s), and the
noise suppressors adapt to the room's noise as they would in use."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from bench.wake_material import (
    AFTER_WAKE,
    NEGATIVE_FIXTURES,
    OTHER_SENTENCES,
    VOICES,
    Voice,
    after_wake,
    espeak,
    positive,
)
from tests.voice.fixtures import read_pcm, silence, utterances
from tests.voice.room_sounds import cough, door, to_pcm
from tests.voice.rooms import ROOM_CONDITIONS, RoomCondition, SimulatedRoom
from voice.audio.chunks import MIC_FORMAT
from voice.wake.frames import FRAME_MS, FRAME_SAMPLES

RATE = MIC_FORMAT.rate
LEAD_MS = 2000.0
"""Room noise before each clip: flushes openWakeWord's buffers (1.28 s window) between clips."""
HIT_AFTER_MS = 1000.0
"""A detection up to this long after the wake phrase's end counts as the wake (bench/voice.py: 0-590 ms)."""


@dataclass(slots=True)
class Segment:
    """One clip of a stream: where it lies (frames) and, for a positive, where a wake must land."""

    label: str
    first_frame: int
    frames: int
    wake_frames: tuple[int, int] | None = None
    """Frames (within the stream) in which a detection is the wake: phrase start to end + 1 s."""


@dataclass(slots=True)
class Stream:
    """Clips of one room condition back to back, each after `LEAD_MS` of the room's noise."""

    pcm: bytearray = field(default_factory=bytearray)
    segments: list[Segment] = field(default_factory=list)

    def add(
        self,
        room: SimulatedRoom,
        talker: bytes,
        label: str,
        phrase_ms: tuple[float, float] | None,
        lead_ms: float = LEAD_MS,
    ) -> None:
        lead = silence(lead_ms)
        heard = room.microphone(lead + talker)
        heard = heard[: len(heard) - len(heard) % (FRAME_SAMPLES * 2)]
        first = len(self.pcm) // (FRAME_SAMPLES * 2)
        frames = len(heard) // (FRAME_SAMPLES * 2)
        wake = None
        if phrase_ms is not None:
            start, end = (first + round((lead_ms + ms) / FRAME_MS) for ms in phrase_ms)
            wake = (start, end + round(HIT_AFTER_MS / FRAME_MS))
        self.segments.append(Segment(label, first, frames, wake))
        self.pcm += heard


def condition_streams(
    condition: RoomCondition, voices: Sequence[Voice], seeds: Sequence[int], shifts: Sequence[float]
) -> tuple[Stream, Stream]:
    """(positives, negatives) of one condition: every voice at every seed and shift; the negative
    fixtures, the positives' speech after their wake phrase, a cough and a door at every seed."""
    positives, negatives = Stream(), Stream()
    for seed in seeds:
        room = SimulatedRoom(condition, seed)
        for voice in voices:
            for shift in shifts:
                pcm = silence(shift) + positive(voice)
                start, end = utterances(pcm)[0]
                positives.add(room, pcm, f"{voice.name} seed {seed} shift {shift:g}", (start, end))
        for name in NEGATIVE_FIXTURES:
            negatives.add(room, read_pcm(name), f"{name} seed {seed}", None)
        for name in AFTER_WAKE:
            negatives.add(room, after_wake(name), f"{name} after the wake phrase, seed {seed}", None)
        negatives.add(room, to_pcm(np.concatenate([cough(seed), np.zeros(RATE // 2), door(seed)])), "cough, door", None)
    return positives, negatives


# The hour of other speech and noise.

HOUR_PIECE_S = 30.0


def hour_streams(
    seconds: float, seed: int = 7, voices: Sequence[Voice] = VOICES, texts: Sequence[str] = OTHER_SENTENCES
) -> Iterator[Stream]:
    """`seconds` of other speech and noise in `HOUR_PIECE_S` streams, each in a room of the grid (its noise
    throughout): the negative fixtures, what the positives say after their wake phrase, coughs and doors
    ("fixtures"), and `texts` (sentences without the wake phrase, some with near words: "near words") in
    `voices`, each after a pause of 0.2-1.5 s."""
    rng = np.random.default_rng(seed)
    sentences = [espeak(*(v.espeak or ("en-us", 175)), text) for v in voices for text in texts]
    fixtures = [*(read_pcm(n) for n in NEGATIVE_FIXTURES), *(after_wake(n) for n in AFTER_WAKE)]
    made = 0.0
    while made < seconds:
        condition = ROOM_CONDITIONS[int(rng.integers(len(ROOM_CONDITIONS)))]
        room = SimulatedRoom(condition, 10 + int(rng.integers(4)))
        stream = Stream()
        while len(stream.pcm) < HOUR_PIECE_S * RATE * 2:
            kind = rng.random()
            if kind < 0.1:
                label, sound = "cough", to_pcm(cough(int(rng.integers(1000))) * rng.uniform(0.5, 2.0))
            elif kind < 0.15:
                label, sound = "door", to_pcm(door(int(rng.integers(1000))) * rng.uniform(0.5, 1.5))
            elif kind < 0.55:
                label, sound = "fixtures", fixtures[int(rng.integers(len(fixtures)))]
            else:
                label, sound = "near words", sentences[int(rng.integers(len(sentences)))]
            stream.add(room, sound, label, None, lead_ms=float(rng.uniform(200, 1500)))
        made += len(stream.pcm) / (2 * RATE)
        yield stream
