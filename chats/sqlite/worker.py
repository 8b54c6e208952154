"""One thread that owns a SQLite connection: every query of a store runs there, off the event loop.

sqlite3 work never blocks the event loop, and a store has exactly one writer in this process. A store is
a `ThreadedStore`; each of its queries is a plain method marked `on_thread`, which callers await and
which runs on the store's thread. A sqlite error (locked past the busy timeout, disk full, I/O) means
the store is down, not that the caller was wrong: it becomes `StoreUnavailable`, as does a call after
`close`; one that says the file is damaged becomes `StoreDamaged`, and the file is checked whole at its
next open (`chats.sqlite.health`).
"""

from __future__ import annotations

import asyncio
import functools
import sqlite3
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, Concatenate, ParamSpec, Self, TypeVar

from chats.errors import StoreDamaged, StoreUnavailable
from chats.models import utc_now
from chats.sqlite.connection import BUSY_TIMEOUT_MS, busy, connect, is_busy, time_text
from chats.sqlite.health import forget_healthy, is_damage, record_healthy

T = TypeVar("T")
P = ParamSpec("P")
StoreT = TypeVar("StoreT", bound="ThreadedStore")


class ConnectionWorker:
    def __init__(self, executor: ThreadPoolExecutor, connection: sqlite3.Connection, what: str, path: Path) -> None:
        self._executor = executor
        self.connection = connection
        """Use it only in calls given to `run`: they run on the thread that owns it."""
        self._what = what
        self._path = path
        self._closed = False
        self._met_damage = False

    @classmethod
    async def open(cls, path: Path, busy_timeout_ms: int, *, what: str) -> ConnectionWorker:
        """Open (creating and migrating) the database at `path` on a new thread. `what` names the store
        in messages ("chat", "memory")."""
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"parley-{what}")
        try:
            connection = await asyncio.get_running_loop().run_in_executor(executor, connect, path, busy_timeout_ms)
        except BaseException:
            executor.shutdown(wait=False)
            raise
        return cls(executor, connection, what, path)

    async def run(self, call: Callable[[], T]) -> T:
        if self._closed:
            raise StoreUnavailable(f"the {self._what} store is closed")
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, call)
        except sqlite3.Error as error:
            if is_damage(error):
                self._met_damage = True
                forget_healthy(self._path)
                raise StoreDamaged(self._path, str(error)) from error
            raise unavailable(error, self._what, self._path) from error

    async def close(self) -> None:
        """Close the connection; later calls raise `StoreUnavailable` (a late request at shutdown). A
        connection that met no damage records the file as healthy (see `chats.sqlite.health`)."""
        if self._closed:
            return
        self._closed = True  # first: nothing new reaches the thread; what is queued runs before the close
        await asyncio.get_running_loop().run_in_executor(self._executor, self._close)
        self._executor.shutdown(wait=True)

    def _close(self) -> None:
        self.connection.close()
        if not self._met_damage:
            with suppress(OSError):  # without the stamp the next open only checks the file whole
                record_healthy(self._path, only_if_recorded=True)


def unavailable(error: sqlite3.Error, what: str, path: Path) -> StoreUnavailable:
    """A sqlite error that is not damage, said so that the user knows what to do."""
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF
    if is_busy(error):
        return busy(what, path)
    if code == sqlite3.SQLITE_FULL:
        return StoreUnavailable(f"the disk holding {path} is full: free some space, then try again (nothing was lost)")
    if code == sqlite3.SQLITE_READONLY:
        return StoreUnavailable(
            f"the {what} database {path} is read-only here (its folder or file cannot be written): it can be"
            " listed, shown and exported, not changed; make it writable to change it"
        )
    return StoreUnavailable(f"the {what} database is unavailable: {error}")


class ThreadedStore:
    """What every SQLite store is: queries bound to one user, on the one thread that owns the connection."""

    what: ClassVar[str]
    """The store's name in messages ("chat", "memory")."""

    def __init__(self, worker: ConnectionWorker, user_id: str, clock: Callable[[], datetime]) -> None:
        """Use `open`. Made on the worker's thread, so a subclass may read the connection as it starts."""
        self._worker = worker
        self._db = worker.connection
        self._user_id = user_id
        self._clock = clock

    @classmethod
    async def open(
        cls,
        path: Path,
        user_id: str,
        *,
        clock: Callable[[], datetime] = utc_now,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        **options: Any,
    ) -> Self:
        """Open (creating and migrating) the database at `path` on a thread of its own, and the store on it,
        bound to `user_id`; `clock` stamps what it writes. A writer waits up to `busy_timeout_ms` for
        another process's write before the store reports itself unavailable. `options`: the store's own
        (its constructor's keyword arguments)."""
        worker = await ConnectionWorker.open(path, busy_timeout_ms, what=cls.what)
        return await worker.run(functools.partial(cls, worker, user_id, clock, **options))

    @property
    def user_id(self) -> str:
        return self._user_id

    def _now(self) -> str:
        return time_text(self._clock())

    async def close(self) -> None:
        """Close the database; later calls raise `StoreUnavailable` (a late request at shutdown)."""
        await self._worker.close()


def on_thread(query: Callable[Concatenate[StoreT, P], T]) -> Callable[Concatenate[StoreT, P], Coroutine[Any, Any, T]]:
    """The store's `query` as a coroutine method that runs it on the store's thread. Its arguments cross
    as given: callers do not change them while they wait. On the thread a query calls plain helpers,
    never another `on_thread` method (mypy reports the coroutine that would be left unawaited)."""

    @functools.wraps(query)
    async def run(store: StoreT, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await store._worker.run(functools.partial(query, store, *args, **kwargs))

    return run
