"""`parley timers [list|cancel ID] [--json]`: the timers and reminders still to ring, and cancelling one.
They are kept in the data folder (`app.timers.store`), so this works while the window or `parley listen`
runs: a timer cancelled here does not ring there."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from app.cli.command_runner import Subcommands
from app.config.settings import Settings

# The timers' parts (the file lock, time zones, the kit) are imported when the command runs: `parley --help`
# builds this command's parser too.

NO_TIMERS = "No timers or reminders."


def add_parser(commands: Subcommands) -> None:
    parser = commands.add_parser("timers", help="the timers and reminders still to ring; cancel one")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    listed = actions.add_parser("list", help="the timers and reminders still to ring, soonest first (default)")
    listed.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON instead of text")
    cancel = actions.add_parser("cancel", help="cancel a timer or a reminder by its id (or 'all')")
    cancel.add_argument("id")
    cancel.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON instead of text")
    parser.set_defaults(handler=_timers)


def _timers(settings: Settings, args: argparse.Namespace) -> int:
    from app.timers.store import TimerFile, TimerFileError
    from app.timers.toolkit import TimerKit
    from app.timers.wiring import local_zone, now

    kit = TimerKit(TimerFile(settings.data_dir), clock=now, zone=local_zone(), language="en")
    try:
        if args.action == "cancel":
            return _cancel(asyncio.run(kit.cancel(args.id)), args)
        timers = [kit.shown(timer) for timer in asyncio.run(kit.running())]
    except TimerFileError as error:
        print(f"parley: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(timers, indent=2, ensure_ascii=False))
    else:
        for timer in timers:
            print(_line(timer))
        if not timers:
            print(NO_TIMERS)
    return 0


def _cancel(result: dict[str, Any], args: argparse.Namespace) -> int:
    if not result["success"]:
        print(f"parley: no timer or reminder with the id {args.id!r}: `parley timers` lists them", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result["cancelled"], indent=2, ensure_ascii=False))
    else:
        for timer in result["cancelled"]:
            print(f"cancelled {_line(timer)}")
    return 0


def _line(timer: dict[str, Any]) -> str:
    from app.timers import sayings  # loaded with the kit already

    left = sayings.duration(int(timer["seconds_left"]), "en")
    what = f"{timer['kind']} {timer['label']!r}" if timer["label"] else timer["kind"]
    return f"{timer['id']}  {what}  at {timer['due_at']}  ({left} left)"
