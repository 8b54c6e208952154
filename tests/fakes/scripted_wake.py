"""A `WakeDetector` driven by data: it fires when the stream passes the given offsets, or on a tagged chunk."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterable, Sequence

from tests.fakes.gemini_live_server import WAIT_S
from voice.audio.chunks import AudioChunk
from voice.wake.protocol import WakeEvent

WAKE_TAG = b"WAKE"
"""The first bytes of a chunk that "says" the wake word to a detector made with `tag=WAKE_TAG`."""


class ScriptedWakeDetector:
    """Fires once per offset (milliseconds into each stream), on the first chunk that ends past it.
    The offsets are shared across streams in order, as a microphone's wake words would be. With `tag`,
    it also fires on every chunk whose PCM starts with `tag` (silence never does)."""

    def __init__(self, offsets_ms: Sequence[float] = (), *, tag: bytes | None = None) -> None:
        self._pending = list(offsets_ms)
        self._tag = tag
        self.streams = 0
        self.heard = 0
        """Chunks read, over all streams."""
        self._changed = asyncio.Condition()

    async def detections(self, chunks: AsyncIterable[AudioChunk]) -> AsyncGenerator[WakeEvent, None]:
        self.streams += 1
        async for chunk in chunks:
            async with self._changed:
                self.heard += 1
                self._changed.notify_all()
            tagged = self._tag is not None and chunk.pcm.startswith(self._tag)
            if tagged or (self._pending and chunk.end_ms >= self._pending[0]):
                if not tagged:
                    self._pending.pop(0)
                yield WakeEvent(model="scripted", score=1.0, offset_ms=chunk.end_ms)

    async def until_heard(self, count: int) -> None:
        """Wait until `count` chunks have been read: then, with no more fed, the detector waits for audio."""
        async with asyncio.timeout(WAIT_S), self._changed:
            await self._changed.wait_for(lambda: self.heard >= count)

    async def aclose(self) -> None:
        return None
