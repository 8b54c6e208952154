"""`--out FILE` of the export commands: checked before anything is read, written whole or not at all, and
never over an existing file unless `--force` says so. Only a regular file is ever replaced: a named pipe, a
device or a socket is refused (run as root, a rename over `/dev/full` would make it a JSON file), and a
symbolic link is written through to the file it names, never replaced by one."""

from __future__ import annotations

import argparse
import contextlib
import os
import stat
import tempfile
from pathlib import Path

from app.cli.command_runner import UsageError


def add_out_arguments(parser: argparse.ArgumentParser) -> None:
    """`--out FILE` and `--force` on an export command."""
    parser.add_argument("--out", help="file to write (default: standard output)")
    parser.add_argument("--force", action="store_true", help="replace the --out file if it exists")


def check_out(out: str | None, force: bool) -> None:
    """`UsageError` saying what to do when the export could not be written to `out` (None: standard output)."""
    if out is None:
        return
    path = _written(out)
    if path.is_dir():
        raise UsageError(f"--out {out} is a folder: give a file name in it, such as {path / 'export.json'}")
    if not path.parent.is_dir():
        raise UsageError(f"--out {out}: the folder {path.parent} does not exist; make it first")
    if path.exists() and (kind := _special(path)) is not None:
        raise UsageError(f"--out {out} is a {kind}, not a file: choose a file to write")
    if path.exists() and not force:
        raise UsageError(f"--out {out} already exists: add --force to replace it, or choose another file")


def write_out(out: str, text: str, force: bool) -> None:
    """Write `text` to `out` in UTF-8: a new file, or with `force` a whole replacement of an existing one (a
    failed write leaves the old file as it was)."""
    check_out(out, force)
    path = _written(out)
    try:
        if force:
            _replace(path, text)
        else:
            _create(path, text)
    except FileExistsError:
        raise UsageError(f"--out {out} already exists: add --force to replace it, or choose another file") from None
    except OSError as error:
        raise UsageError(f"cannot write {out}: {error.strerror or error}") from None


def _written(out: str) -> Path:
    """The file `out` names: a symbolic link's target (resolved, so the link stays), else `out`."""
    path = Path(out)
    return path.resolve() if path.is_symlink() else path


def _special(path: Path) -> str | None:
    """What `path` is when it is not a regular file or a folder, in a user's words; None otherwise."""
    mode = path.stat().st_mode
    if stat.S_ISFIFO(mode):
        return "named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return None


def _create(path: Path, text: str) -> None:
    # "x": a file made meanwhile is refused too, never overwritten; a failed write leaves no half file.
    file = path.open("x", encoding="utf-8")
    try:
        with file:
            file.write(text)
    except BaseException:
        with contextlib.suppress(OSError):
            path.unlink()
        raise


def _replace(path: Path, text: str) -> None:
    # In the same folder: a rename is atomic only within one file system.
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
        Path(temporary).replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(temporary).unlink()
        raise
