"""A fake of the desktop's screenshot portal (`org.freedesktop.portal.Screenshot`) on a private D-Bus session
bus (a `dbus-daemon` of the test's own), for the real jeepney client in `app.screen.portal`.

It plays the portal's protocol as xdg-desktop-portal documents it: `Screenshot(parent_window, options)` is
answered at once with the request object's path (`/org/freedesktop/portal/desktop/request/SENDER/TOKEN`, from
the caller's unique name and its `handle_token`), then that object emits `Response(code, results)`: 0 with
`results["uri"]` (a file:// URI of a PNG it wrote), 1 when the user refused, 2 when it ended otherwise.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jeepney import DBusAddress, HeaderFields, MatchRule, MessageType, new_method_return, new_signal
from jeepney.bus_messages import message_bus
from jeepney.io.asyncio import Proxy, open_dbus_router

START_S = 30.0


@asynccontextmanager
async def private_bus() -> AsyncIterator[str]:
    """A session bus of the test's own (`dbus-daemon --session`); yields its address."""
    executable = shutil.which("dbus-daemon")
    assert executable is not None, "dbus-daemon is not installed (apt package `dbus`)"
    daemon = await asyncio.create_subprocess_exec(
        executable, "--session", "--nofork", "--nopidfile", "--print-address=1",
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert daemon.stdout is not None
        async with asyncio.timeout(START_S):
            address = (await daemon.stdout.readline()).decode().strip()
        assert address, "dbus-daemon did not start"
        yield address
    finally:
        daemon.terminate()
        await daemon.wait()


@dataclass
class FakeScreenshotPortal:
    """Answers every `Screenshot` call with `code`, and with `picture` (a file it copies, as the portal writes
    one) when the code is 0."""

    code: int
    picture: Path | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)
    """The options of each call, as `{name: value}`."""
    written: list[Path] = field(default_factory=list)
    """The files it gave out."""

    @asynccontextmanager
    async def serving(self, address: str) -> AsyncIterator[FakeScreenshotPortal]:
        async with open_dbus_router(address) as router:
            await Proxy(message_bus, router).RequestName("org.freedesktop.portal.Desktop", 0)
            rule = MatchRule(type="method_call", interface="org.freedesktop.portal.Screenshot", member="Screenshot")
            with router.filter(rule, bufsize=16) as calls:
                task = asyncio.create_task(self._serve(router, calls), name="fake-screenshot-portal")
                try:
                    yield self
                finally:
                    task.cancel()
                    await asyncio.gather(task, return_exceptions=True)

    async def _serve(self, router: Any, calls: asyncio.Queue[Any]) -> None:
        while True:
            call = await calls.get()
            if call.header.message_type != MessageType.method_call:
                continue
            _, options = call.body
            self.calls.append({name: value for name, (_, value) in options.items()})
            sender = str(call.header.fields[HeaderFields.sender]).lstrip(":").replace(".", "_")
            request = f"/org/freedesktop/portal/desktop/request/{sender}/{self.calls[-1]['handle_token']}"
            await router.send(new_method_return(call, "o", (request,)))
            results: dict[str, tuple[str, Any]] = {}
            if self.code == 0 and self.picture is not None:
                written = self.picture.with_name(f"Screenshot-{len(self.calls)}.png")
                shutil.copyfile(self.picture, written)
                self.written.append(written)
                results["uri"] = ("s", written.as_uri())
            answer = DBusAddress(request, interface="org.freedesktop.portal.Request")
            await router.send(new_signal(answer, "Response", "ua{sv}", (self.code, results)))
