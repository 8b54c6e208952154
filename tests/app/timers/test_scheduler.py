"""The scheduler on a real timers file, with a clock the test moves."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from pathlib import Path

from app.core.timer import Timer
from app.timers.schedule import GRACE
from app.timers.scheduler import TimerScheduler
from app.timers.store import TimerFile
from tests.app.timers.clock import START, ManualClock

WAIT_S = 10.0


class Bell:
    """A `Ringer` that keeps what rang."""

    def __init__(self) -> None:
        self.rang: list[str] = []
        self.said_missed: list[list[str]] = []
        self.news = asyncio.Event()

    async def ring(self, timer: Timer) -> None:
        self.rang.append(timer.id)
        self.news.set()

    async def missed(self, timers: Sequence[Timer], now: datetime) -> None:
        self.said_missed.append([t.id for t in timers])
        self.news.set()


def timer(timer_id: str, due_in_s: float) -> Timer:
    return Timer(timer_id, "timer", timer_id, START + timedelta(seconds=due_in_s), START)


@asynccontextmanager
async def scheduling(folder: Path, clock: ManualClock, bell: Bell) -> AsyncIterator[TimerScheduler]:
    scheduler = TimerScheduler(TimerFile(folder), bell, clock=clock, pause=clock.pause)
    task = asyncio.create_task(scheduler.run())
    try:
        yield scheduler
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def planned(clock: ManualClock) -> None:
    """Until the scheduler waits on the clock again (it has looked at the file)."""
    clock.pauses.clear()
    async with asyncio.timeout(WAIT_S):
        await clock.pauses.wait()


async def until_news(bell: Bell) -> None:
    async with asyncio.timeout(WAIT_S):
        await bell.news.wait()
    bell.news.clear()


async def test_a_timer_rings_when_its_time_comes_and_only_once(tmp_path: Path) -> None:
    clock, bell, file = ManualClock(), Bell(), TimerFile(tmp_path)
    file.add(timer("pasta", 540))
    async with scheduling(tmp_path, clock, bell):
        await planned(clock)
        clock.advance(539)
        await planned(clock)
        assert bell.rang == []
        clock.advance(1)
        await until_news(bell)
        assert bell.rang == ["pasta"]
        assert [t.state for t in file.read()] == ["rung"]  # marked before it rang
        for _ in range(3):
            clock.advance(60)
            await planned(clock)
    assert bell.rang == ["pasta"] and bell.said_missed == []


async def test_one_due_while_parley_was_not_running_is_said_missed_once(tmp_path: Path) -> None:
    clock, bell, file = ManualClock(), Bell(), TimerFile(tmp_path)
    file.add(timer("late", -GRACE.total_seconds() - 60))
    file.add(timer("just", -10))  # within the grace: it still rings
    async with scheduling(tmp_path, clock, bell):
        await until_news(bell)
        await planned(clock)
    assert bell.said_missed == [["late"]] and bell.rang == ["just"]
    assert {t.id: t.state for t in file.read()} == {"late": "missed", "just": "rung"}
    restarted = Bell()
    async with scheduling(tmp_path, clock, restarted):
        await planned(clock)
    assert restarted.rang == [] and restarted.said_missed == []


async def test_a_timer_cancelled_by_another_process_never_rings(tmp_path: Path) -> None:
    clock, bell, file = ManualClock(), Bell(), TimerFile(tmp_path)
    file.add(timer("pasta", 60))
    async with scheduling(tmp_path, clock, bell):
        await planned(clock)
        assert TimerFile(tmp_path).mark("pasta", "cancelled") is not None  # `parley timers cancel`
        clock.advance(60)
        await planned(clock)
    assert bell.rang == []


async def test_a_timer_set_meanwhile_is_planned_at_once(tmp_path: Path) -> None:
    clock, bell, file = ManualClock(), Bell(), TimerFile(tmp_path)
    async with scheduling(tmp_path, clock, bell) as scheduler:
        await planned(clock)
        file.add(timer("eggs", 0.5))
        scheduler.changed()
        await planned(clock)
        clock.advance(0.5)
        await until_news(bell)
    assert bell.rang == ["eggs"]
