"""Pacing: make a recording arrive as a microphone would, one chunk per chunk length of wall time.

The clock and the sleep are injected, so a test drives time by hand and never sleeps. `paced` is the
stream loop that the recorded sources (a WAV file, synthetic chunks) share.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterable, Awaitable, Callable, Iterable
from typing import Protocol

from voice.audio.chunks import AudioChunk


class Pacer(Protocol):
    def start(self) -> None:
        """Mark the start of a stream: stream time 0 is now."""
        ...

    async def wait_until(self, stream_ms: float) -> None:
        """Return once `stream_ms` of stream time has passed since `start()` (at once if it has)."""
        ...


class RealTimePacer:
    """Waits against one fixed origin: each deadline is `origin + stream_ms`, never "now + frame", so a
    late wake-up shortens the next wait instead of pushing every later chunk back (no drift)."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._clock = clock
        """Seconds, monotonic."""
        self._sleep = sleep
        self._origin: float | None = None

    def start(self) -> None:
        self._origin = self._clock()

    async def wait_until(self, stream_ms: float) -> None:
        if self._origin is None:
            self.start()
            assert self._origin is not None
        delay = self._origin + stream_ms / 1000.0 - self._clock()
        if delay > 0:
            await self._sleep(delay)


class NoPacer:
    """As fast as the consumer takes chunks (`--fast`). Still yields to the loop once per chunk, so a
    long recording cannot starve the other tasks."""

    def start(self) -> None:
        pass

    async def wait_until(self, stream_ms: float) -> None:
        await asyncio.sleep(0)


async def paced(
    chunks: Iterable[AudioChunk] | AsyncIterable[AudioChunk], pacer: Pacer, closed: Callable[[], bool]
) -> AsyncGenerator[AudioChunk, None]:
    """`chunks`, each handed out once `pacer` says a microphone would have finished recording it (its
    `end_ms` after the stream's start); once `closed()` is true the stream ends before its next chunk."""
    pacer.start()
    async for chunk in as_async(chunks):
        await pacer.wait_until(chunk.end_ms)
        if closed():
            return
        yield chunk


async def as_async(chunks: Iterable[AudioChunk] | AsyncIterable[AudioChunk]) -> AsyncGenerator[AudioChunk, None]:
    """The chunks of a list or a generator, sync or async, as one async stream."""
    if isinstance(chunks, AsyncIterable):
        async for chunk in chunks:
            yield chunk
    else:
        for chunk in chunks:
            yield chunk
