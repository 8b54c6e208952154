"""Chats to and from files: the JSON export (which `import` reads back, `chats.import_reader`) and a Markdown
transcript."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

from chats.import_reader import ImportedChat, read_import
from chats.models import Chat, turns_to_json

EXPORT_FORMAT = "parley.chats/1"


def chat_to_json(chat: Chat) -> dict[str, Any]:
    """The whole chat: both histories and the summary fields, with the summary's embedding model."""
    summary = chat.summary
    return {
        "id": str(chat.id),
        "user_id": chat.user_id,
        "project_id": chat.project_id,
        "title": chat.title,
        "full_history": turns_to_json(chat.full_history),
        "assistant_history": turns_to_json(chat.assistant_history),
        "summary_text": summary.text if summary else None,
        "summary_embedding": [round(float(x), 7) for x in summary.vector] if summary else None,
        "summary_embedding_model": summary.model if summary else None,
        "last_activity_at": chat.last_activity_at.isoformat(),
        "created_at": chat.created_at.isoformat(),
        "version": chat.version,
    }


def export_json(chats: Sequence[Chat]) -> dict[str, Any]:
    return {"format": EXPORT_FORMAT, "chats": [chat_to_json(chat) for chat in chats]}


def chat_to_markdown(chat: Chat) -> str:
    lines = [f"# {chat.title or 'Untitled chat'}", ""]
    lines.append(f"*{chat.created_at:%Y-%m-%d %H:%M} to {chat.last_activity_at:%Y-%m-%d %H:%M} UTC*")
    if chat.summary:
        lines += ["", f"> **Summary:** {chat.summary.text}"]
    for turn in chat.full_history:
        speaker = "You" if turn.role == "user" else "Parley"
        lines += ["", f"**{speaker}:** {turn.text}"]
    return "\n".join(lines) + "\n"


def export_markdown(chats: Sequence[Chat]) -> str:
    return "\n---\n\n".join(chat_to_markdown(chat) for chat in chats)


def parse_import(data: object) -> list[ImportedChat]:
    """The chats of an import already in memory as JSON values: read as a file would be."""
    return list(read_import(io.BytesIO(json.dumps(data).encode("utf-8"))))


__all__ = ["EXPORT_FORMAT", "ImportedChat", "chat_to_json", "export_json", "export_markdown", "parse_import"]
