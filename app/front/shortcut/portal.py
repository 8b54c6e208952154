"""The shortcut on Wayland, through the desktop's GlobalShortcuts portal (xdg-desktop-portal) over D-Bus, with
jeepney: Wayland lets no application grab keys, so Parley asks the desktop to bind the combination and to tell
it when it is pressed.

The portal answers a request with a `Response` signal on a request object whose path the caller can know
before calling (from its bus name and a token): the filter for it is in place before the call, so no answer
is missed. Binding may ask the user, in a dialog of the desktop, and the desktop keeps the trigger the user
chose there: the combination is the preferred trigger, not a demand. Everything after the first call happens
on the portal's listener thread, so a dialog waiting for the user holds nobody up.
"""

from __future__ import annotations

import itertools
import logging
import os
import queue
import threading
from collections.abc import Callable

from jeepney import DBusAddress, HeaderFields, MatchRule, Message, MessageType, Properties, new_method_call
from jeepney.bus_messages import message_bus
from jeepney.io.threading import DBusConnection, DBusRouter, Proxy, open_dbus_connection
from jeepney.wrappers import DBusErrorResponse, unwrap_msg

from app.front.shortcut.combination import KeyCombination

log = logging.getLogger(__name__)

PORTAL = DBusAddress(
    "/org/freedesktop/portal/desktop",
    bus_name="org.freedesktop.portal.Desktop",
    interface="org.freedesktop.portal.GlobalShortcuts",
)
SHORTCUT_ID = "talk"
DESCRIPTION = "Talk to Parley"
"""What the desktop's shortcut settings call it."""
REPLY_WAIT_S = 2.0
"""A method call's reply (not the user's answer, which may take as long as they like): the portal answers at
once or is stuck."""
STOP_WAIT_S = 2.0
_tokens = itertools.count()


def _token() -> str:
    """A name for a request or a session, unique in this process (letters, digits and _ only)."""
    return f"parley_{os.getpid()}_{next(_tokens)}"


def _member(message: Message) -> object:
    return message.header.fields.get(HeaderFields.member)


def portal_version() -> int | None:
    """The GlobalShortcuts portal's interface version on the session bus; None when there is no session bus,
    no portal, or a portal without global shortcuts."""
    try:
        connection = open_dbus_connection("SESSION")
    except (OSError, KeyError, ValueError) as error:  # KeyError: no session bus address in the environment
        log.debug("no session bus: %r", error)
        return None
    try:
        with DBusRouter(connection) as router:
            reply = router.send_and_get_reply(Properties(PORTAL).get("version"), timeout=REPLY_WAIT_S)
            (_, version) = unwrap_msg(reply)[0]
            return int(version)
    except (DBusErrorResponse, TimeoutError, OSError) as error:
        log.debug("no global shortcuts portal: %s", error)
        return None
    finally:
        connection.close()


class PortalShortcut:
    """The combination bound through the portal until `close`. `on_press` is called on the listener thread at
    each activation; `on_problem` there, once, with one line, when the portal or the user refuses it."""

    def __init__(
        self, combination: KeyCombination, on_press: Callable[[], None], on_problem: Callable[[str], None]
    ) -> None:
        """Raises `OSError` when the session bus cannot be reached (the caller checked `portal_version`)."""
        self._combination = combination
        self._on_press = on_press
        self._on_problem = on_problem
        self._connection: DBusConnection = open_dbus_connection("SESSION")
        self._router = DBusRouter(self._connection)
        sender = (self._router.unique_name or "").lstrip(":").replace(".", "_")
        self._requests = f"/org/freedesktop/portal/desktop/request/{sender}/"
        self._messages: queue.Queue[Message | None] = queue.Queue()
        """The portal's answers and activations, in order; None (from `close`) ends the listener."""
        for member in ("Response", "Activated"):
            rule = MatchRule(type=MessageType.signal, member=member)
            Proxy(message_bus, self._router, timeout=REPLY_WAIT_S).AddMatch(rule)
            self._router.filter(rule, queue=self._messages)
        self._session: str | None = None
        self._thread = threading.Thread(target=self._listen, name="talk-shortcut-portal", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Close the portal session (the desktop drops the binding) and end the listener (any other thread)."""
        self._messages.put(None)
        self._thread.join(STOP_WAIT_S)
        try:
            if self._session is not None:
                session = DBusAddress(self._session, PORTAL.bus_name, "org.freedesktop.portal.Session")
                self._router.send_and_get_reply(new_method_call(session, "Close"), timeout=REPLY_WAIT_S)
        except (DBusErrorResponse, TimeoutError, OSError) as error:
            log.info("the portal session did not close: %s", error)
        finally:
            self._router.close()
            self._connection.close()

    def _listen(self) -> None:
        try:
            created = self._request("CreateSession", "a{sv}", (), {"session_handle_token": ("s", _token())})
            if created is None:
                return
            self._session = str(created["session_handle"][1])
            trigger = {"description": ("s", DESCRIPTION), "preferred_trigger": ("s", self._combination.portal_trigger)}
            shortcuts = [(SHORTCUT_ID, trigger)]
            if self._request("BindShortcuts", "oa(sa{sv})sa{sv}", (self._session, shortcuts, ""), {}) is None:
                return
            while (message := self._messages.get()) is not None:
                if _member(message) == "Activated" and message.body[:2] == (self._session, SHORTCUT_ID):
                    self._on_press()
        except (DBusErrorResponse, TimeoutError, OSError) as error:
            self._on_problem(f"the desktop's shortcuts portal failed ({error}): use the wake word or Talk")

    def _request(
        self, method: str, signature: str, body: tuple[object, ...], options: dict[str, tuple[str, str]]
    ) -> dict[str, tuple[str, object]] | None:
        """Call a portal method that answers with a `Response` (`body` and then its `options`, to which the
        request's token is added): its results, or None when refused (said) or closed meanwhile."""
        token = _token()
        call = new_method_call(PORTAL, method, signature, (*body, {**options, "handle_token": ("s", token)}))
        # Portals before version 0.9 may name the request otherwise than the caller can predict: either counts.
        (handle,) = unwrap_msg(self._router.send_and_get_reply(call, timeout=REPLY_WAIT_S))
        paths = {self._requests + token, handle}
        while (message := self._messages.get()) is not None:
            if _member(message) == "Response" and message.header.fields.get(HeaderFields.path) in paths:
                code, results = message.body
                if code == 0:
                    return dict(results)
                refused = "you declined it" if code == 1 else "the desktop refused it"
                self._on_problem(
                    f"{self._combination.text} is not bound: {refused}. Change it in Settings to ask again."
                )
                return None
        return None  # closed while waiting
