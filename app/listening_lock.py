"""One voice loop per data folder: a second one on the same chats would wake on the same words, answer
over the first and replay the same journal. So `parley listen` refuses in one line, and the window waits
(`app.front.voice_presenter`).

The lock is the operating system's (`filelock`: flock on Linux and macOS), so it goes with the process
however that ends; the file holds who has it, for the message."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import filelock

from voice.errors import VoiceError

LOCK_FILE = "listening.lock"


class AlreadyListening(VoiceError):
    """Another process runs a voice loop on this data folder."""

    def __init__(self, owner: str) -> None:
        super().__init__(f"Parley is already listening on these chats ({owner}): quit it first, then try again")
        self.owner = owner
        """Which process: "process 1234"."""


class FolderNotWritable(VoiceError):
    """The lock file cannot be made: the data folder is read-only (or full) for this process."""

    def __init__(self, data_dir: Path, error: OSError) -> None:
        super().__init__(
            f"cannot write in the data folder {data_dir} ({error.strerror or error}): Parley needs it writable to"
            " listen and to change chats; make it writable, or choose another with --data-dir"
        )


@contextmanager
def listening_lock(data_dir: Path) -> Iterator[None]:
    """Hold the data folder's voice loop for the block; raise `AlreadyListening` if another process has it."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / LOCK_FILE
    lock = filelock.FileLock(path, timeout=0, on_acquired=_write_owner)
    try:
        lock.acquire()
    except filelock.Timeout:
        raise AlreadyListening(_owner(path)) from None
    except OSError as error:
        raise FolderNotWritable(data_dir, error) from None
    try:
        yield
    finally:
        lock.release()


def who_listens(data_dir: Path) -> str | None:
    """The other process listening on these chats ("process 1234"), or None when none does."""
    try:
        with listening_lock(data_dir):
            return None
    except AlreadyListening as busy:
        return busy.owner


def _write_owner(fd: int) -> None:
    os.ftruncate(fd, 0)
    os.write(fd, f"process {os.getpid()}".encode())


def _owner(path: Path) -> str:
    try:
        owner = path.read_text(encoding="utf-8").strip()
    except OSError:
        owner = ""
    return owner or "another process"
