"""Chats to and from files: the JSON export (which `import` reads back, `chats.import_reader`) and a Markdown
transcript.

The export is versioned. `parley.chats/2` lists the folders (id, name and creation time, empty ones too),
then holds each chat whole, as `import` needs it to give the same chat back: its id, times, title, the *name*
of its folder (an import finds a folder by name; one it makes keeps its id, which memories name it by), both
histories, the summary and topic with their vectors, the memory switch and the working memory. It leaves out
what is the store's own bookkeeping (the version), so that export, import, export gives the same file.
`parley.chats/1` (a `project_id` and a `version` instead of `folder`; no topic, switch or working memory)
still imports.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from chats.import_reader import ChatState, ImportedChat, read_import
from chats.models import Chat, EmbeddedText, Folder, search_url, turns_to_json

EXPORT_FORMAT = "parley.chats/2"


@dataclass(frozen=True, slots=True)
class ExportedChat:
    """One chat as the export writes it."""

    chat: Chat
    folder: str | None
    """The name of the chat's folder; None when it is in none."""
    state: ChatState
    topic: EmbeddedText | None
    """The searchable text of a chat with no summary yet, with its vector."""


def chat_to_json(chat: Chat) -> dict[str, Any]:
    """The whole chat as the store holds it (`parley chats show --json`): both histories and the summary
    fields, with the summary's embedding model."""
    return {
        "id": str(chat.id),
        "user_id": chat.user_id,
        "project_id": chat.project_id,
        "title": chat.title,
        "full_history": turns_to_json(chat.full_history),
        "assistant_history": turns_to_json(chat.assistant_history),
        **_embedded("summary", chat.summary),
        "last_activity_at": chat.last_activity_at.isoformat(),
        "created_at": chat.created_at.isoformat(),
        "version": chat.version,
    }


def exported_chat_to_json(exported: ExportedChat) -> dict[str, Any]:
    """One chat of a `parley.chats/2` export."""
    data = chat_to_json(exported.chat)
    del data["project_id"], data["version"]
    return {
        **data,
        "folder": exported.folder,
        **_embedded("topic", exported.topic),
        "memory_enabled": exported.state.memory_enabled,
        "working_memory": dict(exported.state.working_memory),
    }


def _embedded(kind: str, value: EmbeddedText | None) -> dict[str, Any]:
    # Seven decimals: float32 holds about seven digits, and reading them back as float32 then writing them
    # again gives the same seven (an export of an import is the same file).
    return {
        f"{kind}_text": value.text if value else None,
        f"{kind}_embedding": [round(float(x), 7) for x in value.vector] if value else None,
        f"{kind}_embedding_model": value.model if value else None,
    }


def export_json(chats: Sequence[ExportedChat], folders: Sequence[Folder] = ()) -> dict[str, Any]:
    """The export of `chats`, listing `folders` (empty ones too) before them, so an import makes them first."""
    return {
        "format": EXPORT_FORMAT,
        "folders": [
            {"id": folder.id, "name": folder.name, "created_at": folder.created_at.isoformat()} for folder in folders
        ],
        "chats": [exported_chat_to_json(chat) for chat in chats],
    }


def chat_to_markdown(chat: Chat) -> str:
    lines = [f"# {chat.title or 'Untitled chat'}", ""]
    lines.append(f"*{chat.created_at:%Y-%m-%d %H:%M} to {chat.last_activity_at:%Y-%m-%d %H:%M} UTC*")
    if chat.summary:
        lines += ["", f"> **Summary:** {chat.summary.text}"]
    for turn in chat.full_history:
        speaker = "You" if turn.role == "user" else "Parley"
        lines += ["", f"**{speaker}:** {turn.text}"]
        if turn.sources:
            lines += ["", "Sources: " + ", ".join(_markdown_link(s.title or s.uri, s.uri) for s in turn.sources)]
        if turn.searches:
            lines += ["", "Searched Google: " + ", ".join(_markdown_link(q, search_url(q)) for q in turn.searches)]
    return "\n".join(lines) + "\n"


def _markdown_link(title: str, uri: str) -> str:
    """`[title](<uri>)`: the title on one line with its brackets escaped; the address in angle brackets, with
    what they cannot hold (spaces, line breaks, angle brackets) percent-encoded."""
    text = re.sub(r"([\\\[\]])", r"\\\1", " ".join(title.split()))
    address = quote(uri, safe=":/?#@!$&'()*+,;=%~[]")
    return f"[{text}](<{address}>)"


def export_markdown(chats: Sequence[Chat]) -> str:
    return "\n---\n\n".join(chat_to_markdown(chat) for chat in chats)


def parse_import(data: object) -> list[ImportedChat]:
    """The chats of an import already in memory as JSON values: read as a file would be."""
    return list(read_import(io.BytesIO(json.dumps(data).encode("utf-8"))))
