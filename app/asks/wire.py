"""The socket a running Parley answers on, and what goes over it: one JSON object a line.

The client sends one request: a question, `{"ask": "TEXT"}`, `{"ask": "TEXT", "chat": "CHAT ID"}` or
`{"ask": "TEXT", "new_chat": true}`, or a search, `{"search": "chats", "query": "TEXT"}` or
`{"search": "memories", "query": "TEXT", "limit": N, "category": "CATEGORY" or null}`; the server answers
one line, `{"answer": {...}}` (what `Answer.as_json` gives), `{"found": {...}}` (what `app.asks.searches`
gives) or `{"error": "one line"}`, and closes. These are the only requests: nothing else is read from one.
Before a question's answer, the server may ask whether a tool that asks first may run,
`{"consent": {"server", "tool", "args"}}`, and the client answers each such line with `{"allow": true}` or
`{"allow": false}` (anything else is a no)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from uuid import UUID

from chats.memory.category_names import CATEGORIES
from chats.models import search_query
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


@dataclass(frozen=True, slots=True)
class Search:
    """`parley chats search` or `parley memories search`, answered by the running Parley's services."""

    of: Literal["chats", "memories"]
    query: str
    """As the command read it (`chats.models.search_query`)."""
    limit: int = 5
    """The most memories to give (memories only)."""
    category: str | None = None
    """Only memories of this category (memories only); None: every category."""


Request = Question | Search

MAX_SEARCH_LIMIT = 10_000
"""More memories than a search may ask for over the socket (the command's own `--limit` is not bounded)."""


class BadRequest(Exception):
    """What came over the socket is not a request."""


def socket_path(data_dir: Path) -> Path:
    return data_dir / SOCKET_FILE


def line(message: dict[str, Any]) -> bytes:
    # ASCII escapes: a command-line argument that was not UTF-8 holds lone surrogates, which no encoder takes.
    return json.dumps(message).encode() + b"\n"


def request_of(line_read: bytes) -> Request:
    """The question or search a request line asks; `BadRequest` for anything else."""
    try:
        message = json.loads(line_read)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise BadRequest("not a request: send one JSON object a line") from None
    if isinstance(message, dict) and "search" in message:
        return _search_of(message)
    if (
        not isinstance(message, dict)
        or set(message) - {"chat", "new_chat"} != {"ask"}
        or {"chat", "new_chat"} <= set(message)
        or not isinstance(message["ask"], str)
        or not isinstance(message.get("chat", ""), str)
        or message.get("new_chat", True) is not True
    ):
        raise BadRequest(
            'not a request: the only ones are {"ask": "TEXT"}, with "chat": "CHAT ID", "new_chat": true or'
            ' neither, and {"search": "chats" or "memories", "query": "TEXT"}'
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


def _search_of(message: dict[str, Any]) -> Search:
    of, query = message["search"], message.get("query")
    allowed_keys = {"search", "query"} | ({"limit", "category"} if of == "memories" else set())
    if of not in ("chats", "memories") or set(message) - allowed_keys or not isinstance(query, str):
        raise BadRequest(
            'not a search: {"search": "chats", "query": "TEXT"} or {"search": "memories", "query": "TEXT",'
            ' "limit": N, "category": "CATEGORY" or null}'
        )
    limit, category = message.get("limit", 5), message.get("category")
    if type(limit) is not int or not 0 <= limit <= MAX_SEARCH_LIMIT:
        raise BadRequest(f"not a limit: {limit!r} (a whole number from 0 to {MAX_SEARCH_LIMIT})")
    if category is not None and category not in CATEGORIES:
        raise BadRequest(f"not a category: {category!r}")
    return Search(of, search_query(query), limit, category)


def search_request(search: Search) -> bytes:
    """The line that asks the running Parley for `search`."""
    if search.of == "chats":
        return line({"search": "chats", "query": search.query})
    return line({"search": "memories", "query": search.query, "limit": search.limit, "category": search.category})


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
