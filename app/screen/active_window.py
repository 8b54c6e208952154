"""Where the user is on an X11 display (python-xlib's home in `app/screen`): the active window with its frame, in
root coordinates, or the point whose monitor to take when there is no window to look at.

X11 itself does not know which window is active: the window manager says so (EWMH's `_NET_ACTIVE_WINDOW` on the
root window), and says how much frame it drew around it (`_NET_FRAME_EXTENTS`: the title bar and borders, outside
the window). A GTK window that draws its own frame reports the invisible shadow around it as
`_GTK_FRAME_EXTENTS`, inside the window: that is left out. Without a window manager (a bare X server, a kiosk)
there is no active window, and the pointer says where the user is.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from Xlib import X
from Xlib.display import Display
from Xlib.error import ConnectionClosedError, DisplayError, XError
from Xlib.xobject.drawable import Window


@dataclass(frozen=True)
class Rect:
    """A rectangle of the X screen."""

    left: int
    """Pixels from the screen's left edge."""
    top: int
    """Pixels from the screen's top edge."""
    width: int
    """Pixels."""
    height: int
    """Pixels."""

    @property
    def centre(self) -> tuple[int, int]:
        return self.left + self.width // 2, self.top + self.height // 2

    def holds(self, point: tuple[int, int]) -> bool:
        x, y = point
        return self.left <= x < self.left + self.width and self.top <= y < self.top + self.height

    def clipped(self, bounds: Rect) -> Rect | None:
        """The part of this rectangle inside `bounds`; None when no pixel is."""
        left, top = max(self.left, bounds.left), max(self.top, bounds.top)
        right = min(self.left + self.width, bounds.left + bounds.width)
        bottom = min(self.top + self.height, bounds.top + bounds.height)
        return Rect(left, top, right - left, bottom - top) if right > left and bottom > top else None


@dataclass(frozen=True)
class Focus:
    """What the user is looking at on the X screen."""

    window: Rect | None
    """The active window with its frame, clipped to the screen; None when there is none to look at: no window
    manager or no active window, one not shown (minimised) or off the screen, or Parley's own window (its Look
    button was pressed: the user means what is beside it, on the same screen)."""
    point: tuple[int, int]
    """Where the user is (pixels from the screen's top-left corner): the active window's centre, else the
    pointer."""


class NoX11Display(Exception):
    """The X display cannot be opened or went away."""


def focus(display: str) -> Focus:
    """Where the user is on the X display named `display` (":0"); raises `NoX11Display`."""
    try:
        connection = Display(display)
    except (DisplayError, ConnectionClosedError, OSError) as error:
        raise NoX11Display(f"X11 display {display} cannot be opened: {error}") from None
    try:
        return _focus(connection)
    except ConnectionClosedError as error:
        raise NoX11Display(f"X11 display {display} closed: {error}") from None
    finally:
        connection.close()


def _focus(connection: Display) -> Focus:
    root = connection.screen().root
    size = root.get_geometry()
    screen = Rect(0, 0, size.width, size.height)
    active = _cardinals(connection, root, "_NET_ACTIVE_WINDOW")
    window = connection.create_resource_object("window", active[0]) if active and active[0] else None
    try:
        if window is not None and window.get_attributes().map_state == X.IsViewable:
            frame = _frame(connection, root, window)
            shown = frame.clipped(screen)
            ours = _cardinals(connection, window, "_NET_WM_PID") == [os.getpid()]
            if shown is not None:
                return Focus(None if ours else shown, shown.centre)
    except XError:  # the window closed while it was read: as if none were active
        pass
    pointer = root.query_pointer()
    return Focus(None, (pointer.root_x, pointer.root_y))


def _frame(connection: Display, root: Window, window: Window) -> Rect:
    geometry = window.get_geometry()
    origin = root.translate_coords(window.id, 0, 0)
    left, right, top, bottom = _extents(connection, window, "_NET_FRAME_EXTENTS")
    shadow_left, shadow_right, shadow_top, shadow_bottom = _extents(connection, window, "_GTK_FRAME_EXTENTS")
    return Rect(
        origin.x - left + shadow_left,
        origin.y - top + shadow_top,
        geometry.width + left + right - shadow_left - shadow_right,
        geometry.height + top + bottom - shadow_top - shadow_bottom,
    )


def _extents(connection: Display, window: Window, name: str) -> tuple[int, int, int, int]:
    """A frame's widths (left, right, top, bottom: pixels), all 0 when the property is not set."""
    widths = _cardinals(connection, window, name)
    return (widths[0], widths[1], widths[2], widths[3]) if len(widths) == 4 else (0, 0, 0, 0)


def _cardinals(connection: Display, window: Window, name: str) -> list[int]:
    """The numbers a window property holds (a window id is one too); empty when it is not set."""
    value = window.get_full_property(connection.intern_atom(name), X.AnyPropertyType)
    return [int(number) for number in value.value] if value is not None and value.format == 32 else []
