"""The shortcut on an X11 display (python-xlib's one home): a passive grab of the key combination on the root
window (XGrabKey), so that it reaches Parley whichever application has the focus, and the thread that hears it.

An X grab matches the modifiers exactly, so the combination is grabbed four times: with and without Caps Lock
and Num Lock, which the user may have on. The server refuses a combination another client grabbed with
BadAccess, an error that comes back asynchronously: a round trip after the grabs collects it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
from collections.abc import Callable

from Xlib import XK, X
from Xlib.display import Display
from Xlib.error import BadAccess, CatchError, ConnectionClosedError, DisplayError

from app.front.shortcut.combination import KeyCombination, Modifier, ShortcutError

log = logging.getLogger(__name__)

STOP_WAIT_S = 2.0
"""How long `close` waits for the listener thread: it wakes at once on the stop pipe."""
_FIXED_MASKS = {"ctrl": X.ControlMask, "shift": X.ShiftMask}
_MODIFIER_KEYS: dict[Modifier | str, str] = {"alt": "Alt_L", "super": "Super_L", "num_lock": "Num_Lock"}
"""The key whose modifier bit (Mod1 to Mod5, as the keyboard map assigns them) stands for the modifier."""
_DEFAULT_MASKS = {"alt": X.Mod1Mask, "super": X.Mod4Mask, "num_lock": X.Mod2Mask}
"""Where most keyboard maps put them, for a map that leaves one out."""


class X11Grab:
    """The combination grabbed on an X display until `close`; `on_press` is called on the grab's listener
    thread at each press (and each auto-repeat of a held key)."""

    def __init__(self, combination: KeyCombination, on_press: Callable[[], None], display: str | None = None) -> None:
        """`display`: the X display's name (None: `$DISPLAY`). `ShortcutError` when there is no display to
        open, its keyboard has no such key, or another application holds the combination."""
        try:
            self._display = Display(display)
        except (DisplayError, ConnectionClosedError, OSError) as error:
            raise ShortcutError(f"no X display to grab {combination.text} on ({error})") from None
        try:
            self._keycode, self._masks = self._grab(combination)
        except ShortcutError:
            self._display.close()
            raise
        self._on_press = on_press
        self._stop_read, self._stop_write = os.pipe()
        self._thread = threading.Thread(target=self._listen, name="talk-shortcut-x11", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Release the grab and end the listener thread (any thread but the listener's; once)."""
        os.write(self._stop_write, b"x")  # the pipe holds it even when the listener has ended (its display closed)
        self._thread.join(STOP_WAIT_S)
        os.close(self._stop_write)
        os.close(self._stop_read)

    def _grab(self, combination: KeyCombination) -> tuple[int, list[int]]:
        display, root = self._display, self._display.screen().root
        keysym = XK.string_to_keysym(combination.key)
        keycode = display.keysym_to_keycode(keysym) if keysym else 0
        if not keycode:
            raise ShortcutError(f"this keyboard has no key {combination.key} for {combination.text}")
        mask = 0
        for modifier in combination.modifiers:
            mask |= _FIXED_MASKS.get(modifier) or self._modifier_mask(modifier)
        num_lock = self._modifier_mask("num_lock")
        masks = [mask | extra for extra in (0, X.LockMask, num_lock, X.LockMask | num_lock)]
        refused = CatchError(BadAccess)
        for each in masks:
            root.grab_key(keycode, each, True, X.GrabModeAsync, X.GrabModeAsync, onerror=refused)
        display.sync()  # the round trip that brings back a refusal
        if refused.get_error() is not None:
            for each in masks:
                root.ungrab_key(keycode, each)
            display.sync()
            raise ShortcutError(f"{combination.text} is taken by another application: choose another in Settings")
        return keycode, masks

    def _modifier_mask(self, modifier: str) -> int:
        """The modifier bit the keyboard map gives the modifier's key (Alt is Mod1 on most maps)."""
        keycode = self._display.keysym_to_keycode(XK.string_to_keysym(_MODIFIER_KEYS[modifier]))
        for index, keycodes in enumerate(self._display.get_modifier_mapping()):
            if keycode and keycode in keycodes and index >= X.Mod1MapIndex:
                return int(1 << index)
        return int(_DEFAULT_MASKS[modifier])

    def _listen(self) -> None:
        display = self._display
        try:
            while True:
                for _ in range(display.pending_events()):
                    event = display.next_event()
                    if event.type == X.KeyPress and event.detail == self._keycode:
                        self._on_press()
                readable, _, _ = select.select([display.fileno(), self._stop_read], [], [])
                if self._stop_read in readable:
                    break
            root = display.screen().root
            for each in self._masks:
                root.ungrab_key(self._keycode, each)
            display.sync()
        except ConnectionClosedError as error:  # the X server went away: the desktop session is over
            log.info("the X display closed: %s", error)
        finally:
            with contextlib.suppress(ConnectionClosedError):
                display.close()
