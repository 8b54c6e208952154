"""openWakeWord's 80 ms frame grid: cutting a stream of chunks into whole frames, and one detection per
utterance from the frames' scores. Pure, no openWakeWord: the detector and the benches share it."""

from __future__ import annotations

from voice.audio.chunks import MIC_FORMAT

FRAME_SAMPLES = 1280
FRAME_BYTES = FRAME_SAMPLES * MIC_FORMAT.width
FRAME_MS = 1000.0 * FRAME_SAMPLES / MIC_FORMAT.rate
"""80 ms: openWakeWord computes one audio embedding, and so one score, per 1280 samples."""


class Reframer:
    """Cuts a stream of PCM16 bytes into whole 80 ms frames, keeping the rest for the next chunk."""

    def __init__(self) -> None:
        self._pending = bytearray()

    def push(self, pcm: bytes) -> bytes:
        """The whole frames available now, joined: a multiple of `FRAME_BYTES`, possibly empty."""
        self._pending += pcm
        whole = len(self._pending) - len(self._pending) % FRAME_BYTES
        frames = bytes(self._pending[:whole])
        del self._pending[:whole]
        return frames


class Debounce:
    """One detection per utterance: fires on the first frame at or above `threshold`, then stays quiet
    until the score has been below it for `rearm_frames` frames in a row."""

    def __init__(self, threshold: float, rearm_frames: int) -> None:
        self.threshold = threshold
        self.rearm_frames = rearm_frames
        self._armed = True
        self._below = 0

    def update(self, score: float) -> bool:
        """Whether this frame's score is a new detection."""
        if self._armed:
            if score >= self.threshold:
                self._armed = False
                self._below = 0
                return True
            return False
        if score >= self.threshold:
            self._below = 0
        else:
            self._below += 1
            self._armed = self._below >= self.rearm_frames
        return False
