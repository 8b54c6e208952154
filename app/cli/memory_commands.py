"""`parley memories ...`: list, search, add, edit, forget, export and import what Parley remembers about the
user."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

from app.cli.command_runner import UsageError, command, query_argument, searched
from app.cli.out_file import add_out_arguments, check_out, write_out
from app.config.settings import Settings
from chats.errors import InvalidMemory
from chats.memory.category_names import CATEGORIES

# The memory service and its language tables (simplemma) are imported when an action runs, not when
# `parley` reads its options.
if TYPE_CHECKING:
    from app.account.sync import StampClock
    from app.asks.wire import Search
    from app.memory_controller import MemoryController
    from app.wiring import ChatServices
    from chats.memory.export import MemoriesFile
    from chats.memory.models import Memory

Handler = Callable[["MemoryController", argparse.Namespace], Awaitable[Any]]


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    memories = commands.add_parser("memories", help="what Parley remembers about you")
    sub = memories.add_subparsers(dest="memories_command", metavar="ACTION", required=True)

    def action(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        parser = sub.add_parser(name, help=help_text)
        parser.add_argument("--json", action="store_true", help="print JSON instead of text")
        parser.set_defaults(handler=command(_controller, handler))
        return parser

    listing = action("list", _list, "memories by category, newest first")
    listing.add_argument("--category", choices=CATEGORIES)
    listing.add_argument("--all", action="store_true", help="include facts a newer one replaced")
    listing.add_argument("--limit", type=int, default=200)
    listing.add_argument("--offset", type=int, default=0)
    search = sub.add_parser("search", help="the memories that best match a query")
    search.add_argument("--json", action="store_true", help="print JSON instead of text")
    search.add_argument("query", type=query_argument)
    search.add_argument("--limit", type=int, default=5)
    search.add_argument("--category", choices=CATEGORIES)
    search.set_defaults(handler=searched(_search_of, _show_found))
    add = action("add", _add, "remember a fact (say it as you would: 'I prefer tea')")
    add.add_argument("text")
    add.add_argument(
        "--category", choices=CATEGORIES, help="default: guessed from the words (a diet is a preference), else context"
    )
    edit = action("edit", _edit, "change a memory's text or category")
    edit.add_argument("id")
    edit.add_argument("--text")
    edit.add_argument("--category", choices=CATEGORIES)
    action("forget", _forget, "forget a memory (and the older facts it replaced)").add_argument("id")
    export = action("export", _export, "write every memory as JSON or Markdown")
    export.add_argument("--format", choices=["json", "markdown"], default="json")
    add_out_arguments(export)
    importing = sub.add_parser("import", help="import a JSON export of memories (again: no change)")
    importing.add_argument("file")
    importing.add_argument(
        "--as-new", action="store_true", help="add every memory as a copy with a new id (again: no second copy)"
    )
    importing.add_argument("--json", action="store_true", help="print JSON instead of text")
    importing.set_defaults(handler=_import_command)


def _controller(services: ChatServices, clock: StampClock | None = None) -> MemoryController:
    from app.memory_controller import MemoryController

    return MemoryController(services, clock)


def _memory_id(text: str) -> UUID:
    try:
        return UUID(text)
    except ValueError:
        raise UsageError(f"not a memory id: {text!r}") from None


def _line(memory: Memory) -> str:
    return _line_of(memory.to_json())


def _line_of(memory: dict[str, Any]) -> str:
    """One memory's line, from its JSON (`Memory.to_json`)."""
    replaced = "  (replaced)" if memory["supersededBy"] is not None else ""
    return f"{memory['id']}  {memory['category']:12} {memory['importance']:2d}  {memory['content']}{replaced}"


async def _list(memory: MemoryController, args: argparse.Namespace) -> Any:
    found = await memory.browse(category=args.category, include_replaced=args.all, limit=args.limit, offset=args.offset)
    if args.json:
        return [m.to_json() for m in found]
    for m in found:
        print(_line(m))
    if not found:
        print("No memories yet.")
    return None


def _search_of(args: argparse.Namespace) -> Search:
    from app.asks.wire import Search

    return Search("memories", args.query, args.limit, args.category)


def _show_found(found: dict[str, Any], args: argparse.Namespace) -> Any:
    """What `app.asks.searches.memories_found` gives: a query's matches, or for a question about what is saved
    as a whole ("what do you know about me") what is saved, most important first, as the `search_memories`
    tool answers it; as JSON (the scores rounded) or as lines."""
    hits = found["hits"]
    if args.json:
        return [{**hit, "score": round(hit["score"], 4), "similarity": round(hit["similarity"], 4)} for hit in hits]
    for hit in hits:
        print(_line_of(hit) if found["broad"] else f"{_line_of(hit)}  (score {hit['score']:.2f})")
    if not hits:
        print("No memories yet." if found["broad"] else _no_match(found["saved"], args.query))
    return None


def _no_match(saved: int, query: str) -> str:
    """Says what is saved besides, so that no match never reads as nothing saved."""
    if not saved:
        return "No memories yet."
    others = "1 other is" if saved == 1 else f"{saved} others are"
    return f"No memory matches “{' '.join(query.split())[:80]}”; {others} saved (parley memories list)."


async def _add(memory: MemoryController, args: argparse.Namespace) -> Any:
    # Kept in the third person like a spoken fact ("I prefer tea": "User prefers tea").
    from chats.memory.categories import guess_category
    from chats.memory.service import Duplicate

    outcome = await memory.add(args.text, category=args.category or guess_category(args.text))
    if isinstance(outcome, Duplicate):
        raise UsageError(f"already remembered: {outcome.existing.content} ({outcome.existing.id})")
    if args.json:
        return {**outcome.memory.to_json(), "replaced": [str(m.id) for m in outcome.superseded]}
    print(outcome.memory.id)
    for older in outcome.superseded:
        print(f"It replaces: {older.content}")
    return None


async def _edit(memory: MemoryController, args: argparse.Namespace) -> Any:
    if args.text is None and args.category is None:
        raise UsageError("say what to change: --text and/or --category")
    changed = await memory.edit(_memory_id(args.id), content=args.text, category=args.category)
    if args.json:
        return changed.to_json()
    print(_line(changed))
    return None


async def _forget(memory: MemoryController, args: argparse.Namespace) -> Any:
    memory_id = _memory_id(args.id)
    gone = await memory.forget(memory_id)
    if not args.json:
        print(f"Forgot {memory_id}" + (f" and {gone - 1} older version(s) of it." if gone > 1 else "."))
    return {"id": str(memory_id), "forgotten": gone}


async def _export(memory: MemoryController, args: argparse.Namespace) -> Any:
    check_out(args.out, args.force)
    text, memories = await memory.export(args.format)
    if args.out is None:
        print(text, end="")
    else:
        await asyncio.to_thread(write_out, args.out, text, args.force)
        print(f"Wrote {len(memories)} memories to {args.out}.")
    return None


def _import_command(settings: Settings, args: argparse.Namespace) -> int:
    """With the stores stamping what they write by a `StampClock`, so that memories keep their times."""
    from app.account.sync import StampClock

    clock = StampClock()

    def use(services: ChatServices) -> MemoryController:
        return _controller(services, clock)

    return command(use, _import, clock)(settings, args)


async def _import(memory: MemoryController, args: argparse.Namespace) -> Any:
    exported = await asyncio.to_thread(_read, Path(args.file), memory.user_id)
    report = await memory.import_memories(exported, as_new=args.as_new)
    if not args.json:
        print(
            f"{report.added} of {report.memories} memories added ({report.memories - report.added} already here);"
            f" working memory restored in {report.notes_restored} chat(s)"
        )
        if report.notes_skipped:
            print(f"{report.notes_skipped} chat(s) with working memory are not here: import the chats first.")
    return {
        "memories": report.memories,
        "added": report.added,
        "notes_restored": report.notes_restored,
        "notes_skipped": report.notes_skipped,
    }


def _read(path: Path, user_id: str) -> MemoriesFile:
    from chats.memory.export import read_export

    try:
        data = json.loads(path.read_bytes())
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise UsageError(f"{path} is not valid JSON ({error})") from None
    except RecursionError:
        raise UsageError(f"{path} nests too deep to be a memories export") from None
    try:
        return read_export(data, user_id)
    except InvalidMemory as error:
        raise UsageError(f"{path}: {error}") from None
