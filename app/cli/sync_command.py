"""`parley sync --to supabase|sqlite`: copy the whole history from the other store into that one."""

from __future__ import annotations

import argparse
import asyncio
import json
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING

from app.config.settings import Settings, StorageChoice

if TYPE_CHECKING:  # imported when the command runs, not when `parley` reads its options
    from app.account.sync import SyncReport


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "sync",
        help="copy chats and memories into Supabase from this computer's SQLite file (--to supabase), or back",
    )
    parser.add_argument("--to", choices=["supabase", "sqlite"], required=True, help="the store to copy into")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(handler=_sync)


def _sync(settings: Settings, args: argparse.Namespace) -> int:
    report = asyncio.run(copy_history(settings, args.to))
    print(json.dumps(report.to_json(), indent=2) if args.json else report.line(args.to))
    return 0


async def copy_history(settings: Settings, to: StorageChoice) -> SyncReport:
    """Copy into the `to` store what it lacks of the other one, with the turns this computer's journal
    holds for the store Parley uses (see `SyncReport.journal_delivered`)."""
    from app.account.sync import StampClock, Stores, sync
    from app.wiring import open_stores
    from chats.journal import JOURNAL_FILE, TurnJournal

    origin: StorageChoice = "sqlite" if to == "supabase" else "supabase"
    clock = StampClock()
    journal = TurnJournal(settings.data_dir / JOURNAL_FILE)
    async with AsyncExitStack() as closing:
        source = Stores(*await open_stores(settings, closing, storage=origin))
        target = Stores(*await open_stores(settings, closing, storage=to, clock=clock))
        before = await journal.deliver(source.chats) if settings.storage == origin else None
        report = await sync(source, target, clock)
        delivery = before or await journal.deliver(target.chats)
    report.journal_delivered, report.journal_waiting = delivery.delivered, delivery.pending
    return report
