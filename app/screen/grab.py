"""Taking the screen, where the desktop lets Parley: on Wayland through the screenshot portal (`portal`), which
may ask the user; on X11 through mss, the screen the user is on (the primary monitor: X11 says which window is
active only through the window manager, which mss does not read); elsewhere not at all (`ScreenUnavailable`).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from typing import Literal

import mss

from app.screen.picture import UnreadablePicture, picture_of_file, picture_of_pixels
from app.screen.portal import PortalMissing, PortalRefused, portal_screenshot
from voice.live.connection import Picture

log = logging.getLogger(__name__)

Why = Literal["no_display", "refused"]
"""Why the screen could not be taken: the key of the sentence that says so (`languages/<code>/screen.toml`)."""


class ScreenUnavailable(Exception):
    def __init__(self, why: Why, detail: str) -> None:
        super().__init__(detail)
        self.why: Why = why


async def take_screen(environ: Mapping[str, str] = os.environ) -> Picture:
    """The screen as a `Picture`; raises `ScreenUnavailable`. A Wayland session goes through its portal even
    when X11 is there too (XWayland shows only the X11 windows)."""
    try:
        if environ.get("WAYLAND_DISPLAY"):
            return await _from_portal()
        if environ.get("DISPLAY"):
            return await asyncio.to_thread(_from_x11, environ["DISPLAY"])
    except UnreadablePicture as error:
        raise ScreenUnavailable("no_display", str(error)) from error
    raise ScreenUnavailable("no_display", "no display: neither WAYLAND_DISPLAY nor DISPLAY is set")


async def _from_portal() -> Picture:
    try:
        path = await portal_screenshot()
    except PortalRefused as error:
        raise ScreenUnavailable("refused", str(error)) from error
    except PortalMissing as error:
        raise ScreenUnavailable("no_display", str(error)) from error
    try:
        return await asyncio.to_thread(picture_of_file, path)
    finally:
        # Parley asked for this file only to send it: it is not the user's screenshot to keep.
        await asyncio.to_thread(path.unlink, missing_ok=True)


def _from_x11(display: str) -> Picture:
    try:
        with mss.MSS(display=display) as screen:
            shot = screen.grab(screen.primary_monitor)
    except mss.ScreenShotError as error:
        raise ScreenUnavailable("no_display", f"X11 display {display} cannot be read: {error}") from error
    return picture_of_pixels(shot.bgra, shot.width, shot.height)
