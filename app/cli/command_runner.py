"""Running one `parley` subcommand: open the services, call the handler, print its JSON when asked (or, for a
search, ask the Parley running on these chats first); and `UsageError`, what every command raises for input it
cannot use."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar
from uuid import UUID

from app.config.settings import Settings

if TYPE_CHECKING:  # the stores and models are imported when a command runs, not when `parley` reads its options
    from app.asks.wire import Search
    from app.wiring import ChatServices

S = TypeVar("S")
Item = TypeVar("Item")

Command = Callable[[Settings, argparse.Namespace], int]
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""What `add_subparsers` returns; a string because argparse's class cannot be subscripted at run time."""


class UsageError(Exception):
    """Input the command cannot use; the message is one line for the user."""


def chat_id_argument(text: str) -> UUID:
    """A chat id given on the command line; `UsageError` when it is not one."""
    try:
        return UUID(text)
    except ValueError:
        raise UsageError(f"not a chat id: {text!r}") from None


def query_argument(text: str) -> str:
    """A search request given on the command line, cut to what a search reads (`chats.models.QUERY_MAX`
    characters): a cut is said in one line on stderr, so that a pasted document's results are not taken
    for an answer to all of it."""
    from chats.models import QUERY_MAX, search_query

    if len(text) > QUERY_MAX:
        print(f"parley: the query was cut to its first {QUERY_MAX:,} characters", file=sys.stderr)
    return search_query(text)


def command(
    use: Callable[[ChatServices], S],
    handler: Callable[[S, argparse.Namespace], Awaitable[Any]],
    clock: Callable[[], datetime] | None = None,
) -> Command:
    """The command that calls `handler` with `use(services)`; a result it returns is printed as JSON when
    `--json` was given (handlers print their own text otherwise). `clock` stamps what the stores write
    (None: the time of day)."""

    def run(settings: Settings, args: argparse.Namespace) -> int:
        from app.wiring import open_chat_services
        from chats.models import utc_now

        async def with_services() -> int:
            async with open_chat_services(settings, clock=clock or utc_now) as services:
                result = await handler(use(services), args)
                if args.json and result is not None:
                    print(json.dumps(result, indent=2, ensure_ascii=False))
            return 0

        return asyncio.run(with_services())

    return run


def searched(
    search_of: Callable[[argparse.Namespace], Search], show: Callable[[dict[str, Any], argparse.Namespace], Any]
) -> Command:
    """The command that shows (`show`, which returns what `--json` prints, or prints its text itself) what
    `search_of(args)` finds (`app.asks.searches`): found by the Parley running on these chats, whose models are
    loaded already, else here, as quickly as a refused connection says none runs. The same either way."""

    def run(settings: Settings, args: argparse.Namespace) -> int:
        from app.asks.client import search_running

        search = search_of(args)

        async def searching() -> dict[str, Any]:
            found = await search_running(settings.data_dir, search)
            if found is not None:
                return found
            from app.asks.searches import found as found_here
            from app.wiring import open_chat_services

            async with open_chat_services(settings) as services:
                return await found_here(services, search)

        result = show(asyncio.run(searching()), args)
        if args.json and result is not None:
            print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0

    return run


def json_action(
    sub: Subcommands,
    name: str,
    use: Callable[[ChatServices], S],
    handler: Callable[[S, argparse.Namespace], Awaitable[Any]],
    help_text: str,
) -> argparse.ArgumentParser:
    """The subcommand `name`, run by `command(use, handler)`, with the `--json` switch it prints by."""
    parser = sub.add_parser(name, help=help_text)
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(handler=command(use, handler))
    return parser


def listing(
    items: Sequence[Item],
    args: argparse.Namespace,
    to_json: Callable[[Item], Any],
    line: Callable[[Item], str],
    empty: str,
) -> list[Any] | None:
    """What a listing handler answers: with `--json` the items as JSON, for `command` to print; else None,
    having printed a line per item, or `empty` when there are none."""
    if args.json:
        return [to_json(item) for item in items]
    for item in items:
        print(line(item))
    if not items:
        print(empty)
    return None
