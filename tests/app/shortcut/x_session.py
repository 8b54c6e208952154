"""Key presses sent into a virtual X session (`tests.fakes.virtual_screen`) with the XTEST extension, as a
keyboard would, and another client holding a combination."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from Xlib import XK, X
from Xlib.display import Display
from Xlib.error import BadAccess, CatchError
from Xlib.ext import xtest

SIZE = "640x480x24"
"""The virtual screen the shortcut tests press keys on."""
_KEYS = {"Ctrl": "Control_L", "Alt": "Alt_L", "Shift": "Shift_L", "Meta": "Super_L", "Space": "space"}


def press(display_name: str, combination: str) -> None:
    """Press the keys of `combination` ("Ctrl+Alt+Space") down in order, then let them go, through XTEST."""
    display = Display(display_name)
    try:
        keycodes = [
            display.keysym_to_keycode(XK.string_to_keysym(_KEYS.get(k, k.lower()))) for k in combination.split("+")
        ]
        for keycode in keycodes:
            xtest.fake_input(display, X.KeyPress, keycode)
        for keycode in reversed(keycodes):
            xtest.fake_input(display, X.KeyRelease, keycode)
        display.sync()
    finally:
        display.close()


@contextmanager
def grabbed_by_another_client(display_name: str, combination: str) -> Iterator[None]:
    """Another application holds `combination` (Ctrl and Alt and one key, with no lock on) for the block; an
    `AssertionError` when it cannot, because another client (Parley) holds it already."""
    display = Display(display_name)
    root = display.screen().root
    *_, key = combination.split("+")
    keycode = display.keysym_to_keycode(XK.string_to_keysym(_KEYS.get(key, key.lower())))
    try:
        refused = CatchError(BadAccess)
        root.grab_key(keycode, X.ControlMask | X.Mod1Mask, True, X.GrabModeAsync, X.GrabModeAsync, onerror=refused)
        display.sync()
        assert refused.get_error() is None, f"{combination} is held by another client"
        yield
    finally:
        display.close()  # its grabs go with its connection
