"""The plumbing between the window (GUI thread) and the core (the runtime thread's asyncio loop), under
every bridge.

UI to core: a bridge method submits a coroutine to the runtime and returns at once. Core to UI: when the
coroutine ends, its future's callback (on the runtime thread) emits the private `_finished` signal; the
bridge lives on the GUI thread, so Qt queues that emission and the bound slot `_on_finished` runs on the
GUI thread, where the handler turns the result into a public signal. A failure becomes `error(str)`.
Nothing here blocks the GUI thread on the core.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Callable, Coroutine
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Qt, Signal, Slot

from app.runtime import Runtime, RuntimeClosed
from app.wiring import ChatServices

log = logging.getLogger(__name__)

T = TypeVar("T")


class _NotOpen(Exception):
    """The services failed to open; that failure was reported once, the requests waiting on it are not."""


class ServicesBridge(QObject):
    """Lives on the GUI thread. Create it there, after `runtime.start()`, then call `open()`."""

    ready = Signal()
    """The chat services are open."""
    error = Signal(str)
    """A one-line message for the user."""

    _finished = Signal(object, object)

    def __init__(
        self,
        runtime: Runtime,
        open_services: Callable[[], AbstractAsyncContextManager[ChatServices]],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._runtime = runtime
        self._open_services = open_services
        self._services: concurrent.futures.Future[ChatServices] | None = None
        # Queued even when the future is already done as `_call` returns (its callback then runs right
        # here): an answer never arrives before the request's number is handed back.
        self._finished.connect(self._on_finished, Qt.ConnectionType.QueuedConnection)

    def open(self) -> None:
        """Open the chat services on the runtime (they close when it stops); `ready` or `error` follows."""
        if self._services is not None:
            return
        try:
            self._services = self._runtime.enter(self._open_services())
        except RuntimeClosed as closed:
            self.error.emit(str(closed))
            return
        self._services.add_done_callback(self._services_done)

    def run_with_services(self, work: Callable[[ChatServices], Coroutine[Any, Any, None]]) -> None:
        """Run `work` on the runtime once the chat services are open (the voice loop does); a failure
        becomes `error`, so it shows in the window."""
        self.request(work, _done)

    def request(self, work: Callable[[ChatServices], Coroutine[Any, Any, T]], handler: Callable[[T], object]) -> None:
        """Run `work` on the runtime with the open services; `handler` gets its result on the GUI thread, and
        a failure becomes `error`. For the window's other bridges (memory), which share these services."""
        self._call(self._with_services(work), handler)

    def _on_opened(self, services: ChatServices) -> None:
        """On the GUI thread, once the services are open."""
        self.ready.emit()

    async def _with_services(self, work: Callable[[ChatServices], Coroutine[Any, Any, T]]) -> T:
        return await work(await self._opened())

    async def _opened(self) -> ChatServices:
        if self._services is None:
            raise RuntimeError(f"{type(self).__name__}.open() was not called")
        try:
            return await asyncio.wrap_future(self._services)
        except Exception as error:
            raise _NotOpen from error

    def _call(self, coro: Coroutine[Any, Any, T], handler: Callable[[T], object]) -> None:
        try:
            future = self._runtime.submit(coro)
        except RuntimeClosed as closed:
            self.error.emit(str(closed))
            return
        future.add_done_callback(self._delivery(handler))

    def _delivery(self, handler: Callable[[Any], object]) -> Callable[[concurrent.futures.Future[Any]], None]:
        def deliver(future: concurrent.futures.Future[Any]) -> None:
            # Runs on the runtime thread (or here, if already done): queued to `_on_finished`.
            self._finished.emit(future, handler)

        return deliver

    def _services_done(self, future: concurrent.futures.Future[ChatServices]) -> None:
        self._finished.emit(future, self._on_opened)

    @Slot(object, object)
    def _on_finished(self, future: concurrent.futures.Future[Any], handler: Callable[[Any], object]) -> None:
        if future.cancelled():
            return
        failure = future.exception()
        if failure is None:
            handler(future.result())
        elif not isinstance(failure, _NotOpen):
            self._report(failure)

    def _report(self, failure: BaseException) -> None:
        # The type only: a message may quote a chat's words, and those stay out of the log.
        log.warning("a window request failed: %s", type(failure).__name__)
        self.error.emit(str(failure) or type(failure).__name__)


def _done(result: None) -> None:
    """Nothing to deliver: long-running work reports through `ChatBridge.post` (the core's `app.core.events`)."""
