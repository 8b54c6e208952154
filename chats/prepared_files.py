"""Model files kept ready to read fast in a cache folder: made once from what a package ships compressed or
parses slowly, written whole or not at all, then read memory-mapped (nothing is read until it is used, and the
pages are shared by every Parley process that reads them)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

COMPLETE = "complete"
"""Written last: a folder without it is half made (a crash while preparing) and is made again."""


def prepared(folder: Path, make: Callable[[Path], None]) -> Path:
    """`folder`, made by `make(a temporary folder)` unless a whole one is there already; `OSError` when it
    cannot be written (a read-only cache, a full disk)."""
    if (folder / COMPLETE).is_file():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        make(work)
        (work / COMPLETE).write_text("", encoding="utf-8")
        if folder.exists():  # a half-made one
            shutil.rmtree(folder, ignore_errors=True)
        try:
            work.replace(folder)
        except OSError:
            if not (folder / COMPLETE).is_file():  # not a race lost to another Parley preparing it too
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return folder


def mapped(path: Path) -> np.ndarray[Any, Any]:
    """The `.npy` array at `path`, read from the page cache as it is used (read-only: models never write their
    weights)."""
    return np.asarray(np.load(path, mmap_mode="r"))
