"""Where playback stands on a sink with no device (a WAV file, nothing at all), by the clock.

Such a sink still stands for a speaker: what is written plays back to back, in real time, from the moment
it is written. "Still playing" then means for it what it means for the speaker, so the session treats
them alike: speaking over the voice stops it (barge-in) and the idle countdown waits for it to end.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from voice.audio.chunks import AudioFormat


class PlaybackTimeline:
    def __init__(self, format: AudioFormat, clock: Callable[[], float] | None = time.monotonic) -> None:
        """`clock`: seconds, monotonic. One that stands still holds everything written as queued until
        `stop()` (nothing plays out by itself); None plays everything the moment it is written (a
        recording read as fast as possible)."""
        self._format = format
        self._clock = clock
        self._ends_at = clock() if clock is not None else 0.0
        """When everything written so far has played (clock seconds)."""

    @property
    def queued_ms(self) -> float:
        """Written and not yet played (milliseconds)."""
        if self._clock is None:
            return 0.0
        return max(0.0, (self._ends_at - self._clock()) * 1000.0)

    @property
    def queued_bytes(self) -> int:
        """`queued_ms` in whole frames of the format."""
        frame = self._format.width * self._format.channels
        return round(self.queued_ms * self._format.bytes_per_second / 1000.0 / frame) * frame

    def written(self, byte_count: int) -> None:
        """`byte_count` bytes were written: they play once what was written before has played."""
        if self._clock is not None:
            self._ends_at = max(self._ends_at, self._clock()) + self._format.duration_ms(byte_count) / 1000.0

    def stop(self) -> int:
        """Playback stops here (a barge-in, or the end); returns the bytes that had not been played."""
        unplayed = self.queued_bytes
        if self._clock is not None:
            self._ends_at = min(self._ends_at, self._clock())
        return unplayed
