"""The talk shortcut on Wayland, through the GlobalShortcuts portal over a real (private) D-Bus session bus: the
combination is offered as the preferred trigger, an activation is a press, a changed shortcut closes the old
session and binds the new one, a declined binding is said in one line, and a desktop without the portal is said
in Settings' line."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.front.shortcut.portal import SHORTCUT_ID
from app.front.shortcut.talk import NO_PORTAL, ON_PORTAL, TalkShortcut, shortcut_support
from tests.fakes.shortcuts_portal import Binding, FakeShortcutsPortal, session_bus

WAYLAND = {"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}
"""A Wayland session with XWayland beside it: the portal, not an X grab, is asked."""
PRESS_WAIT_S = 10.0


@pytest.fixture
def bus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A private session bus, the one Parley's D-Bus connections open."""
    with session_bus(tmp_path) as address:
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
        yield address


@pytest.fixture
def portal(bus: str) -> Iterator[FakeShortcutsPortal]:
    served = FakeShortcutsPortal(bus)
    served.start()
    yield served
    served.stop()


def test_the_portal_binds_the_shortcut_and_an_activation_is_a_press(portal: FakeShortcutsPortal) -> None:
    assert shortcut_support(WAYLAND).line == ON_PORTAL
    presses: queue.Queue[str] = queue.Queue()
    problems: list[str] = []
    shortcut = TalkShortcut(lambda: presses.put("pressed"), problems.append, WAYLAND)
    shortcut.set("Ctrl+Alt+Space")
    try:
        portal.until(lambda: len(portal.bindings) == 1)
        (binding,) = portal.bindings
        assert (binding.shortcut_id, binding.preferred_trigger) == (SHORTCUT_ID, "CTRL+ALT+space")
        portal.activate(Binding("/org/freedesktop/portal/desktop/session/other/s1", SHORTCUT_ID, ""))  # not ours
        portal.activate(binding)
        assert presses.get(timeout=PRESS_WAIT_S) == "pressed"

        shortcut.set("Ctrl+Shift+K")  # saved in Settings
        portal.until(lambda: len(portal.bindings) == 2 and portal.closed == [binding.session])
        new = portal.bindings[1]
        assert new.preferred_trigger == "CTRL+SHIFT+k"
        assert new.session != binding.session
        portal.activate(new)
        assert presses.get(timeout=PRESS_WAIT_S) == "pressed"
    finally:
        shortcut.close()
    portal.until(lambda: len(portal.closed) == 2)
    assert presses.empty()
    assert problems == []


def test_a_binding_the_user_declines_is_said_in_one_line(portal: FakeShortcutsPortal) -> None:
    portal.declines = True
    problems: queue.Queue[str] = queue.Queue()
    shortcut = TalkShortcut(lambda: None, problems.put, WAYLAND)
    shortcut.set("Ctrl+Alt+Space")
    try:
        problem = problems.get(timeout=PRESS_WAIT_S)  # said on the portal's listener thread
    finally:
        shortcut.close()
    assert problem == "Ctrl+Alt+Space is not bound: you declined it. Change it in Settings to ask again."
    assert portal.bindings == []


def test_a_wayland_desktop_without_the_portal_is_said_in_settings_and_nothing_is_asked(bus: str) -> None:
    assert shortcut_support(WAYLAND).line == NO_PORTAL
    assert not shortcut_support(WAYLAND).works
    problems: list[str] = []
    shortcut = TalkShortcut(lambda: None, problems.append, WAYLAND)
    shortcut.set("Ctrl+Alt+Space")
    shortcut.close()
    assert problems == []  # only logged: Settings and `parley doctor` say it


def test_without_a_session_bus_a_wayland_desktop_has_no_portal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    assert shortcut_support(WAYLAND).line == NO_PORTAL
