"""Another process holding the data folder's listening lock, as a second Parley would."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HOLDER = """
import sys
from pathlib import Path
from app.listening_lock import listening_lock
with listening_lock(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()  # until it is killed, or its stdin closes
"""


@contextmanager
def another_process_listening(data_dir: Path) -> Iterator[subprocess.Popen[str]]:
    """A process holding `data_dir`'s lock until the block ends (then killed: the lock goes with it)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(data_dir)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield holder
    finally:
        holder.kill()
        holder.wait()
