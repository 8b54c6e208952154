"""Keeping openWakeWord asleep on silence: it costs 2-3 ms of CPU a frame whatever it hears, and a quiet
room needs none of it. The gate holds quiet frames back and hands them over, in order, when sound comes,
so the model's buffers are full again and its scores are exactly those of a model that heard everything."""

from __future__ import annotations

from collections import deque

import numpy as np
from numpy.typing import NDArray

MEL_FLUSH_FRAMES = 10
"""Frames of silence that push the initial rows out of the 76-row mel-spectrogram window (8 rows a
frame). The wake model's own window (16 embeddings for the built-in models, one a frame) comes on top."""
QUIET_DBFS = -60.0
"""A frame whose RMS stays under this (dBFS, about 33 in PCM16) is silence to the wake word: a quiet room
through a laptop microphone (its own noise is about -70 to -60 dBFS). Speech from 3 m across a room
arrives at about -29 dBFS (tests/voice/rooms.py), 30 dB above it."""
GATE_PREROLL_FRAMES = MEL_FLUSH_FRAMES + 16
"""Quiet frames kept back and scored, in order, when sound comes: enough to refill every buffer the
score depends on (the mel-spectrogram window, then the model's 16 embeddings), so every frame after the
gate opens scores exactly as if the model had heard everything."""
GATE_HANGOVER_FRAMES = 16 + 10
"""Frames the model keeps hearing after the last loud one: the wake word fires up to 600 ms after the
phrase's last sound, on frames that may be quiet, and its window (16 frames) must empty before the
scores can be taken as 0."""


class QuietGate:
    """Keeps the wake word model asleep while the room is quiet: openWakeWord costs 2-3 ms of CPU a
    frame, on silence as on speech. A quiet frame is held back (at most `preroll` of them); a loud one
    (RMS at or over `floor_dbfs`) opens the gate and is scored after the held frames, and the gate stays
    open until `hangover` frames in a row have been quiet."""

    def __init__(
        self,
        floor_dbfs: float = QUIET_DBFS,
        preroll: int = GATE_PREROLL_FRAMES,
        hangover: int = GATE_HANGOVER_FRAMES,
    ) -> None:
        self._floor = (10 ** (floor_dbfs / 20) * 32768) ** 2
        """Mean square (PCM16 units) at the floor."""
        self._held: deque[NDArray[np.int16]] = deque(maxlen=preroll)
        self._hangover = hangover
        self._quiet_for = hangover
        """Quiet frames in a row; the gate is open while this is under `hangover`."""

    @property
    def open(self) -> bool:
        return self._quiet_for < self._hangover

    def push(self, frame: NDArray[np.int16]) -> list[NDArray[np.int16]]:
        """The frames to score now, in order, `frame` last; empty when `frame` is held back."""
        loud = float(np.mean(np.square(frame, dtype=np.float64))) >= self._floor
        if loud:
            self._quiet_for = 0
        elif self.open:
            self._quiet_for += 1
        else:
            self._held.append(frame)
            return []
        frames = [*self._held, frame]
        self._held.clear()
        return frames

    def reset(self) -> None:
        self._held.clear()
        self._quiet_for = self._hangover
