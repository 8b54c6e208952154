"""A private X server (Xvfb) for tests that need a display: a window to photograph, a screen to take; and a
window on it made active the way a window manager would (Xvfb runs none).

Needs the `xvfb` package (`Xvfb` on the PATH). Xvfb picks a free display number itself and writes it to the
pipe named by `-displayfd` once it accepts clients: no polling, no guessed number.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

from Xlib import X, Xatom
from Xlib.display import Display

START_S = 30.0
"""Xvfb starts in well under a second; a loaded machine may take seconds."""


@contextmanager
def virtual_screen(size: str) -> Iterator[str]:
    """An Xvfb screen of `size` ("1280x800x24": width, height, depth); yields its DISPLAY (":N")."""
    executable = shutil.which("Xvfb")
    assert executable is not None, "Xvfb is not installed (apt package `xvfb`)"
    read, write = os.pipe()
    server = subprocess.Popen(
        # -noreset: by default the server resets when its last client leaves, and a client connecting then is
        # refused (ECONNRESET): the shortcut tests' other client met it after Parley let its grab go.
        [executable, "-displayfd", str(write), "-screen", "0", size, "-nolisten", "tcp", "-noreset"],
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


@contextmanager
def active_window(
    display: str,
    frame: tuple[int, int, int, int],
    *,
    pixel: int = 0xDC2626,
    shown: bool = True,
    properties: Mapping[str, Sequence[int]] | None = None,
) -> Iterator[int]:
    """A window at `frame` (left, top, width, height: pixels) on `display`, filled with `pixel` (0xRRGGBB on a
    24-bit screen), `shown` (mapped) or not, with `properties` (32-bit numbers) set on it, and named active on
    the root window (`_NET_ACTIVE_WINDOW`) as a window manager would. Yields its id; gone after the block."""
    connection = Display(display)
    try:
        root = connection.screen().root
        left, top, width, height = frame
        window = root.create_window(left, top, width, height, 0, X.CopyFromParent, background_pixel=pixel)
        for name, numbers in (properties or {}).items():
            window.change_property(connection.intern_atom(name), Xatom.CARDINAL, 32, list(numbers))
        if shown:
            window.map()
        root.change_property(connection.intern_atom("_NET_ACTIVE_WINDOW"), Xatom.WINDOW, 32, [window.id])
        connection.sync()  # mapped and painted before anyone takes the screen
        yield window.id
    finally:
        connection.close()
