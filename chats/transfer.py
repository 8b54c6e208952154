"""Chats to and from files: the JSON export (which `import` reads back) and a Markdown transcript."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chats.errors import InvalidTurn
from chats.models import Chat, Turn, turns_from_json, turns_to_json

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


@dataclass(frozen=True, slots=True)
class ImportedChat:
    title: str | None
    project_id: str | None
    turns: tuple[Turn, ...]


def parse_import(data: object) -> list[ImportedChat]:
    """Read what `import` accepts: a list of turns, one exported chat, or a whole export.

    Only `full_history` is taken from a chat: the importing store compacts it afresh.
    """
    if isinstance(data, list):
        return [ImportedChat(title=None, project_id=None, turns=turns_from_json(data))]
    if isinstance(data, Mapping) and "chats" in data:
        chats = data["chats"]
        if not isinstance(chats, list):
            raise InvalidTurn("an export's 'chats' must be a list")
        return [_one_chat(chat) for chat in chats]
    if isinstance(data, Mapping) and "full_history" in data:
        return [_one_chat(data)]
    raise InvalidTurn("expected a list of turns, a chat with 'full_history', or an export with 'chats'")


def _one_chat(data: object) -> ImportedChat:
    if not isinstance(data, Mapping):
        raise InvalidTurn("every chat in an export must be an object")
    title, project = data.get("title"), data.get("project_id")
    if title is not None and not isinstance(title, str):
        raise InvalidTurn("a chat's 'title' must be a string")
    if project is not None and not isinstance(project, str):
        raise InvalidTurn("a chat's 'project_id' must be a string")
    return ImportedChat(title=title, project_id=project, turns=turns_from_json(data.get("full_history")))
