"""Rings the timers on time: one task that wakes when the next timer is due (or when the list changed),
marks what is due as rung in the file, then rings it. Marked first: a crash mid-ring loses that ring, but
nothing ever rings twice.

The clock and the pause are injected: tests move time by hand, and nothing waits on the wall clock.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from datetime import datetime
from typing import Any, Protocol, TypeVar

from app.core.timer import State, Timer
from app.timers.schedule import plan
from app.timers.store import TimerFile, TimerFileError

log = logging.getLogger(__name__)

RESCAN_S = 2.0
"""The file is read again at least this often: `parley ask` (another process) may have set a timer."""

Clock = Callable[[], datetime]
"""The time now, aware."""
Pause = Callable[[float], Awaitable[None]]
"""Waits that many seconds (`asyncio.sleep`)."""
T = TypeVar("T")


class Ringer(Protocol):
    """What ringing is: a chime and a voice, a desktop notification, a line in the chat."""

    async def ring(self, timer: Timer) -> None:
        """Ring `timer` until the user stops it (or it gives up); it is already marked rung."""
        ...

    async def missed(self, timers: Sequence[Timer], now: datetime) -> None:
        """Say, once, at `now`, that these were due while Parley was not running; they are already marked
        missed."""
        ...


class TimerScheduler:
    def __init__(
        self,
        file: TimerFile,
        ringer: Ringer,
        *,
        clock: Clock,
        pause: Pause = asyncio.sleep,
        on_marked: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """`on_marked`: after timers were marked rung or missed (they are no longer running)."""
        self._on_marked = on_marked
        self._file = file
        self._ringer = ringer
        self._clock = clock
        self._pause = pause
        self._changed = asyncio.Event()
        self._ringing: set[asyncio.Task[None]] = set()

    def changed(self) -> None:
        """The list changed in this process (a timer set or cancelled): plan again now."""
        self._changed.set()

    async def run(self) -> None:
        """Until cancelled; the rings under way are cancelled with it."""
        try:
            while True:
                delay = await self.step()
                await set_or_paused(self._changed, self._pause, delay)
        finally:
            for task in self._ringing:
                task.cancel()
            await asyncio.gather(*self._ringing, return_exceptions=True)

    async def step(self) -> float:
        """Ring what is due, say what was missed; how long to wait before the next step (seconds)."""
        self._changed.clear()
        try:
            timers = await asyncio.to_thread(self._file.read)
            now = self._clock()
            decided = plan(timers, now)
            missed = [t for t in decided.missed if await self._marked(t, "missed")]
            ringing = [t for t in decided.ring if await self._marked(t, "rung")]
            for timer in ringing:
                task = asyncio.create_task(self._ringer.ring(timer), name=f"timer-{timer.id}")
                self._ringing.add(task)
                task.add_done_callback(self._rung)
            if (missed or ringing) and self._on_marked is not None:
                await self._on_marked()
            if missed:
                await self._ringer.missed(missed, now)
        except TimerFileError as error:
            log.warning("timers: %s", error)
            return RESCAN_S
        if decided.next_due is None:
            return RESCAN_S
        return max(0.0, min(RESCAN_S, (decided.next_due - self._clock()).total_seconds()))

    async def _marked(self, timer: Timer, state: State) -> bool:
        """Marked in the file now (by this process: not cancelled or marked by another meanwhile)."""
        return await asyncio.to_thread(self._file.mark, timer.id, state) is not None

    def _rung(self, task: asyncio.Task[None]) -> None:
        self._ringing.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("a timer could not ring: %r", task.exception())


async def set_or_paused(event: asyncio.Event, pause: Pause, seconds: float) -> bool:
    """Wait until `event` is set or `pause(seconds)` ends; whether the event is set."""
    await done_or_paused(event.wait(), pause, seconds)
    return event.is_set()


async def done_or_paused(work: Coroutine[Any, Any, T], pause: Pause, seconds: float) -> T | None:
    """`work`'s result, or None when `pause(seconds)` ends first (`work` is then cancelled); its failure is
    raised."""
    doing = asyncio.ensure_future(work)
    paused = asyncio.ensure_future(pause(seconds))
    try:
        await asyncio.wait({doing, paused}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (doing, paused):
            task.cancel()
        await asyncio.gather(doing, paused, return_exceptions=True)
    return None if doing.cancelled() else doing.result()
