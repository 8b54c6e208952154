"""Sound laid over what a speaker is already playing, now, with that lowered beneath it ("ducking"): a timer
ringing while the model speaks is heard at once rather than after the model's queued voice, and falls silent
at once when it is stopped (withdrawn), mid-round, the model's voice going on."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from voice.audio.chunks import AudioChunk

DUCK_GAIN = 0.25
"""What is left of the queued sound under an overlay (about -12 dB): still heard, not in the way."""


def overlaid(queued: bytes, over: bytes, duck_gain: float = DUCK_GAIN) -> bytes:
    """PCM16 `over` mixed from the start of `queued`, which is lowered by `duck_gain` where they overlap (and
    left as it is after); as long as the longer of the two. Pure."""
    below = np.frombuffer(queued, dtype=np.int16).astype(np.int32)
    above = np.frombuffer(over, dtype=np.int16).astype(np.int32)
    mixed = np.zeros(max(len(below), len(above)), dtype=np.int32)
    mixed[: len(below)] = below
    mixed[: min(len(below), len(above))] = (below[: len(above)] * duck_gain).astype(np.int32)
    mixed[: len(above)] += above
    return np.clip(mixed, -32768, 32767).astype(np.int16).tobytes()


@runtime_checkable
class Overlays(Protocol):
    """A sink that can play a chunk now, over what it has queued."""

    async def overlay(self, chunk: AudioChunk) -> None:
        """Play `chunk` from now on, mixed over the queued sound, which is ducked beneath it."""
        ...

    def withdraw_overlays(self) -> None:
        """Silence what the overlays still had to play, at once; the queued sound goes on as it was."""
        ...
