"""The runtime thread: one ordinary asyncio loop that owns the store, the clients and the voice loop.

The window's main thread runs `QApplication.exec()`; everything asynchronous runs here instead, because
PySide6's QtAsyncio has no socket support and cannot carry the Live websocket. Other threads reach the
loop only through `submit` (and `enter`), which hand work over with `call_soon_threadsafe`.

`stop()` cancels the work still running, closes what `enter` opened (last opened, first closed), stops
the loop and joins the thread, so a closed window leaves no thread and no open database behind.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
from collections.abc import Coroutine
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from functools import partial
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

THREAD_NAME = "parley-runtime"


class RuntimeClosed(RuntimeError):
    """Work was handed to a runtime that is stopping or stopped (or was never started)."""

    def __init__(self) -> None:
        super().__init__("the runtime is not running")


class Runtime:
    """An asyncio loop on a thread of its own. Not a daemon thread: `stop()` must run, and it is what
    ends the thread; the context manager form makes sure it does."""

    def __init__(self, name: str = THREAD_NAME) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=name, daemon=False)
        self._started = threading.Event()
        self._lock = threading.Lock()
        self._accepting = False
        self._tasks: set[asyncio.Task[Any]] = set()
        """Submitted work still running; touched only on the loop."""
        self._resources = AsyncExitStack()

    def __enter__(self) -> Runtime:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def thread(self) -> threading.Thread:
        return self._thread

    def start(self) -> None:
        """Start the thread and return once its loop runs."""
        with self._lock:
            if self._thread.is_alive() or self._loop.is_closed():
                raise RuntimeError("a runtime starts once")
            self._thread.start()
            self._started.wait()
            self._accepting = True

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run `coro` on the loop. Cancelling the returned future cancels the task; `stop()` cancels it too.

        Raises `RuntimeClosed` (and closes `coro`) when the runtime does not accept work.
        """
        result: concurrent.futures.Future[T] = concurrent.futures.Future()
        with self._lock:
            if not self._accepting:
                coro.close()
                raise RuntimeClosed
            # Under the lock, so that `stop()` queues its shutdown after this start: the loop runs
            # callbacks in order, and the shutdown then sees (and cancels) this task.
            self._loop.call_soon_threadsafe(self._start_task, coro, result)
        return result

    def enter(self, context: AbstractAsyncContextManager[T]) -> concurrent.futures.Future[T]:
        """Enter `context` on the loop and keep it open until `stop()`; the future gives what it yields.

        Enter and exit run in different tasks: a context whose exit must run in the task that entered
        it (a `TaskGroup`, a cancel scope) belongs in one submitted coroutine instead.
        """
        return self.submit(self._resources.enter_async_context(context))

    def stop(self, timeout: float | None = 30.0) -> None:
        """Cancel pending work, close what `enter` opened, stop the loop and join the thread. Idempotent.

        `timeout` bounds the clean-up on the loop (seconds); the thread is joined whatever happens.
        """
        if threading.current_thread() is self._thread:
            raise RuntimeError("the runtime cannot stop itself from its own thread")
        with self._lock:
            was_accepting, self._accepting = self._accepting, False
        if not was_accepting:
            if self._thread.ident is None:  # never started: nothing runs, only the loop to close
                self._loop.close()
            else:
                self._thread.join()
            return
        shutdown = asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop)
        try:
            shutdown.result(timeout)
        except concurrent.futures.TimeoutError:
            log.error("the runtime did not shut down within %s s; stopping its loop anyway", timeout)
            shutdown.cancel()
        except Exception:
            log.exception("closing the runtime's resources failed")
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.call_soon(self._started.set)
        try:
            self._loop.run_forever()
        finally:
            try:
                self._cancel_leftovers()
                self._loop.run_until_complete(self._loop.shutdown_asyncgens())
                self._loop.run_until_complete(self._loop.shutdown_default_executor())
            finally:
                asyncio.set_event_loop(None)
                self._loop.close()

    def _cancel_leftovers(self) -> None:
        """Tasks that outlived the shutdown (it timed out, or work spawned tasks nobody owned)."""
        leftovers = asyncio.all_tasks(self._loop)
        for task in leftovers:
            task.cancel()
        if leftovers:
            self._loop.run_until_complete(asyncio.gather(*leftovers, return_exceptions=True))

    def _start_task(self, coro: Coroutine[Any, Any, T], result: concurrent.futures.Future[T]) -> None:
        if result.cancelled():
            coro.close()
            return
        # Coroutine objects carry their function's name; the `Coroutine` protocol does not declare it.
        task = self._loop.create_task(coro, name=f"runtime: {getattr(coro, '__qualname__', 'work')}")
        self._tasks.add(task)
        task.add_done_callback(partial(self._finish_task, result))
        result.add_done_callback(partial(self._cancel_task, task))

    def _finish_task(self, result: concurrent.futures.Future[T], task: asyncio.Task[T]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            result.cancel()
            return
        # The caller may have cancelled `result` while the task was finishing.
        if not result.set_running_or_notify_cancel():
            return
        error = task.exception()
        if error is not None:
            result.set_exception(error)
        else:
            result.set_result(task.result())

    def _cancel_task(self, task: asyncio.Task[Any], result: concurrent.futures.Future[Any]) -> None:
        """`result` is done: when the caller cancelled it, cancel the task (from whichever thread)."""
        if not result.cancelled() or task.done():
            return
        with contextlib.suppress(RuntimeError):  # the loop is closed: the task is gone with it
            self._loop.call_soon_threadsafe(task.cancel)

    async def _shutdown(self) -> None:
        tasks = set(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._resources.aclose()
