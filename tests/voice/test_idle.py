"""The idle watch on its own: when the idle time starts counting, and when it starts again."""

from __future__ import annotations

import asyncio

from voice.audio.null_sink import NullSink
from voice.idle import IdleWatch

WAIT_S = 5.0
"""How long the test waits for the watch to act before it fails (a guard, not a goal)."""


class Countdowns:
    """The watch's waits: each one started is told to the test, and lasts until the test lets it end."""

    def __init__(self) -> None:
        self.started: asyncio.Queue[float] = asyncio.Queue()
        self._ends: asyncio.Queue[None] = asyncio.Queue()

    async def wait(self, seconds: float) -> None:
        self.started.put_nowait(seconds)
        await self._ends.get()

    def end_one(self) -> None:
        self._ends.put_nowait(None)

    async def next_started(self) -> float:
        async with asyncio.timeout(WAIT_S):
            return await self.started.get()


async def played_out() -> None:
    return None


async def test_a_turn_ending_during_the_count_starts_the_idle_time_again_from_its_end() -> None:
    countdowns = Countdowns()
    watch = IdleWatch(NullSink(), idle_after_s=10.0, wait=countdowns.wait, on_played_out=played_out)
    watch.quiet()  # the connection opened: the idle time counts
    idle = asyncio.create_task(watch.until_idle())
    assert await countdowns.next_started() == 10.0
    watch.active()  # 8 s into it the user speaks, and the model answers
    watch.quiet()  # the answer is over: the conversation goes idle 10 s from here, not 2 s from here
    assert await countdowns.next_started() == 10.0
    assert not idle.done()
    countdowns.end_one()
    async with asyncio.timeout(WAIT_S):
        await idle
