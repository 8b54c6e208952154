"""The socket a running Parley answers questions on, and what goes over it: one JSON object a line.

The client sends one request, `{"ask": "TEXT"}`, `{"ask": "TEXT", "chat": "CHAT ID"}` or
`{"ask": "TEXT", "new_chat": true}`; the server
answers one line, `{"answer": {...}}` (what `Answer.as_json` gives) or `{"error": "one line"}`, and closes.
A question is the only thing a request can ask for: nothing else is read from it. Before its answer, the
server may ask whether a tool that asks first may run, `{"consent": {"server", "tool", "args"}}`, and the
client answers each such line with `{"allow": true}` or `{"allow": false}` (anything else is a no)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

from chats.storable_text import storable_text

SOCKET_FILE = "ask.sock"
"""In the data folder, beside the listening lock; this user's only (mode 0600)."""
MAX_REQUEST_BYTES = 1_000_000
"""A question longer than this is not a typed message."""


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    """As typed, stripped."""
    chat: UUID | None = None
    """The chat to ask it in; None: the one the running Parley is in (or a new one, `new_chat`)."""
    new_chat: bool = False
    """Ask it in a new chat."""


class BadRequest(Exception):
    """What came over the socket is not a question."""


def socket_path(data_dir: Path) -> Path:
    return data_dir / SOCKET_FILE


def line(message: dict[str, Any]) -> bytes:
    # ASCII escapes: a command-line argument that was not UTF-8 holds lone surrogates, which no encoder takes.
    return json.dumps(message).encode() + b"\n"


def question_of(request: bytes) -> Question:
    """The question a request line asks; `BadRequest` for anything else."""
    try:
        message = json.loads(request)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise BadRequest("not a request: send one JSON object a line") from None
    if (
        not isinstance(message, dict)
        or set(message) - {"chat", "new_chat"} != {"ask"}
        or {"chat", "new_chat"} <= set(message)
        or not isinstance(message["ask"], str)
        or not isinstance(message.get("chat", ""), str)
        or message.get("new_chat", True) is not True
    ):
        raise BadRequest(
            'not a request: the only one is {"ask": "TEXT"}, with "chat": "CHAT ID", "new_chat": true or neither'
        )
    # As the conversation records it (half an emoji repaired), so its turn is known by its words.
    text = storable_text(message["ask"]).strip()
    if not text:
        raise BadRequest("nothing to ask: the message is blank")
    if "chat" not in message:
        return Question(text, new_chat="new_chat" in message)
    try:
        return Question(text, UUID(message["chat"]))
    except ValueError:
        raise BadRequest(f"not a chat id: {message['chat']!r}") from None


def consent_request(server: str, tool: str, args: Mapping[str, Any]) -> bytes:
    """The server's question to the client: may this tool run?"""
    return line({"consent": {"server": server, "tool": tool, "args": dict(args)}})


def allowed(reply: bytes) -> bool:
    """Whether the client's reply to a `consent_request` allows the tool: only `{"allow": true}` does."""
    try:
        message = json.loads(reply)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(message, dict) and message.get("allow") is True
