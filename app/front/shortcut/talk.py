"""The talk shortcut: one key combination that starts a conversation from any application, as the wake word
does. Where the desktop lets Parley have it: on X11 by a grab (`x11`), on Wayland through the desktop's
GlobalShortcuts portal (`portal`); elsewhere (no desktop session, a Wayland desktop without the portal) it
cannot work, and `shortcut_support` says so in one line for Settings and `parley doctor`.

Each grab hears the key on a listener thread of its own, which calls `on_press` there: the front end's
callback hands the press to the runtime loop (`Runtime.submit`, through `call_soon_threadsafe`), which starts
the conversation as the window's Talk button does (`VoicePresenter.talk`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from app.front.shortcut.combination import KeyCombination, ShortcutError
from app.front.shortcut.portal import PortalShortcut, portal_version
from app.front.shortcut.x11 import X11Grab

log = logging.getLogger(__name__)

NO_DESKTOP = "No desktop session here (neither X11 nor Wayland): the shortcut works only on a desktop."
NO_PORTAL = "This Wayland desktop offers no global shortcuts portal: use the wake word, or Talk in the window."
ON_X11 = "Works in every application (X11)."
ON_PORTAL = "Works in every application, through the desktop's shortcuts portal (it may ask you to confirm it)."

Session = Literal["x11", "wayland"]


@dataclass(frozen=True, slots=True)
class Support:
    works: bool
    """Whether this desktop can give Parley a global shortcut."""
    line: str
    """What Settings and `parley doctor` say about it."""


def desktop_session(environ: Mapping[str, str]) -> Session | None:
    """The kind of desktop session the environment names. A Wayland session with XWayland also names an X
    display, but an X grab there hears only X applications' keys: Wayland wins."""
    if environ.get("WAYLAND_DISPLAY", "").strip():
        return "wayland"
    if environ.get("DISPLAY", "").strip():
        return "x11"
    return None


def shortcut_support(environ: Mapping[str, str] = os.environ) -> Support:
    """Whether a global shortcut can work here, and the line that says so (a D-Bus call on Wayland)."""
    session = desktop_session(environ)
    if session == "x11":
        return Support(True, ON_X11)
    if session == "wayland":
        return Support(True, ON_PORTAL) if portal_version() is not None else Support(False, NO_PORTAL)
    return Support(False, NO_DESKTOP)


class TalkShortcut:
    """The one shortcut held at a time; `set` grabs another in its place (on one thread, the front end's)."""

    def __init__(
        self,
        on_press: Callable[[], None],
        on_problem: Callable[[str], None],
        environ: Mapping[str, str] = os.environ,
    ) -> None:
        """`on_press`: called on a listener thread at each press. `on_problem`: one line when the combination
        asked for cannot be had (not a combination, taken by another application, refused by the user); called
        on the caller's thread, or on the portal's listener thread for the portal's answer. A desktop without
        global shortcuts is only logged: Settings and `parley doctor` say it."""
        self._on_press = on_press
        self._on_problem = on_problem
        self._environ = environ
        self._held: X11Grab | PortalShortcut | None = None
        self._text: str | None = None

    def set(self, text: str | None) -> None:
        """Hold the combination `text` (Qt's portable text; None or empty: none) instead of the one held now;
        nothing happens when it is the same text."""
        text = (text or "").strip() or None
        if text == self._text:
            return
        self.close()
        self._text = text
        if text is None:
            return
        try:
            combination = KeyCombination.parse(text)
            self._held = self._grab(combination)
        except ShortcutError as problem:
            self._text = None  # the same combination saved again is tried again (another application let go)
            log.warning("the talk shortcut does not work: %s", problem)
            self._on_problem(str(problem))

    def close(self) -> None:
        """Release the shortcut held (if any)."""
        held, self._held, self._text = self._held, None, None
        if held is not None:
            held.close()

    def _grab(self, combination: KeyCombination) -> X11Grab | PortalShortcut | None:
        session = desktop_session(self._environ)
        if session == "x11":
            return X11Grab(combination, self._on_press, self._environ["DISPLAY"])
        if session == "wayland" and portal_version() is not None:
            try:
                return PortalShortcut(combination, self._on_press, self._on_problem)
            except OSError as error:
                raise ShortcutError(f"the session bus cannot be reached ({error}): use the wake word or Talk") from None
        log.info("no talk shortcut: %s", NO_PORTAL if session == "wayland" else NO_DESKTOP)
        return None
