"""A microphone the test feeds: chunks arrive when the test says, and the stream ends when it says."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from tests.fakes.gemini_live_server import WAIT_S
from voice.audio.chunks import MIC_FORMAT, AudioChunk, AudioFormat
from voice.audio.synthetic import frames


class FedMicrophone:
    """An `AudioSource` that yields what the test feeds it and waits, as a microphone does, in between.
    It ends once the test calls `end()` (or on `aclose()`)."""

    def __init__(self, format: AudioFormat = MIC_FORMAT) -> None:
        self._format = format
        self._queue: asyncio.Queue[AudioChunk | None] = asyncio.Queue()
        self._fed = 0
        self._given = 0
        self._asking = False
        self._changed = asyncio.Condition()
        self.end_ms = 0.0
        """End of the last chunk fed (milliseconds): where the next `feed` starts."""

    @property
    def format(self) -> AudioFormat:
        return self._format

    def put(self, *chunks: AudioChunk) -> None:
        """Hand these chunks over as they are (their own timing)."""
        for chunk in chunks:
            self._queue.put_nowait(chunk)
            self._fed += 1
            self.end_ms = chunk.end_ms

    def feed(self, *clips: AudioChunk, frame_ms: int = 80) -> list[AudioChunk]:
        """Hand `clips` over back to back in `frame_ms` frames, timed on from the last chunk fed."""
        chunks = frames(*clips, frame_ms=frame_ms, start_ms=self.end_ms)
        self.put(*chunks)
        return chunks

    def end(self) -> None:
        self._queue.put_nowait(None)

    async def until_drained(self) -> None:
        """Wait until the reader has taken every chunk fed and asks for the next one: whatever the stages
        that read through this source do with a chunk before asking for another, they have done."""
        async with asyncio.timeout(WAIT_S), self._changed:
            await self._changed.wait_for(lambda: self._asking and self._given == self._fed)

    async def chunks(self) -> AsyncGenerator[AudioChunk, None]:
        while True:
            async with self._changed:
                self._asking = True
                self._changed.notify_all()
            chunk = await self._queue.get()
            self._asking = False
            if chunk is None:
                return
            self._given += 1
            yield chunk

    async def aclose(self) -> None:
        self.end()
