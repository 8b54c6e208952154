"""`parley chats ...`: browse, search, create, rename, delete, file, import, export and re-embed chats."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from app.cli.command_runner import Subcommands, chat_id_argument, json_action, listing, query_argument, searched
from app.cli.out_file import add_out_arguments, check_out, write_out
from app.config.settings import Settings

# What an action needs is imported when it runs, not here: `parley --help` and `parley chats list` would
# otherwise pay for the importer, the exporter and search (ijson, tqdm, the language tables).
if TYPE_CHECKING:
    from app.asks.wire import Search
    from app.controller import ChatController
    from app.wiring import ChatServices
    from chats.models import ChatInfo, Folder, FolderFilter

Handler = Callable[["ChatController", argparse.Namespace], Awaitable[Any]]


def add_parser(commands: Subcommands) -> None:
    chats = commands.add_parser("chats", help="browse, search and manage chats")
    sub = chats.add_subparsers(dest="chats_command", metavar="ACTION", required=True)

    def action(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        return json_action(sub, name, _controller, handler, help_text)

    list_action = action("list", _list, "chats by recent activity")
    list_action.add_argument("--limit", type=int, default=50)
    list_action.add_argument("--offset", type=int, default=0)
    only = list_action.add_mutually_exclusive_group()
    only.add_argument("--folder", metavar="ID", help="only the chats of this folder")
    only.add_argument("--no-folder", action="store_true", help="only the chats in no folder")
    action("show", _show, "one whole chat").add_argument("id")
    search = sub.add_parser("search", help="find the chat a description means")
    search.add_argument("--json", action="store_true", help="print JSON instead of text")
    search.add_argument("query", type=query_argument)
    search.set_defaults(handler=searched(_search_of, _show_found))
    action("new", _new, "start an empty chat").add_argument("--title")
    rename = action("rename", _rename, "give a chat a title")
    rename.add_argument("id")
    rename.add_argument("title")
    action("delete", _delete, "delete a chat").add_argument("id")
    move = action("move", _move, "put a chat in a folder, or with --no-folder in none")
    move.add_argument("id")
    where = move.add_mutually_exclusive_group(required=True)
    where.add_argument("folder", nargs="?", metavar="FOLDER_ID")
    where.add_argument("--no-folder", action="store_true", help="take the chat out of its folder")
    memory = action("memory", _memory, "switch long-term memory on or off in a chat")
    memory.add_argument("id")
    memory.add_argument("switch", choices=["on", "off"])
    action("folders", _folders, "folders by name, with how many chats each holds")
    action("folder-new", _folder_new, "make an empty folder").add_argument("name")
    folder_rename = action("folder-rename", _folder_rename, "give a folder another name")
    folder_rename.add_argument("id")
    folder_rename.add_argument("name")
    action("folder-delete", _folder_delete, "delete a folder; its chats stay, in no folder").add_argument("id")
    importing = sub.add_parser("import", help="import an export as it was (again: no change), or a list of turns")
    importing.add_argument("file")
    importing.add_argument("--as-new", action="store_true", help="import an export's chats as copies with new ids")
    importing.add_argument("--json", action="store_true", help="print JSON instead of text")
    importing.set_defaults(handler=_import_command)
    export = action("export", _export, "write every chat as JSON or Markdown")
    export.add_argument("--format", choices=["json", "markdown"], default="json")
    add_out_arguments(export)
    action("reembed", _reembed, "rebuild every vector with the current embedding model")
    repair = sub.add_parser("repair", help="rebuild a damaged chat database from what can still be read")
    repair.add_argument("--json", action="store_true", help="print JSON instead of text")
    repair.set_defaults(handler=_repair_command)


def _controller(services: ChatServices) -> ChatController:
    from app.controller import ChatController

    return ChatController(services)


def _import_command(settings: Settings, args: argparse.Namespace) -> int:
    from app.cli.chat_file_commands import import_command

    return import_command(settings, args)


def _repair_command(settings: Settings, args: argparse.Namespace) -> int:
    from app.cli.chat_file_commands import repair_command

    return repair_command(settings, args)


async def welcome(settings: Settings) -> int:
    """`parley` alone: where things are and what to try."""
    from app.wiring import open_chat_services, store_location

    async with open_chat_services(settings) as services:
        count = await services.store.count()
    print(f"Parley keeps {count} chat{'s' * (count != 1)} in {store_location(settings)}.")
    print("Try: parley chats list | parley chats search 'the kitchen renovation' | parley --help")
    return 0


def _info_json(info: ChatInfo) -> dict[str, Any]:
    return {
        "id": str(info.id),
        "title": info.title,
        "project_id": info.project_id,
        "summary_text": info.summary_text,
        "turns": info.turn_count,
        "last_activity_at": info.last_activity_at.isoformat(),
        "created_at": info.created_at.isoformat(),
    }


def _folder_json(folder: Folder) -> dict[str, Any]:
    return {"id": folder.id, "name": folder.name, "chats": folder.chats, "created_at": folder.created_at.isoformat()}


def _folder_filter(args: argparse.Namespace) -> FolderFilter:
    from chats.models import NO_FOLDER

    return NO_FOLDER if args.no_folder else args.folder


async def _list(controller: ChatController, args: argparse.Namespace) -> Any:
    chats = await controller.list_chats(limit=args.limit, offset=args.offset, folder=_folder_filter(args))
    return listing(chats, args, _info_json, _info_line, "No chats yet.")


def _info_line(info: ChatInfo) -> str:
    return (
        f"{info.id}  {info.last_activity_at:%Y-%m-%d %H:%M}  {info.turn_count:4d} turns  {info.title or '(untitled)'}"
    )


async def _show(controller: ChatController, args: argparse.Namespace) -> Any:
    from chats.transfer import chat_to_json, export_markdown

    chat = await controller.show(chat_id_argument(args.id))
    if args.json:
        return chat_to_json(chat)
    print(export_markdown([chat]), end="")
    return None


def _search_of(args: argparse.Namespace) -> Search:
    from app.asks.wire import Search

    return Search("chats", args.query)


def _show_found(found: dict[str, Any], args: argparse.Namespace) -> Any:
    """What `app.asks.searches.chats_found` gives, as JSON (its scores rounded) or as lines."""
    if args.json:
        return {"outcome": found["outcome"], "chats": [_rounded(chat) for chat in found["chats"]]}
    headline = {
        "switch": "One chat matches:",
        "ask": "Several chats could be meant:",
        "none": "No chat matches.",
    }[found["outcome"]]
    print(headline)
    for chat in found["chats"]:
        print(f"  {chat['id']}  {chat['title'] or '(untitled)'}  (score {chat['score']:.2f})")
    return None


def _rounded(chat: dict[str, Any]) -> dict[str, Any]:
    similarity = chat["similarity"]
    return {
        **chat,
        "score": round(chat["score"], 4),
        "similarity": None if similarity is None else round(similarity, 4),
        "lexical": round(chat["lexical"], 4),
    }


async def _new(controller: ChatController, args: argparse.Namespace) -> Any:
    chat = await controller.new_chat(args.title)
    if args.json:
        return {"id": str(chat.id), "title": chat.title}
    print(chat.id)
    return None


async def _rename(controller: ChatController, args: argparse.Namespace) -> Any:
    chat_id = chat_id_argument(args.id)
    title = await controller.rename(chat_id, args.title)
    if not args.json:
        print(f"Renamed {chat_id}.")
    return {"id": str(chat_id), "title": title}


async def _delete(controller: ChatController, args: argparse.Namespace) -> Any:
    chat_id = chat_id_argument(args.id)
    await controller.delete(chat_id)
    if not args.json:
        print(f"Deleted {chat_id}.")
    return {"id": str(chat_id), "deleted": True}


async def _move(controller: ChatController, args: argparse.Namespace) -> Any:
    chat_id, folder_id = chat_id_argument(args.id), args.folder
    await controller.move_chat(chat_id, folder_id)
    if not args.json:
        print(f"Moved {chat_id} out of its folder." if folder_id is None else f"Moved {chat_id} to folder {folder_id}.")
    return {"id": str(chat_id), "project_id": folder_id}


async def _memory(controller: ChatController, args: argparse.Namespace) -> Any:
    chat_id, enabled = chat_id_argument(args.id), args.switch == "on"
    await controller.set_memory_enabled(chat_id, enabled)
    if not args.json:
        print(f"Memory is {args.switch} in {chat_id}.")
    return {"id": str(chat_id), "memory_enabled": enabled}


async def _folders(controller: ChatController, args: argparse.Namespace) -> Any:
    return listing(await controller.folders(), args, _folder_json, _folder_line, "No folders yet.")


def _folder_line(folder: Folder) -> str:
    return f"{folder.id}  {folder.chats:4d} chat{'s' * (folder.chats != 1)}  {folder.name}"


async def _folder_new(controller: ChatController, args: argparse.Namespace) -> Any:
    folder = await controller.create_folder(args.name)
    if args.json:
        return _folder_json(folder)
    print(folder.id)
    return None


async def _folder_rename(controller: ChatController, args: argparse.Namespace) -> Any:
    folder = await controller.rename_folder(args.id, args.name)
    if args.json:
        return _folder_json(folder)
    print(f"Renamed folder {folder.id} to {folder.name}.")
    return None


async def _folder_delete(controller: ChatController, args: argparse.Namespace) -> Any:
    await controller.delete_folder(args.id)
    if not args.json:
        print(f"Deleted folder {args.id}; its chats are now in no folder.")
    return {"id": args.id, "deleted": True}


async def _export(controller: ChatController, args: argparse.Namespace) -> Any:
    from chats.transfer import export_json, export_markdown

    check_out(args.out, args.force)
    if args.format == "json":
        exported, folders = await controller.export_chats()
        count, text = len(exported), json.dumps(export_json(exported, folders), indent=2, ensure_ascii=False) + "\n"
    else:
        chats = await controller.all_chats()
        count, text = len(chats), export_markdown(chats)
    if args.out:
        await asyncio.to_thread(write_out, args.out, text, args.force)
        return {"chats": count, "out": args.out}
    sys.stdout.write(text)
    return None


async def _reembed(controller: ChatController, args: argparse.Namespace) -> Any:
    report = await controller.reembed()
    if args.json:
        return {
            "model": report.model,
            "vectors": report.vectors,
            "topics_added": report.topics_added,
            "memories": report.memories,
        }
    print(
        f"{report.vectors} vector(s) rebuilt, {report.topics_added} topic(s) added and {report.memories} memory "
        f"vector(s) rebuilt with {report.model}"
    )
    return None
