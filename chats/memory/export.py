"""Memories as a file the user keeps: JSON (every field but the vectors) or Markdown by category, each
followed by the working memory of the chats that have one (spec 002's per-chat notes).

The JSON is versioned: `parley.memories/2` adds the names of the folders memories were saved in
(`parley memories import` finds the folder by name, or makes it with the file's id for it). A memory keeps
its id, which is its key: importing the file again finds it. A file without a `format` (the first exports)
still imports, its folders named after their ids.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID, uuid5

import numpy as np

from chats.errors import ChatNotFound, InvalidFolderName, InvalidMemory, InvalidWorkingMemory
from chats.memory.importance import checked_importance
from chats.memory.models import CATEGORIES, Memory, category_of, clean_content, clean_tags, clean_title
from chats.models import EmbeddedText, Folder, folder_name
from chats.store import ChatStore
from chats.working_memory import apply_update

MEMORIES_FORMAT = "parley.memories/2"
_NO_ID = UUID("0c5d5e0e-8f43-4c1e-9a57-2f0f3f6b7f43")
"""Of the ids given to the memories of a file that has none (UUID version 5 of what the memory says)."""

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


def export_json(memories: Sequence[Memory], notes: Sequence[ChatNotes] = (), folders: Sequence[Folder] = ()) -> str:
    """`folders`: the folders memories name by id, whose names the file keeps."""
    named = {memory.project_id for memory in memories}
    document = {
        "format": MEMORIES_FORMAT,
        "folders": [{"id": folder.id, "name": folder.name} for folder in folders if folder.id in named],
        "memories": [m.to_json() for m in memories],
        "workingMemory": [n.to_json() for n in notes],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True, slots=True)
class MemoriesFile:
    """What a JSON export of memories holds, read back."""

    memories: tuple[Memory, ...]
    """Oldest first. Their `embedding` holds the content and the model named in the file, with no vector
    (an export has none): embed the content before keeping it."""
    folders: Mapping[str, str]
    """Folder id -> its name, for the folders the file names (none in a first-version export)."""
    notes: tuple[ChatNotes, ...]


def read_export(data: object, user_id: str) -> MemoriesFile:
    """A memories export (`export_json`) as values for `user_id`; `InvalidMemory` says what is wrong and
    where ("memory 3: ...")."""
    if not isinstance(data, Mapping) or not isinstance(data.get("memories"), list):
        raise InvalidMemory("expected a memories export: an object with a 'memories' list")
    version = str(data.get("format", MEMORIES_FORMAT)).removeprefix("parley.memories/")
    if version.isdigit() and int(version) > int(MEMORIES_FORMAT.rsplit("/", 1)[1]):
        raise InvalidMemory(f"the export's format is {data['format']}, newer than this Parley reads: update Parley")
    memories = [_memory(item, user_id, f"memory {number}: ") for number, item in enumerate(data["memories"], 1)]
    folders = {
        str(folder.get("id")): _folder_name(folder.get("name"), f"folder {number}: ")
        for number, folder in enumerate(_list(data.get("folders"), "'folders'"), 1)
        if isinstance(folder, Mapping)
    }
    notes = [_notes(item, f"working memory {n}: ") for n, item in enumerate(_list(data.get("workingMemory"), ""), 1)]
    return MemoriesFile(tuple(sorted(memories, key=lambda m: m.created_at)), folders, tuple(notes))


def _folder_name(value: object, where: str) -> str:
    try:
        return folder_name(str(value))
    except InvalidFolderName as error:
        raise InvalidMemory(f"{where}{error}") from None


def _list(value: object, name: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidMemory(f"{name or 'workingMemory'} must be a list")
    return value


def _memory(item: object, user_id: str, where: str) -> Memory:
    if not isinstance(item, Mapping) or not isinstance(item.get("content"), str):
        raise InvalidMemory(f"{where}expected an object with a 'content' string")
    tags, importance = item.get("tags", []), item.get("importance")
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        raise InvalidMemory(f"{where}'tags' must be a list of strings")
    if not isinstance(importance, int) or isinstance(importance, bool):
        raise InvalidMemory(f"{where}'importance' must be a whole number")
    try:
        category = category_of(item.get("category"))
    except InvalidMemory as error:
        raise InvalidMemory(f"{where}{error}") from None
    try:  # what the store would refuse, refused before anything is written
        clean_content(EmbeddedText(item["content"], np.zeros(0, dtype=np.float32), ""))
        clean_title(_text(item.get("title"), "'title'"))
        clean_tags(tags)
        checked_importance(importance)
    except InvalidMemory as error:
        raise InvalidMemory(f"{where}{error}") from None
    created = _time(item.get("createdAt"), where + "'createdAt'")
    # A memory of a file that gives it no id gets one derived from what it says: importing the file again
    # finds it by that id, as it would find a memory of a file that gives ids.
    made_id = uuid5(_NO_ID, json.dumps([item["content"], category, item.get("projectId"), created.isoformat()]))
    return Memory(
        id=_id(item.get("id"), where + "'id'") or made_id,
        user_id=user_id,
        content=item["content"],
        title=_text(item.get("title"), where + "'title'"),
        category=category,
        tags=tuple(tags),
        importance=importance,
        project_id=_text(item.get("projectId"), where + "'projectId'"),
        embedding=EmbeddedText(item["content"], np.zeros(0, dtype=np.float32), str(item.get("embeddingModel"))),
        source_chat_id=_id(item.get("sourceChatId"), where + "'sourceChatId'"),
        created_at=created,
        updated_at=_time(item.get("updatedAt", item.get("createdAt")), where + "'updatedAt'"),
        superseded_by=_id(item.get("supersededBy"), where + "'supersededBy'"),
    )


def _notes(item: object, where: str) -> ChatNotes:
    if not isinstance(item, Mapping):
        raise InvalidMemory(f"{where}expected an object with 'chatId' and 'notes'")
    chat_id = _id(item.get("chatId"), where + "'chatId'")
    if chat_id is None:
        raise InvalidMemory(f"{where}'chatId' must be a UUID")
    try:
        notes = apply_update({}, item.get("notes"))  # the shape and size rules the model's own notes keep
    except InvalidWorkingMemory as error:
        raise InvalidMemory(f"{where}{error}") from None
    return ChatNotes(chat_id, _text(item.get("chatTitle"), where + "'chatTitle'"), notes)


def _text(value: object, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise InvalidMemory(f"{what} must be a string")
    return value


def _id(value: object, what: str) -> UUID | None:
    if value is None:
        return None
    try:
        return UUID(str(value))
    except ValueError:
        raise InvalidMemory(f"{what} must be a UUID") from None


def _time(value: object, what: str) -> datetime:
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        raise InvalidMemory(f"{what} must be an ISO-8601 time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


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
