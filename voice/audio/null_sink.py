"""A sink that plays nothing and counts everything: for headless runs and for tests."""

from __future__ import annotations

import time
from collections.abc import Callable

from voice.audio.chunks import MODEL_VOICE_FORMAT, AudioChunk, AudioFormat
from voice.audio.playback import PlaybackTimeline


class NullSink:
    """Keeps the `AudioSink` bookkeeping without a device. Written audio "plays" in real time by `clock`
    (`voice.audio.playback`): what has not played yet is queued, `clear()` counts it as dropped (barge-in) and
    `drain()` as played at once (nobody is listening, so nobody waits)."""

    def __init__(
        self, format: AudioFormat = MODEL_VOICE_FORMAT, *, clock: Callable[[], float] | None = time.monotonic
    ) -> None:
        """`clock`: seconds, monotonic; one that stands still keeps everything queued until `drain()`, None
        plays everything at once (a recording read as fast as possible)."""
        self._format = format
        self._timeline = PlaybackTimeline(format, clock)
        self.chunks_written = 0
        self._written_bytes = 0
        self.dropped_bytes = 0
        self.clears = 0
        """How many times `clear()` was called."""
        self.closed = False

    @property
    def format(self) -> AudioFormat:
        return self._format

    @property
    def queued_ms(self) -> float:
        return self._timeline.queued_ms

    @property
    def written_ms(self) -> float:
        """Everything written, played or not (milliseconds)."""
        return self._format.duration_ms(self._written_bytes)

    @property
    def played_ms(self) -> float:
        return self._format.duration_ms(self._written_bytes - self.dropped_bytes - self._timeline.queued_bytes)

    @property
    def dropped_ms(self) -> float:
        return self._format.duration_ms(self.dropped_bytes)

    async def write(self, chunk: AudioChunk) -> None:
        if self.closed:
            raise RuntimeError("the null sink is closed")
        if chunk.format != self._format:
            raise ValueError(f"chunk format {chunk.format} does not match the sink's {self._format}")
        self.chunks_written += 1
        self._written_bytes += len(chunk.pcm)
        self._timeline.written(len(chunk.pcm))

    def clear(self) -> None:
        self.clears += 1
        self.dropped_bytes += self._timeline.stop()

    async def drain(self) -> None:
        self._timeline.stop()

    async def aclose(self) -> None:
        await self.drain()
        self.closed = True
