"""The chat tools the voice model can call: switch_chat, new_chat, list_recent_chats.

Each answer is a JSON object for the model. Wrong arguments, unknown tools and store failures are
answered with an `{"error": {...}}` object, never raised: a bad call must not end a conversation.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import jsonschema

from app.wiring import ChatServices
from chats.errors import ChatNotFound, ChatsError, EmbeddingError, StoreUnavailable
from chats.models import utc_now
from chats.search import RankedChat
from voice.live.connection import ToolDeclaration

log = logging.getLogger(__name__)

RECENT_DEFAULT = 5
UNTITLED_WORDS = 8
"""Words of its first message that name a chat without a title in a choice read out to the user."""
EMPTY_CHAT = "a chat with nothing said in it yet"


def query_or_id(query: str, id_name: str, id_description: str) -> dict[str, Any]:
    """The parameters of a tool that finds what it acts on by the user's words (`query`, described by
    `query`) or, once the user chose among the options an earlier answer offered, by its id: one of the two."""
    return {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "description": query},
            id_name: {"type": "string", "format": "uuid", "description": id_description},
        },
        "anyOf": [{"required": ["query"]}, {"required": [id_name]}],
        "additionalProperties": False,
    }


SWITCH_CHAT = ToolDeclaration(
    "switch_chat",
    "Switch to an earlier chat. Use it when the user asks to go back to, continue or open a previous "
    "conversation. Pass what the chat was about in the user's own words as `query`, or, after you offered "
    "choices, the chosen chat's `chat_id`. The answer says whether you switched, must ask the user which "
    "chat they mean (read the titles out), or found none.",
    query_or_id("What the chat was about.", "chat_id", "A chat id from earlier options."),
)
NEW_CHAT = ToolDeclaration(
    "new_chat",
    "Start a new, empty chat. Use it when the user wants to talk about something new in a fresh chat.",
    {"type": "object", "properties": {}, "additionalProperties": False},
)
LIST_RECENT_CHATS = ToolDeclaration(
    "list_recent_chats",
    "List the user's most recent chats with their titles, most recent first.",
    {
        "type": "object",
        "properties": {"limit": {"type": "integer", "minimum": 1, "maximum": 20}},
        "additionalProperties": False,
    },
)
TOOLS = (SWITCH_CHAT, NEW_CHAT, LIST_RECENT_CHATS)


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    result: dict[str, Any]
    """The answer for the model."""
    switch_to: UUID | None = None
    """The chat the conversation must continue in: save the current one, load this one."""


def argument_error(spec: ToolDeclaration, args: Mapping[str, Any]) -> jsonschema.ValidationError | None:
    """The most telling way `args` do not fit `spec`, or None when they do."""
    validator = jsonschema.Draft202012Validator(dict(spec.parameters), format_checker=jsonschema.FormatChecker())
    best: jsonschema.ValidationError | None = jsonschema.exceptions.best_match(validator.iter_errors(dict(args)))
    return best


def invalid_arguments(spec: ToolDeclaration, args: Mapping[str, Any]) -> str | None:
    """Why `args` do not fit `spec`, in one line, or None when they do."""
    error = argument_error(spec, args)
    if error is None:
        return None
    where = ".".join(str(part) for part in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


def unavailable(failure: ChatsError) -> str:
    """What the model tells the user of a failure, and nothing more than is true: only a store that did not
    answer is "cannot be reached"."""
    if isinstance(failure, StoreUnavailable):
        return "the chat history cannot be reached right now; say so and carry on"
    if isinstance(failure, EmbeddingError):
        return "the chats cannot be searched by meaning right now; say so and carry on"
    return "that could not be done right now; say so and carry on"


def error(code: str, message: str) -> ToolOutcome:
    return ToolOutcome({"error": {"code": code, "message": message}})


class ChatTools:
    def __init__(self, services: ChatServices, *, clock: Callable[[], datetime] = utc_now) -> None:
        self._s = services
        self._clock = clock
        self._handlers = {
            SWITCH_CHAT.name: self._switch_chat,
            NEW_CHAT.name: self._new_chat,
            LIST_RECENT_CHATS.name: self._list_recent_chats,
        }

    async def call(self, name: str, args: Mapping[str, Any], current_chat: UUID) -> ToolOutcome:
        spec = next((tool for tool in TOOLS if tool.name == name), None)
        if spec is None:
            return error("unknown_tool", f"there is no tool named {name!r}")
        problem = invalid_arguments(spec, args)
        if problem is not None:
            return error("invalid_arguments", problem)
        try:
            return await self._handlers[name](args, current_chat)
        except ChatsError as failure:
            log.warning("tool %s failed: %s", name, type(failure).__name__)
            return error("unavailable", unavailable(failure))

    async def _switch_chat(self, args: Mapping[str, Any], current_chat: UUID) -> ToolOutcome:
        if "chat_id" in args:
            try:
                chat = await self._s.store.load_assistant_context(UUID(args["chat_id"]))
            except ChatNotFound:
                return error("not_found", "no chat has that id; search with a query instead")
            return self._switched(chat.chat_id, chat.title, current_chat)
        match = await self._s.finder.find_chats(args["query"], now=self._clock(), current=current_chat)
        if match.outcome == "none":
            return ToolOutcome({"outcome": "none", "message": "No earlier chat is about that."})
        if match.outcome == "ask":
            options = await self._options(match.options)
            return ToolOutcome({"outcome": "ask", "message": "Ask the user which chat they mean.", "options": options})
        best = match.options[0]
        return self._switched(best.chat_id, best.title, current_chat)

    def _switched(self, chat_id: UUID, title: str | None, current_chat: UUID) -> ToolOutcome:
        if chat_id == current_chat:
            return ToolOutcome({"outcome": "already_here", "title": title})
        return ToolOutcome({"outcome": "switched", "chat_id": str(chat_id), "title": title}, switch_to=chat_id)

    async def _new_chat(self, args: Mapping[str, Any], current_chat: UUID) -> ToolOutcome:
        chat = await self._s.store.create()
        return ToolOutcome({"outcome": "switched", "chat_id": str(chat.id), "title": None}, switch_to=chat.id)

    async def _list_recent_chats(self, args: Mapping[str, Any], current_chat: UUID) -> ToolOutcome:
        chats = await self._s.store.list_chats(limit=int(args.get("limit", RECENT_DEFAULT)))
        return ToolOutcome(
            {
                "chats": [
                    {
                        "chat_id": str(info.id),
                        "title": info.title or await self._first_words(info.id),
                        "last_active": _ago(self._clock(), info.last_activity_at),
                        "current": info.id == current_chat,
                    }
                    for info in chats
                ]
            }
        )

    async def _options(self, ranked: Sequence[RankedChat]) -> list[dict[str, Any]]:
        """The choices read out, each one the user can name back: a chat without a title yet is called by
        its first words, and chats of the same title are told apart by when they were last used, then by
        the last thing the user said in each."""
        options = [await self._option(option) for option in ranked]
        for twins in _same_titles(options):
            for option in twins:
                option["title"] += f", last used {option['last_active']}"
        for twins in _same_titles(options):
            for option in twins:
                option["title"] += f", where you said “{await self._said(UUID(option['chat_id']), last=True)}”"
        return options

    async def _option(self, option: RankedChat) -> dict[str, Any]:
        return {
            "chat_id": str(option.chat_id),
            "title": option.title or await self._first_words(option.chat_id),
            "last_active": _ago(self._clock(), option.last_activity_at),
        }

    async def _first_words(self, chat_id: UUID) -> str:
        said = await self._said(chat_id, last=False)
        return f"the chat that began “{said}”" if said else EMPTY_CHAT

    async def _said(self, chat_id: UUID, *, last: bool) -> str:
        """The first (or `last`) words the user said in the chat, at most `UNTITLED_WORDS` of them."""
        context = await self._s.store.load_assistant_context(chat_id)
        turns = [turn.text for turn in context.assistant_history if turn.role == "user" and not turn.summary]
        words = (turns[-1] if last else turns[0]).split() if turns else []
        return " ".join(words[:UNTITLED_WORDS]) + ("…" if len(words) > UNTITLED_WORDS else "")


def _same_titles(options: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The groups of options whose titles cannot be told apart when read out."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for option in options:
        groups.setdefault(option["title"].casefold(), []).append(option)
    return [group for group in groups.values() if len(group) > 1]


def _ago(now: datetime, then: datetime) -> str:
    """How long ago, the way one says it aloud."""
    seconds = max((now - then).total_seconds(), 0)
    for unit, size in (("year", 365 * 86_400), ("month", 30 * 86_400), ("week", 7 * 86_400), ("day", 86_400)):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'s' * (count != 1)} ago"
    return "today"
