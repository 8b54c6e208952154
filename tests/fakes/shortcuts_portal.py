"""A desktop's GlobalShortcuts portal (xdg-desktop-portal's interface, as GNOME and KDE serve it) on a private
session bus (`dbus-daemon`): it creates sessions, binds shortcuts (or, told to, answers as a user who declines),
closes sessions, and activates a bound shortcut when the test presses it, all over real D-Bus messages."""

from __future__ import annotations

import contextlib
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from jeepney import DBusAddress, HeaderFields, Message, MessageType, new_method_return, new_signal
from jeepney.bus_messages import message_bus
from jeepney.io.threading import DBusConnection, ReceiveStopped, open_dbus_connection

DBUS_DAEMON = "/usr/bin/dbus-daemon"
BUS_NAME = "org.freedesktop.portal.Desktop"
DESKTOP = "/org/freedesktop/portal/desktop"
SHORTCUTS = "org.freedesktop.portal.GlobalShortcuts"
DECLINED = 1
"""A `Response` code: the user cancelled the desktop's dialog."""


@contextlib.contextmanager
def session_bus(folder: Path) -> Iterator[str]:
    """A private D-Bus session bus for the block: its address."""
    daemon = subprocess.Popen(
        [DBUS_DAEMON, "--session", "--nofork", "--print-address=1", f"--address=unix:path={folder / 'bus'}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert daemon.stdout is not None
        address = daemon.stdout.readline().decode().strip()  # printed once it accepts connections
        assert address, "dbus-daemon did not start"
        yield address
    finally:
        daemon.terminate()
        daemon.wait(10)


@dataclass
class Binding:
    session: str
    shortcut_id: str
    preferred_trigger: str


@dataclass
class FakeShortcutsPortal:
    """Serves the portal on `address` from `start` to `stop`, on a thread of its own."""

    address: str
    declines: bool = False
    """Answer BindShortcuts as a user who cancels the desktop's dialog."""
    bindings: list[Binding] = field(default_factory=list)
    closed: list[str] = field(default_factory=list)
    """Sessions closed by their client."""
    changed: threading.Condition = field(default_factory=threading.Condition)

    def start(self) -> None:
        self._connection: DBusConnection = open_dbus_connection(self.address)
        self._connection.send(message_bus.RequestName(BUS_NAME))
        while self._connection.receive().header.message_type is not MessageType.method_return:
            pass  # the name is ours once its reply comes (a NameAcquired signal may come first)
        self._thread = threading.Thread(target=self._serve, name="fake-shortcuts-portal", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._connection.interrupt()
        self._thread.join(10)
        self._connection.close()

    def until(self, holds: Callable[[], bool], timeout_s: float = 10.0) -> None:
        with self.changed:
            assert self.changed.wait_for(holds, timeout_s), "the portal did not hear what was expected"

    def activate(self, binding: Binding) -> None:
        """The user pressed the shortcut: `Activated`, broadcast as a portal sends it."""
        body: tuple[object, ...] = (binding.session, binding.shortcut_id, 0, {})
        self._connection.send(new_signal(DBusAddress(DESKTOP, interface=SHORTCUTS), "Activated", "osta{sv}", body))

    def _serve(self) -> None:
        try:
            while True:
                message = self._connection.receive()
                if message.header.message_type is MessageType.method_call:
                    self._answer(message)
        except ReceiveStopped:
            return

    def _answer(self, call: Message) -> None:
        fields = call.header.fields
        member, interface = fields.get(HeaderFields.member), fields.get(HeaderFields.interface)
        if member == "Get" and call.body == (SHORTCUTS, "version"):
            self._connection.send(new_method_return(call, "v", (("u", 1),)))
        elif interface == SHORTCUTS and member == "CreateSession":
            (options,) = call.body
            session = f"{DESKTOP}/session/fake/{options['session_handle_token'][1]}"
            self._respond(call, options, 0, {"session_handle": ("s", session)})
        elif interface == SHORTCUTS and member == "BindShortcuts":
            session, shortcuts, _parent, options = call.body
            if self.declines:
                self._respond(call, options, DECLINED, {})
                return
            self._respond(call, options, 0, {"shortcuts": ("a(sa{sv})", [])})
            with self.changed:  # bound once answered: a press the test makes now comes after the answer
                for shortcut_id, details in shortcuts:
                    self.bindings.append(Binding(session, shortcut_id, details["preferred_trigger"][1]))
                self.changed.notify_all()
        elif member == "Close":
            self._connection.send(new_method_return(call))
            with self.changed:
                self.closed.append(str(fields[HeaderFields.path]))
                self.changed.notify_all()

    def _respond(
        self, call: Message, options: dict[str, tuple[str, str]], code: int, results: dict[str, object]
    ) -> None:
        """Reply with the request's path, then answer on it with `Response`, as a portal does."""
        sender = str(call.header.fields[HeaderFields.sender]).lstrip(":").replace(".", "_")
        request = f"{DESKTOP}/request/{sender}/{options['handle_token'][1]}"
        self._connection.send(new_method_return(call, "o", (request,)))
        response = new_signal(
            DBusAddress(request, interface="org.freedesktop.portal.Request"), "Response", "ua{sv}", (code, results)
        )
        response.header.fields[HeaderFields.destination] = call.header.fields[HeaderFields.sender]
        self._connection.send(response)
