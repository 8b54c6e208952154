"""One thread that owns a SQLite connection: every call of a store runs there, off the event loop.

sqlite3 work never blocks the event loop, and a store has exactly one writer in this process. A sqlite
error (locked past the busy timeout, disk full, I/O) means the store is down, not that the caller was
wrong: it becomes `StoreUnavailable`, as does a call after `close`.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from chats.errors import StoreUnavailable
from chats.sqlite.connection import connect

T = TypeVar("T")


class ConnectionWorker:
    def __init__(self, executor: ThreadPoolExecutor, connection: sqlite3.Connection, what: str) -> None:
        self._executor = executor
        self.connection = connection
        """Use it only in calls given to `run`: they run on the thread that owns it."""
        self._what = what
        self._closed = False

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
        return cls(executor, connection, what)

    async def run(self, call: Callable[[], T]) -> T:
        if self._closed:
            raise StoreUnavailable(f"the {self._what} store is closed")
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, call)
        except sqlite3.Error as error:
            raise StoreUnavailable(f"the {self._what} database is unavailable: {error}") from error

    async def close(self) -> None:
        """Close the connection; later calls raise `StoreUnavailable` (a late request at shutdown)."""
        if self._closed:
            return
        self._closed = True  # first: nothing new reaches the thread; what is queued runs before the close
        await asyncio.get_running_loop().run_in_executor(self._executor, self.connection.close)
        self._executor.shutdown(wait=True)
