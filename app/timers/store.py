"""The timers file: `timers.json` in the data folder, rewritten whole and atomically (written beside it,
fsynced, renamed over it), so a crash leaves the old list or the new one, never half of one.

Why a file and not the chat store: a timer rings on this machine, whatever holds the chats (a Supabase
project is shared by the user's machines, and a timer set on the laptop must not ring on the desktop),
and it must be readable before the chat store opens (a missed timer is said at start, even offline).

Every change is a read-modify-write under an exclusive lock on `timers.lock` (`filelock`): the window's
scheduler, `parley ask` and `parley timers cancel` may change the list at the same time, and a change one
of them made is never written over by another. `mark` changes a timer only from the state it is expected in:
a timer is marked rung before it rings, and one marked already (by a run that crashed mid-ring, or by
another process) never rings again.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from app.core.timer import State, Timer

log = logging.getLogger(__name__)

TIMERS_FILE = "timers.json"
FORMAT = "parley.timers/1"
LOCK_TIMEOUT_S = 5.0
"""A change holds the lock for a few milliseconds: a lock held this long belongs to a stuck process."""
KEEP_FINISHED = 50
"""Timers that rang, were missed or cancelled are kept (newest first) up to this many: the rest go."""


class TimerFileError(Exception):
    """The timers file cannot be read or written; the message says which file and why."""


class TimerFile:
    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / TIMERS_FILE
        self._lock_path = data_dir / "timers.lock"

    def read(self) -> list[Timer]:
        """Every timer kept, in the order they were set. A missing file is an empty list."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise TimerFileError(f"{self.path}: cannot read the timers ({exc.strerror or exc})") from None
        try:
            data = json.loads(text)
            return [Timer.from_json(item) for item in data["timers"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise TimerFileError(f"{self.path}: the timers file is damaged ({exc})") from None

    def add(self, timer: Timer) -> None:
        self.change(lambda timers: [*timers, timer])

    def mark(self, timer_id: str, state: State, *, expected: State = "pending") -> Timer | None:
        """Set the timer's state if it is in `expected`; the timer as changed, or None (gone, or in another
        state: cancelled meanwhile, or rung by another run)."""
        changed: list[Timer] = []

        def update(timers: list[Timer]) -> list[Timer]:
            changed.extend(t.with_state(state) for t in timers if t.id == timer_id and t.state == expected)
            return [changed[0] if changed and t.id == timer_id else t for t in timers]

        self.change(update)
        return changed[0] if changed else None

    def change(self, update: Callable[[list[Timer]], list[Timer]]) -> list[Timer]:
        """Replace the list with `update(list)`, under the lock; the list written."""
        with self._locked():
            timers = _pruned(update(self.read()))
            self._write(timers)
            return timers

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lock = FileLock(self._lock_path, timeout=LOCK_TIMEOUT_S)
            lock.acquire()
        except (OSError, Timeout) as exc:
            raise TimerFileError(f"{self._lock_path}: cannot lock the timers ({exc})") from None
        try:
            yield
        finally:
            lock.release()

    def _write(self, timers: list[Timer]) -> None:
        content = json.dumps({"format": FORMAT, "timers": [t.to_json() for t in timers]}, indent=1)
        try:
            # In the same folder: a rename is atomic only within one file system.
            descriptor, temporary = tempfile.mkstemp(prefix=".timers.", suffix=".tmp", dir=self.path.parent)
            try:
                with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                    file.write(content)
                    file.flush()
                    os.fsync(file.fileno())
                Path(temporary).replace(self.path)
            except OSError:
                with contextlib.suppress(OSError):
                    Path(temporary).unlink()
                raise
        except OSError as exc:
            raise TimerFileError(f"{self.path}: cannot write the timers ({exc.strerror or exc})") from None


def _pruned(timers: list[Timer]) -> list[Timer]:
    """Pending timers, and the newest `KEEP_FINISHED` of the others, in their order."""
    finished = sorted((t for t in timers if not t.pending), key=lambda t: t.due_at, reverse=True)
    dropped = {t.id for t in finished[KEEP_FINISHED:]}
    return [t for t in timers if t.id not in dropped]
