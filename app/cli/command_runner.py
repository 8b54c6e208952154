"""Running one `parley` subcommand: open the services, call the handler, print its JSON when asked."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, TypeVar

from app.config.settings import Settings
from app.wiring import ChatServices, open_chat_services
from chats.models import utc_now

S = TypeVar("S")

Command = Callable[[Settings, argparse.Namespace], int]


def command(
    use: Callable[[ChatServices], S],
    handler: Callable[[S, argparse.Namespace], Awaitable[Any]],
    clock: Callable[[], datetime] = utc_now,
) -> Command:
    """The command that calls `handler` with `use(services)`; a result it returns is printed as JSON when
    `--json` was given (handlers print their own text otherwise). `clock` stamps what the stores write."""

    def run(settings: Settings, args: argparse.Namespace) -> int:
        async def with_services() -> int:
            async with open_chat_services(settings, clock=clock) as services:
                result = await handler(use(services), args)
                if args.json and result is not None:
                    print(json.dumps(result, indent=2, ensure_ascii=False))
            return 0

        return asyncio.run(with_services())

    return run
