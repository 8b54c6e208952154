"""The commands' end of the socket: `parley ask`'s question, and the searches of `parley chats search` and
`parley memories search`, to the Parley running on these chats, if one does."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

from app.asks.wire import MAX_REQUEST_BYTES, Search, line, search_request, socket_path
from voice.errors import VoiceError

if TYPE_CHECKING:  # an answer gathers the voice loop's events: a search reads none of their modules
    from app.asks.answer import Answer
    from app.core.toolkit import Asker

ANSWER_WAIT_S = 120.0
"""How long `parley ask` waits for the running Parley's answer: seconds as a rule, longer while that
Parley's user is in the middle of a conversation (the question waits its turn)."""


SEARCH_WAIT_S = 30.0
"""How long a search waits for the running Parley (which answers in tenths of a second, or in seconds while its
embedding model loads on a loaded machine) before the command searches itself."""


class NoAnswerInTime(VoiceError):
    """The running Parley took the question but did not answer it in time."""


async def running_parley(data_dir: Path) -> bool:
    """A Parley runs on these chats and takes questions (a socket file nobody answers on is not one)."""
    connection = await _connect(data_dir)
    if connection is None:
        return False
    connection[1].close()
    return True


async def ask_running(
    data_dir: Path,
    question: str,
    *,
    chat: UUID | None = None,
    new_chat: bool = False,
    wait_s: float = ANSWER_WAIT_S,
    asker: Asker | None = None,
) -> Answer | None:
    """The running Parley's answer to `question` (asked in `chat`, or in a new chat with `new_chat`, else in
    the chat it is in), or None when no Parley answers on these chats. `VoiceError` says (in one line) what
    went wrong once one took it. `asker` answers the running Parley's questions about tools that ask first
    (none: each is refused); `wait_s` counts again after each."""
    connection = await _connect(data_dir)
    if connection is None:
        return None
    reader, writer = connection
    try:
        where = {"chat": str(chat)} if chat is not None else {"new_chat": True} if new_chat else {}
        writer.write(line({"ask": question, **where}))
        await writer.drain()
        while True:
            async with asyncio.timeout(wait_s):
                response = await reader.readline()
            consent = _consent_asked(response)
            if consent is None:
                break
            allow = False if asker is None else await asker(consent["server"], consent["tool"], consent["args"])
            writer.write(line({"allow": allow is True}))
            await writer.drain()
    except TimeoutError:
        raise NoAnswerInTime(
            f"the running Parley did not answer within {wait_s:.0f} s; the question stays in its chat"
        ) from None
    except ConnectionError:
        response = b""
    finally:
        writer.close()
    if not response:
        raise VoiceError("the running Parley closed the connection without answering")
    message = json.loads(response)
    if "error" in message:
        raise VoiceError(str(message["error"]))
    from app.asks.answer import Answer

    return Answer.of_json(message["answer"])


async def search_running(data_dir: Path, search: Search, *, wait_s: float = SEARCH_WAIT_S) -> dict[str, Any] | None:
    """What the Parley running on these chats found for `search` (`app.asks.searches`), or None when none
    answers it: none runs (no socket, or one left by a Parley that is gone: refused at once), it refused the
    search (an older Parley, or its store out of reach) or took longer than `wait_s`. The command then
    searches itself, and says what went wrong, if anything, as it would have anyway."""
    connection = await _connect(data_dir)
    if connection is None:
        return None
    reader, writer = connection
    try:
        writer.write(search_request(search))
        await writer.drain()
        async with asyncio.timeout(wait_s):
            response = await reader.readline()
        found = json.loads(response).get("found") if response else None
    except (TimeoutError, ConnectionError, ValueError, AttributeError):  # ValueError: a line too long, or not JSON
        return None
    finally:
        writer.close()
    return found if isinstance(found, dict) else None


def _consent_asked(response: bytes) -> dict[str, Any] | None:
    """The tool a `consent_request` line asks about (`server`, `tool`, `args`), or None for any other line."""
    try:
        consent = json.loads(response).get("consent") if response else None
    except (AttributeError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(consent, dict) or not isinstance(consent.get("args"), dict):
        return None
    return {"server": str(consent.get("server")), "tool": str(consent.get("tool")), "args": consent["args"]}


async def _connect(data_dir: Path) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    try:
        return await asyncio.open_unix_connection(str(socket_path(data_dir)), limit=MAX_REQUEST_BYTES)
    except OSError:  # no socket file, or one left by a Parley that is gone (refused)
        return None
