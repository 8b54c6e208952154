"""A clock the test moves by hand, and the pause that waits on it: the scheduler and the ringer sleep on
it, so nothing in a timer test waits on the wall clock."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

START = datetime(2026, 11, 27, 16, 0, tzinfo=UTC)
"""17:00 in Rome."""


class ManualClock:
    def __init__(self, start: datetime = START) -> None:
        self.now = start
        self._sleepers: list[tuple[datetime, asyncio.Future[None]]] = []
        self.pauses = asyncio.Event()
        """Set whenever something starts waiting on the clock (the scheduler has planned)."""

    def __call__(self) -> datetime:
        return self.now

    async def pause(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sleepers.append((self.now + timedelta(seconds=seconds), future))
        self.pauses.set()
        await future

    async def waiting(self) -> None:
        """Until something waits on the clock (a pause not over yet). Moved before that, the clock would run
        ahead of a wait its sleeper computed from the time before (the scheduler's "in 2 s" would start
        counting after the move, and never end)."""
        while not any(not future.done() for _, future in self._sleepers):
            self.pauses.clear()
            await self.pauses.wait()

    async def waited_on(self, seconds: float) -> None:
        """Until something waits `seconds` on the clock from now."""
        until = self.now + timedelta(seconds=seconds)
        while not any(when == until for when, _ in self._sleepers):
            self.pauses.clear()
            await self.pauses.wait()

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)
        for until, future in list(self._sleepers):
            if until <= self.now:
                self._sleepers.remove((until, future))
                if not future.done():
                    future.set_result(None)
