"""Races between awaitables: run them together until the first finishes, then cancel the rest and wait for
them to end (every task owned, none left running).

`unless` is the common case, some work cut short by a stop; `race` gives each contender's task back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

T = TypeVar("T")


async def race(*contenders: Awaitable[Any]) -> tuple[asyncio.Future[Any], ...]:
    """Each contender's future, in order, once the first has finished: a finished one holds its result or
    failure (several may have finished together), the others are cancelled. Cancelling the race cancels
    them all. A task passed in is cancelled with the rest: wrap it in `asyncio.wait({task})` to race its end
    without ending it."""
    futures = tuple(asyncio.ensure_future(contender) for contender in contenders)
    try:
        await asyncio.wait(futures, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for future in futures:
            future.cancel()
        await asyncio.gather(*futures, return_exceptions=True)
    return futures


async def unless(work: Awaitable[T], stop: Awaitable[object]) -> T | None:
    """`work`'s result, or None when `stop` finishes first (`work` is then cancelled); its failure is raised."""
    doing = asyncio.ensure_future(work)
    await race(doing, stop)
    return None if doing.cancelled() else doing.result()
