"""`parley chats import` and `parley chats repair`: the chat commands that read or rewrite whole files."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from tqdm import tqdm

from app.account.sync import StampClock
from app.chat_import import MAINTAINED_INLINE, ChatImporter, ImportReport
from app.cli.command_runner import UsageError, command
from app.cli.terminal import raw
from app.config.settings import Settings
from app.controller import ChatController
from app.listening_lock import listening_lock
from app.wiring import ChatServices, store_path
from chats.errors import InvalidTurn
from chats.import_events import InvalidJSON
from chats.import_reader import ImportedFolder, read_import
from chats.models import utc_now
from chats.sqlite.repair import RepairReport, needs_repair, repair


def import_command(settings: Settings, args: argparse.Namespace) -> int:
    """With the stores stamping what they write by a `StampClock`, so that exported chats keep their times."""
    clock = StampClock()

    def use(services: ChatServices) -> ChatImporter:
        return ChatController(services).importer(clock, as_new=args.as_new)

    return command(use, _import, clock)(settings, args)


async def _import(importer: ChatImporter, args: argparse.Namespace) -> Any:
    """Read the file twice, as a stream: once to refuse it whole if any of it is wrong, once to write it,
    its folders first, then one chat at a time, with a progress bar on a terminal."""
    path = Path(args.file)
    chats, turns, repaired, folders = await asyncio.to_thread(_check_import, path)
    folders_made = await importer.import_folders(folders)
    maintain = chats <= MAINTAINED_INLINE
    reports: list[ImportReport] = []
    with (
        _open_import(path) as file,
        tqdm(total=turns, unit="turn", desc="importing", disable=not sys.stderr.isatty(), file=raw(sys.stderr)) as bar,
    ):
        chat_stream = read_import(file)
        while imported := await asyncio.to_thread(next, chat_stream, None):
            number = len(reports) + 1

            def saving(number: int = number) -> None:
                bar.set_description(f"saving chat {number}/{chats}")

            reports.append(await importer.import_chat(imported, saving, maintain=maintain))
            bar.set_description("importing")
            bar.update(len(imported.turns))
    if repaired:
        print(
            f"parley: {path}: {repaired} text(s) held lone surrogates, which are not Unicode text;"
            " each was imported with U+FFFD in its place",
            file=sys.stderr,
        )
    unmaintained = [r.unmaintained for r in reports if r.unmaintained is not None]
    if unmaintained:
        print(
            f"parley: {len(unmaintained)} chat(s) imported without their summary or title ({unmaintained[0]}):"
            " they are made when each chat is next used",
            file=sys.stderr,
        )
    if not maintain:
        print(
            f"parley: {chats} chats imported; their titles, topics and summaries are made in the background"
            " while Parley listens (the window or `parley listen`)",
            file=sys.stderr,
        )
    if args.json:
        return [
            {"id": str(r.chat_id), "turns": r.turns, "added": r.added, "compactions": r.compactions, "new": r.new}
            for r in reports
        ]
    for report in reports:
        print(f"{report.chat_id}  {_import_line(report)}")
    if folders_made:
        print(f"{folders_made} folder(s) made.")
    new = sum(report.new for report in reports)
    print(f"{len(reports)} chat(s) read: {new} new, {len(reports) - new} already here; {turns} turn(s) in the file.")
    return None


def _import_line(report: ImportReport) -> str:
    if report.new:
        return f"{report.turns} turns imported, {report.compactions} compaction(s)"
    if report.added:
        return f"already here: {report.added} missing turn(s) added"
    return "already here: unchanged"


def _check_import(path: Path) -> tuple[int, int, int, list[ImportedFolder]]:
    """Chats, turns, repaired texts and folders of the import file; `UsageError` saying what is wrong with it."""
    chats = turns = repaired = 0
    folders: list[ImportedFolder] = []
    with _open_import(path) as file:
        for imported in read_import(file, folders):
            chats += 1
            turns += len(imported.turns)
            repaired += imported.repaired
    return chats, turns, repaired, folders


@contextmanager
def _open_import(path: Path) -> Iterator[IO[bytes]]:
    try:
        file = path.open("rb")
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    try:
        with file:
            yield file
    except InvalidJSON as error:
        raise UsageError(f"{path} {error}") from None
    except InvalidTurn as error:
        raise UsageError(f"{path}: {error}") from None


def repair_command(settings: Settings, args: argparse.Namespace) -> int:
    """`parley chats repair`: outside the services, which refuse a damaged file. The listening lock keeps
    a voice loop from writing into the file while it is replaced."""
    if settings.storage != "sqlite":
        raise UsageError("`parley chats repair` rebuilds the SQLite file; Supabase keeps its own backups")
    path = store_path(settings)
    with listening_lock(settings.data_dir):
        problem = needs_repair(path)
        report = None if problem is None else repair(path, utc_now())
    if args.json:
        print(json.dumps(_repair_json(path, problem, report), indent=2))
    elif report is None:
        print(f"The chat database {path} is healthy: nothing to repair.")
    else:
        saved = ", ".join(f"{count} {table.replace('_', ' ')}" for table, count in report.saved.items())
        lost = sum(report.lost.values())
        print(f"Rebuilt {path} with {saved}; {lost} unreadable read(s) skipped.")
        print(f"The damaged file is kept as {report.damaged_copy}.")
    return 0


def _repair_json(path: Path, problem: str | None, report: RepairReport | None) -> dict[str, Any]:
    return {
        "database": str(path),
        "damage": problem,
        "damaged_copy": None if report is None else str(report.damaged_copy),
        "saved": {} if report is None else report.saved,
        "lost": {} if report is None else report.lost,
    }
