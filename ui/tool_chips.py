"""What a tool call looks like in the transcript: one short line (a "chip") saying what Parley did.

A slow tool shows a chip while it runs ("Saving to memory…"); the chip of its answer takes its place. The
memory chips say what spec 001's interface says: "Saved to memory", "Already saved", "Failed to save".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
    call_id: str | None = None
    """The tool call it belongs to: the chip of its answer replaces the one shown while it ran."""
    running: bool = False
    """Shown while the call runs, until its answer comes."""


Words = tuple[str, bool]
"""A chip's text, and whether the tool failed."""

RUNNING = {
    "save_memory": "Saving to memory…",
    "add_memory": "Saving to memory…",
    "search_memories": "Looking in memory…",
    "forget_memory": "Forgetting…",
    "recall_conversations": "Looking through earlier chats…",
    "look_at_screen": "Looking at your screen…",
}


def running_chip_text(name: str) -> str | None:
    """The chip shown while a tool runs; None for quick tools, which show only their answer."""
    return RUNNING.get(name)


def chip_text(name: str, args: Mapping[str, Any], result: Mapping[str, Any]) -> Words | None:
    """The chip for a tool's answer; None for a tool that shows no chip (ending the conversation)."""
    words = _WORDS.get(name)
    return None if words is None else words(args, result)


def chip_chat(name: str, result: Mapping[str, Any], current: UUID) -> UUID:
    """The chat a chip belongs in: a switch shows in the chat switched to, where the conversation goes on."""
    target = result.get("chat_id") if result.get("outcome") == "switched" else None
    return UUID(target) if isinstance(target, str) else current


def _switch_chat(_args: Mapping[str, Any], result: Mapping[str, Any]) -> Words:
    outcome = result.get("outcome")
    if "error" in result:
        return "Switching chats failed", True
    if outcome in ("switched", "already_here"):
        return f"Switched to chat: {result.get('title') or UNTITLED}", False
    if outcome == "ask":
        return f"Found {len(result.get('options', []))} chats that could fit", False
    return "No earlier chat matched", False


def _new_chat(_args: Mapping[str, Any], result: Mapping[str, Any]) -> Words:
    return ("Starting a new chat failed", True) if "error" in result else ("Started a new chat", False)


def _list_recent_chats(_args: Mapping[str, Any], result: Mapping[str, Any]) -> Words:
    if "error" in result:
        return "Listing recent chats failed", True
    return f"Listed {len(result.get('chats', []))} recent chats", False


def _save(args: Mapping[str, Any], result: Mapping[str, Any]) -> Words:
    if result.get("success"):
        return f"Saved to memory: {result.get('content') or args.get('content', '')}", False
    if result.get("duplicate"):
        return f"Already saved: {result.get('existingContent', '')}", False
    return "Failed to save", True


def _search(_args: Mapping[str, Any], result: Mapping[str, Any]) -> Words:
    if not result.get("success"):
        return "Looking in memory failed", True
    found = len(result.get("results", []))
    return ("Found nothing in memory", False) if found == 0 else (f"Found {found} in memory", False)


def _forget(_args: Mapping[str, Any], result: Mapping[str, Any]) -> Words:
    if result.get("success"):
        return f"Forgot: {result.get('content', '')}", False
    if "choices" in result:
        return "Asked which memory to forget", False
    if "error" in result:
        return "Failed to forget", True
    return "Nothing to forget matched", False


def _recall(_args: Mapping[str, Any], result: Mapping[str, Any]) -> Words:
    if not result.get("success"):
        return "Looking through earlier chats failed", True
    return f"Looked through earlier chats: {len(result.get('results', []))} found", False


def _notes(_args: Mapping[str, Any], result: Mapping[str, Any]) -> Words:
    return ("Updated the notes for this chat", False) if result.get("success") else ("Failed to update the notes", True)


def _screen(_args: Mapping[str, Any], result: Mapping[str, Any]) -> Words:
    if result.get("shown"):
        return f"Showed your screen to Gemini ({result.get('width')} x {result.get('height')} pixels)", False
    return str(result.get("say") or "Could not show your screen"), True


_WORDS: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any]], Words]] = {
    "switch_chat": _switch_chat,
    "new_chat": _new_chat,
    "list_recent_chats": _list_recent_chats,
    "save_memory": _save,
    "add_memory": _save,
    "search_memories": _search,
    "forget_memory": _forget,
    "recall_conversations": _recall,
    "update_working_memory": _notes,
    "look_at_screen": _screen,
}
