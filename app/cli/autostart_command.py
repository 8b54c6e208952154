"""`parley autostart on | off | status`: start Parley hidden in the tray at login, or no more
(`app.config.desktop_entry`; the Settings dialog has the same switch)."""

from __future__ import annotations

import argparse

from app.cli.command_runner import UsageError
from app.config.desktop_entry import (
    ENTRY_NAME,
    DesktopPaths,
    DesktopUnsupported,
    autostart_is_on,
    parley_command,
    set_autostart,
)
from app.config.settings import Settings


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    autostart = commands.add_parser("autostart", help="start Parley in the tray when you log in (on, off, status)")
    autostart.add_argument("switch", choices=["on", "off", "status"])
    autostart.set_defaults(handler=run)


def run(settings: Settings, args: argparse.Namespace) -> int:
    try:
        paths = DesktopPaths.of_user()
    except DesktopUnsupported as unsupported:
        raise UsageError(str(unsupported)) from None
    if args.switch != "status":
        set_autostart(paths, parley_command(), on=args.switch == "on")
    if autostart_is_on(paths):
        print(f"Parley starts in the tray when you log in ({paths.autostart / ENTRY_NAME}).")
    else:
        print("Parley does not start when you log in.")
    return 0
