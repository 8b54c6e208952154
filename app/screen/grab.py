"""Taking the screen, where the desktop lets Parley: on Wayland the whole screen through the screenshot portal
(`portal`), which may ask the user; on X11 through mss, the active window where a window manager names one, else
the monitor the user is on (`active_window`); elsewhere not at all (`ScreenUnavailable`).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Literal

import mss

from app.screen.active_window import Focus, NoX11Display, Rect, focus
from app.screen.picture import UnreadablePicture, picture_of_file, picture_of_pixels
from app.screen.portal import PortalMissing, PortalRefused, portal_screenshot
from voice.live.connection import Picture

log = logging.getLogger(__name__)

Why = Literal["no_display", "refused"]
"""Why the screen could not be taken: the key of the sentence that says so (`languages/<code>/screen.toml`)."""


What = Literal["window", "screen"]
"""The active window, or a whole screen (the monitor the user is on, or what the portal gave); a key of the chat's
note (`languages/<code>/screen.toml`)."""


@dataclass(frozen=True)
class Look:
    """One look at the screen."""

    picture: Picture
    what: What
    """What the picture shows."""


class ScreenUnavailable(Exception):
    def __init__(self, why: Why, detail: str) -> None:
        super().__init__(detail)
        self.why: Why = why


async def take_screen(environ: Mapping[str, str] = os.environ) -> Look:
    """A picture of what the user looks at; raises `ScreenUnavailable`. A Wayland session goes through its portal even
    when X11 is there too (XWayland shows only the X11 windows)."""
    try:
        if environ.get("WAYLAND_DISPLAY"):
            return await _from_portal()
        if environ.get("DISPLAY"):
            return await asyncio.to_thread(_from_x11, environ["DISPLAY"])
    except UnreadablePicture as error:
        raise ScreenUnavailable("no_display", str(error)) from error
    raise ScreenUnavailable("no_display", "no display: neither WAYLAND_DISPLAY nor DISPLAY is set")


async def _from_portal() -> Look:
    try:
        path = await portal_screenshot()
    except PortalRefused as error:
        raise ScreenUnavailable("refused", str(error)) from error
    except PortalMissing as error:
        raise ScreenUnavailable("no_display", str(error)) from error
    try:
        return Look(await asyncio.to_thread(picture_of_file, path), "screen")
    finally:
        # Parley asked for this file only to send it: it is not the user's screenshot to keep.
        await asyncio.to_thread(path.unlink, missing_ok=True)


def _from_x11(display: str) -> Look:
    try:
        where = focus(display)
        with mss.MSS(display=display) as screen:
            monitors = [Rect(m["left"], m["top"], m["width"], m["height"]) for m in screen.monitors[1:]]
            region, what = looked_at(where, monitors)
            shot = screen.grab(asdict(region) if region else screen.primary_monitor)
    except (NoX11Display, mss.ScreenShotError) as error:
        raise ScreenUnavailable("no_display", f"X11 display {display} cannot be read: {error}") from error
    return Look(picture_of_pixels(shot.bgra, shot.width, shot.height), what)


def looked_at(where: Focus, monitors: Sequence[Rect]) -> tuple[Rect | None, What]:
    """The part of the X screen to take: the active window, else the monitor that holds the point where the user
    is (None: the primary monitor, when none holds it)."""
    if where.window is not None:
        return where.window, "window"
    return next((monitor for monitor in monitors if monitor.holds(where.point)), None), "screen"
