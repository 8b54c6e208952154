"""Memories as a file the user keeps: JSON (every field but the vectors) or Markdown by category, each
followed by the working memory of the chats that have one (spec 002's per-chat notes)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from chats.errors import ChatNotFound
from chats.memory.models import CATEGORIES, Memory
from chats.store import ChatStore

_HEADINGS = {
    "identity": "Who you are",
    "preference": "Preferences",
    "relationship": "People",
    "project": "Projects",
    "context": "Context",
}
CHATS_PER_PAGE = 200
"""Chats listed per store call while gathering working memories."""


@dataclass(frozen=True, slots=True)
class ChatNotes:
    """One chat's working memory, as an export lists it."""

    chat_id: UUID
    chat_title: str | None
    notes: Mapping[str, Any]
    """The chat's working-memory object; never empty."""

    def to_json(self) -> dict[str, Any]:
        return {"chatId": str(self.chat_id), "chatTitle": self.chat_title, "notes": dict(self.notes)}


async def working_notes(store: ChatStore) -> list[ChatNotes]:
    """The working memory of every chat of the store's user that has one, most recent chat first."""
    found: list[ChatNotes] = []
    offset = 0
    while chats := await store.list_chats(limit=CHATS_PER_PAGE, offset=offset):
        offset += len(chats)
        for chat in chats:
            try:
                record = await store.get_working_memory(chat.id)
            except ChatNotFound:  # deleted while the export ran
                continue
            if record.data:
                found.append(ChatNotes(chat.id, chat.title, record.data))
    return found


def export_json(memories: Sequence[Memory], notes: Sequence[ChatNotes] = ()) -> str:
    document = {"memories": [m.to_json() for m in memories], "workingMemory": [n.to_json() for n in notes]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def export_markdown(memories: Sequence[Memory], notes: Sequence[ChatNotes] = ()) -> str:
    """One section per category, newest facts first (replaced facts are listed as such, not as
    current), then one per chat with working memory, a line per note."""
    lines = ["# What Parley remembers", ""]
    for category in CATEGORIES:
        kept = sorted((m for m in memories if m.category == category), key=lambda m: m.created_at, reverse=True)
        if not kept:
            continue
        lines += [f"## {_HEADINGS[category]}", ""]
        for memory in kept:
            replaced = " (replaced by a newer fact)" if memory.superseded_by is not None else ""
            lines.append(f"- {memory.content}{replaced} — saved {memory.created_at:%Y-%m-%d}, id {memory.id}")
        lines.append("")
    if notes:
        lines += ["## Working memory of chats", ""]
        for chat in notes:
            lines += [f"### {chat.chat_title or 'Untitled chat'} (chat {chat.chat_id})", ""]
            lines += [f"- {key}: {_note_text(value)}" for key, value in chat.notes.items()]
            lines.append("")
    if len(lines) == 2:
        lines += ["Nothing yet.", ""]
    return "\n".join(lines)


def _note_text(value: object) -> str:
    """A string as it is; any other JSON value (number, list, object) as compact JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
