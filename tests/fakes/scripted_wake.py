"""A `WakeDetector` driven by data: it fires when the stream passes the given offsets."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Sequence

from voice.audio import AudioChunk
from voice.wake_protocol import WakeEvent


class ScriptedWakeDetector:
    """Fires once per offset (milliseconds into each stream), on the first chunk that ends past it.
    The offsets are shared across streams in order, as a microphone's wake words would be."""

    def __init__(self, offsets_ms: Sequence[float]) -> None:
        self._pending = list(offsets_ms)
        self.streams = 0

    async def detections(self, chunks: AsyncIterable[AudioChunk]) -> AsyncGenerator[WakeEvent, None]:
        self.streams += 1
        async for chunk in chunks:
            if self._pending and chunk.end_ms >= self._pending[0]:
                self._pending.pop(0)
                yield WakeEvent(model="scripted", score=1.0, offset_ms=chunk.end_ms)

    async def aclose(self) -> None:
        return None
