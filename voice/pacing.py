"""Pacing: make a recording arrive as a microphone would, one chunk per chunk length of wall time.

The clock and the sleep are injected, so a test drives time by hand and never sleeps.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Protocol


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
