"""What a tool call looks like in the transcript: one short line (a "chip") saying what Parley did."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from uuid import UUID

UNTITLED = "New chat"


@dataclass(frozen=True, slots=True)
class ToolChip:
    text: str
    """One line for the user, e.g. "Switched to chat: Kitchen renovation"."""
    failed: bool = False
    """The tool answered with an error."""


def chip_text(name: str, result: Mapping[str, Any]) -> tuple[str, bool] | None:
    """The chip for a tool's answer and whether it failed; None for a tool that shows no chip."""
    if "error" in result:
        return f"{_ACTIONS.get(name, name)} failed", True
    outcome = result.get("outcome")
    if name == "switch_chat":
        if outcome in ("switched", "already_here"):
            return f"Switched to chat: {result.get('title') or UNTITLED}", False
        if outcome == "ask":
            return f"Found {len(result.get('options', []))} chats that could fit", False
        return "No earlier chat matched", False
    if name == "new_chat":
        return "Started a new chat", False
    if name == "list_recent_chats":
        return f"Listed {len(result.get('chats', []))} recent chats", False
    return None


def chip_chat(name: str, result: Mapping[str, Any], current: UUID) -> UUID:
    """The chat a chip belongs in: a switch shows in the chat switched to, where the conversation goes on."""
    target = result.get("chat_id") if result.get("outcome") == "switched" else None
    return UUID(target) if isinstance(target, str) else current


_ACTIONS = {
    "switch_chat": "Switching chats",
    "new_chat": "Starting a new chat",
    "list_recent_chats": "Listing recent chats",
}
