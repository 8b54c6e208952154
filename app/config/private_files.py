"""The data folder is private: chats, memories, the turn journal and the logs are the user's conversations,
so only the user may read them, as ssh and gpg keep their folders. The folder is 0700 and its files 0600;
the process creates everything with a 0077 umask, so a file SQLite or the journal makes later (a WAL, a
rotated log) is private from its first byte, never loosened and then tightened.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from app.config.config_file import SettingsError

PRIVATE_UMASK = 0o077
"""Group and others get no permission on what this process creates."""
PRIVATE_FOLDER = 0o700
PRIVATE_FILE = 0o600


def keep_private(data_dir: Path) -> None:
    """From here on this process creates files only its user can read; `data_dir` is made (or made
    private again, with what is in it: a folder from an older Parley, or copied in) 0700, its files 0600.
    Files and folders of other owners are left alone."""
    os.umask(PRIVATE_UMASK)
    if data_dir.exists() and not data_dir.is_dir():
        raise SettingsError(
            f"the data folder {data_dir} is a file, not a folder: choose another with PARLEY_DATA_DIR or --data-dir"
        )
    try:
        data_dir.mkdir(parents=True, exist_ok=True, mode=PRIVATE_FOLDER)
    except OSError as error:
        raise SettingsError(
            f"cannot use the data folder {data_dir}: {error.strerror or error}; choose another with "
            "PARLEY_DATA_DIR or --data-dir"
        ) from None
    _tighten(data_dir, PRIVATE_FOLDER)
    for folder, folders, files in os.walk(data_dir):
        for name in folders:
            _tighten(Path(folder, name), PRIVATE_FOLDER)
        for name in files:
            _tighten(Path(folder, name), PRIVATE_FILE)


def _tighten(path: Path, mode: int) -> None:
    try:
        status = path.lstat()
        if stat.S_ISLNK(status.st_mode) or status.st_uid != os.getuid():
            return  # a link's target, or someone else's file, is not ours to change
        if stat.S_IMODE(status.st_mode) & ~mode:
            path.chmod(stat.S_IMODE(status.st_mode) & mode)
    except OSError:
        return  # a file that vanished meanwhile, or a file system without Unix modes
