"""A sink that plays nothing and counts everything: for headless runs and for tests."""

from __future__ import annotations

from voice.audio import MODEL_VOICE_FORMAT, AudioChunk, AudioFormat


class NullSink:
    """Keeps the `AudioSink` bookkeeping without a device: written audio is queued until `drain()`
    counts it as played, and `clear()` counts it as dropped (barge-in)."""

    def __init__(self, format: AudioFormat = MODEL_VOICE_FORMAT) -> None:
        self._format = format
        self.chunks_written = 0
        self.queued_bytes = 0
        self.played_bytes = 0
        self.dropped_bytes = 0
        self.clears = 0
        """How many times `clear()` was called."""
        self.closed = False

    @property
    def format(self) -> AudioFormat:
        return self._format

    @property
    def written_ms(self) -> float:
        """Everything written, played or not (milliseconds)."""
        return self._format.duration_ms(self.queued_bytes + self.played_bytes + self.dropped_bytes)

    @property
    def played_ms(self) -> float:
        return self._format.duration_ms(self.played_bytes)

    @property
    def dropped_ms(self) -> float:
        return self._format.duration_ms(self.dropped_bytes)

    async def write(self, chunk: AudioChunk) -> None:
        if self.closed:
            raise RuntimeError("the null sink is closed")
        if chunk.format != self._format:
            raise ValueError(f"chunk format {chunk.format} does not match the sink's {self._format}")
        self.chunks_written += 1
        self.queued_bytes += len(chunk.pcm)

    def clear(self) -> None:
        self.clears += 1
        self.dropped_bytes += self.queued_bytes
        self.queued_bytes = 0

    async def drain(self) -> None:
        self.played_bytes += self.queued_bytes
        self.queued_bytes = 0

    async def aclose(self) -> None:
        await self.drain()
        self.closed = True
