"""A private X server (Xvfb) for tests that need a display: a window to photograph, a screen to take.

Needs the `xvfb` package (`Xvfb` on the PATH). Xvfb picks a free display number itself and writes it to the
pipe named by `-displayfd` once it accepts clients: no polling, no guessed number.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

START_S = 30.0
"""Xvfb starts in well under a second; a loaded machine may take seconds."""


@contextmanager
def virtual_screen(size: str) -> Iterator[str]:
    """An Xvfb screen of `size` ("1280x800x24": width, height, depth); yields its DISPLAY (":N")."""
    executable = shutil.which("Xvfb")
    assert executable is not None, "Xvfb is not installed (apt package `xvfb`)"
    read, write = os.pipe()
    server = subprocess.Popen(
        [executable, "-displayfd", str(write), "-screen", "0", size, "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    os.close(write)
    try:
        with os.fdopen(read, "rb") as told:
            number = told.readline().strip()  # EOF (b"") when Xvfb exits without starting
        if not number:
            server.kill()
            _, errors = server.communicate(timeout=START_S)
            raise RuntimeError(f"Xvfb did not start: {errors.decode(errors='replace')[-500:]}")
        yield f":{number.decode()}"
    finally:
        server.terminate()
        try:
            server.communicate(timeout=START_S)
        except subprocess.TimeoutExpired:
            server.kill()
            server.communicate()
