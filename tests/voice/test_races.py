"""The one race of awaitables: the first to finish wins, the rest are cancelled and have ended."""

from __future__ import annotations

import asyncio

import pytest

from voice.races import race, unless


async def forever(ended: list[str], name: str, started: asyncio.Semaphore | None = None) -> None:
    """Waits until cancelled, and notes that it ended (and, given `started`, that it began)."""
    if started is not None:
        started.release()
    try:
        await asyncio.Event().wait()
    finally:
        ended.append(name)


async def answer(value: int) -> int:
    return value


async def test_work_that_finishes_first_gives_its_result_and_the_stop_is_cancelled() -> None:
    ended: list[str] = []
    assert await unless(answer(7), forever(ended, "stop")) == 7
    assert ended == ["stop"]


async def test_a_stop_that_finishes_first_cancels_the_work_and_gives_none() -> None:
    ended: list[str] = []
    stop = asyncio.Event()
    stop.set()

    async def late_answer() -> int:
        await forever(ended, "work")
        return 1

    assert await unless(late_answer(), stop.wait()) is None
    assert ended == ["work"]


async def test_the_work_failing_raises_its_failure() -> None:
    async def failing() -> int:
        raise ValueError("broken")

    ended: list[str] = []
    with pytest.raises(ValueError, match="broken"):
        await unless(failing(), forever(ended, "stop"))
    assert ended == ["stop"]


async def test_race_gives_each_contender_in_order_the_losers_cancelled() -> None:
    ended: list[str] = []
    first, second, third = await race(forever(ended, "first"), answer(2), forever(ended, "third"))
    assert first.cancelled() and third.cancelled()
    assert second.result() == 2
    assert sorted(ended) == ["first", "third"]


async def test_cancelling_the_race_cancels_every_contender() -> None:
    ended: list[str] = []
    started = asyncio.Semaphore(0)
    racing = asyncio.create_task(race(forever(ended, "a", started), forever(ended, "b", started)))
    await started.acquire()
    await started.acquire()
    racing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await racing
    assert sorted(ended) == ["a", "b"]


async def test_a_task_raced_through_wait_is_not_ended_by_losing() -> None:
    running = asyncio.create_task(asyncio.Event().wait())
    stop = asyncio.Event()
    stop.set()
    await race(asyncio.wait({running}), stop.wait())
    assert not running.done()
    running.cancel()
