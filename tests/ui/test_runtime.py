"""The runtime thread: work in, results and failures out, and a stop that leaves nothing running."""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from app.runtime import THREAD_NAME, Runtime, RuntimeClosed


async def thread_name() -> str:
    await asyncio.sleep(0)
    return threading.current_thread().name


async def fail() -> None:
    raise ValueError("no good")


def test_submit_runs_on_the_runtime_thread() -> None:
    with Runtime() as runtime:
        assert runtime.thread.name == THREAD_NAME
        assert not runtime.thread.daemon
        assert runtime.submit(thread_name()).result(timeout=5) == THREAD_NAME
    assert not runtime.thread.is_alive()


def test_a_failure_reaches_the_future() -> None:
    with Runtime() as runtime, pytest.raises(ValueError, match="no good"):
        runtime.submit(fail()).result(timeout=5)


def test_stop_cancels_pending_work_and_closes_what_was_entered() -> None:
    events: list[str] = []
    started = threading.Event()

    async def forever() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            events.append("work cancelled")

    @asynccontextmanager
    async def resource() -> AsyncIterator[str]:
        events.append("opened")
        yield "resource"
        events.append("closed")

    runtime = Runtime()
    runtime.start()
    assert runtime.enter(resource()).result(timeout=5) == "resource"
    pending = runtime.submit(forever())
    assert started.wait(timeout=5)
    runtime.stop()
    assert pending.cancelled()
    assert events == ["opened", "work cancelled", "closed"]
    assert not runtime.thread.is_alive()
    runtime.stop()  # a second stop changes nothing


def test_cancelling_the_future_cancels_the_task() -> None:
    cancelled = threading.Event()
    started = threading.Event()

    async def forever() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    with Runtime() as runtime:
        future = runtime.submit(forever())
        assert started.wait(timeout=5)
        assert future.cancel()
        assert cancelled.wait(timeout=5)


def test_a_stopped_runtime_refuses_work_and_closes_the_coroutine() -> None:
    runtime = Runtime()
    runtime.start()
    runtime.stop()
    coro = thread_name()
    with pytest.raises(RuntimeClosed):
        runtime.submit(coro)
    assert inspect.getcoroutinestate(coro) == inspect.CORO_CLOSED  # no "never awaited" warning


def test_a_runtime_never_started_stops_quietly() -> None:
    runtime = Runtime()
    with pytest.raises(RuntimeClosed):
        runtime.submit(fail())
    runtime.stop()
    assert not runtime.thread.is_alive()
