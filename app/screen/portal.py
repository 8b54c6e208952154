"""The desktop's screenshot portal (`org.freedesktop.portal.Screenshot`, xdg-desktop-portal) over the session
D-Bus, through jeepney: how a Wayland desktop lets an application take the screen, after asking the user.

The portal's protocol (its documentation, "org.freedesktop.portal.Request"): `Screenshot(parent_window,
options)` returns at once the path of a request object, and the answer comes later as that object's
`Response(code, results)` signal: code 0 with `results["uri"]` (a file:// URI of the PNG it wrote), 1 when the
user said no, 2 when it ended otherwise. The request's path is predictable from the caller's unique bus name
and the `handle_token` option (`/org/freedesktop/portal/desktop/request/SENDER/TOKEN`), so the signal is
subscribed to before the call: an answer that comes at once is not missed.
"""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from urllib.parse import unquote, urlparse

from jeepney import DBusAddress, HeaderFields, MatchRule, MessageType, new_method_call
from jeepney.bus_messages import message_bus
from jeepney.io.asyncio import Proxy, open_dbus_router

PORTAL = DBusAddress(
    "/org/freedesktop/portal/desktop",
    bus_name="org.freedesktop.portal.Desktop",
    interface="org.freedesktop.portal.Screenshot",
)
ANSWER_WAIT_S = 60.0
"""How long the portal may take to answer: it may show the user a dialog first."""


class PortalMissing(Exception):
    """No session bus, no screenshot portal on it, or no answer in time."""


class PortalRefused(Exception):
    """The portal answered no: the user refused (code 1), or it ended otherwise (code 2)."""

    def __init__(self, code: int) -> None:
        super().__init__(f"the screenshot portal answered {code}")
        self.code = code


async def portal_screenshot(bus: str = "SESSION", *, wait_s: float = ANSWER_WAIT_S) -> Path:
    """Ask the portal for a screenshot (not interactive: the desktop may still ask the user) and return the
    file it wrote. `bus`: "SESSION" (from DBUS_SESSION_BUS_ADDRESS) or a bus address."""
    try:
        async with open_dbus_router(bus) as router:
            token = f"parley_{secrets.token_hex(8)}"
            sender = (router.unique_name or "").lstrip(":").replace(".", "_")
            request = f"/org/freedesktop/portal/desktop/request/{sender}/{token}"
            rule = MatchRule(type="signal", interface="org.freedesktop.portal.Request", member="Response", path=request)
            await Proxy(message_bus, router).AddMatch(rule)
            with router.filter(rule) as answers:
                options = {"handle_token": ("s", token), "interactive": ("b", False)}
                call = new_method_call(PORTAL, "Screenshot", "sa{sv}", ("", options))
                reply = await router.send_and_get_reply(call)
                if reply.header.message_type == MessageType.error:
                    name = reply.header.fields.get(HeaderFields.error_name, "")
                    raise PortalMissing(f"the screenshot portal cannot be called ({name})")
                async with asyncio.timeout(wait_s):
                    code, results = (await answers.get()).body
    except (OSError, KeyError, ValueError, TimeoutError) as error:  # no bus address, no bus, no answer
        raise PortalMissing(f"the screenshot portal cannot be reached ({type(error).__name__})") from error
    if code != 0:
        raise PortalRefused(code)
    _, uri = results.get("uri", ("s", ""))
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        raise PortalMissing("the screenshot portal gave no file")
    return Path(unquote(parsed.path))
