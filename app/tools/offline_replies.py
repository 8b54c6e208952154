"""What the offline voice says once a tool has answered (`voice.offline.engine.ToolAnswer`). Pure.

- A tool that acted (switched or started a chat, saved, added or forgot a memory, ended the conversation)
  gets a templated sentence only. The outcome is a fact the app knows exactly; the 135M chat model would
  add half a second and, often, something the tool did not do.
- A tool that found something (`search_memories`, `recall_conversations`) hands its findings to the chat
  model, which answers the question from them in its own words ("You decided on white zellige tiles"),
  each sentence checked against them (`supported`); the template, which reads the findings out as they are,
  is said when the model's words do not hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chats.memory.grounding import grounded
from chats.memory.text import second_person
from voice.offline.router import ToolAnswer

FINDING_MAX_WORDS = 40
"""An earlier message is cut to this many words: the small model's prompt stays short and to the point."""


def tool_answer(tool: str, result: Mapping[str, Any]) -> ToolAnswer:
    """What to say about `result`, the answer of `tool`."""
    if "error" in result and tool not in _MEMORY_TOOLS:
        return ToolAnswer("Sorry, I couldn't do that right now.")
    if tool == "switch_chat":
        return ToolAnswer(_switched(result))
    if tool == "new_chat":
        return ToolAnswer("Starting a new chat.")
    if tool == "list_recent_chats":
        titles = [str(chat.get("title") or "an untitled chat") for chat in result.get("chats", [])]
        return ToolAnswer(f"Your recent chats are: {_listed(titles)}." if titles else "You have no chats yet.")
    if tool == "end_conversation":
        return ToolAnswer("Goodbye!")
    if tool == "recall_conversations":
        return _recalled(result)
    return _memory_answer(tool, result)


def supported(sentence: str, findings: Sequence[str], question: str) -> bool:
    """Whether `sentence` says what the findings say: grounded in them and the question together (every
    name and number in it, and most of its other words: `chats.memory.grounding.grounded`, the check a
    saved memory passes against the user's words), but not in the question alone, which a small model
    otherwise echoes ("The user asked what was decided about the kitchen tiles")."""
    return grounded(sentence, [*findings, question]) and not grounded(sentence, [question])


_MEMORY_TOOLS = ("save_memory", "add_memory", "forget_memory", "search_memories", "recall_conversations")


def _switched(result: Mapping[str, Any]) -> str:
    outcome = result.get("outcome")
    title = result.get("title")
    if outcome == "switched":
        return f"Switching to {title}." if title else "Switching to that chat."
    if outcome == "already_here":
        return "We're already in that chat."
    if outcome == "ask":
        titles = [str(option.get("title") or "an untitled chat") for option in result.get("options", [])]
        return f"I found several chats: {_listed(titles)}. Which one do you mean?"
    return "I couldn't find a chat about that."


def _memory_answer(tool: str, result: Mapping[str, Any]) -> ToolAnswer:
    if tool in ("save_memory", "add_memory"):
        if result.get("success"):
            return ToolAnswer("Okay, I'll remember that." if tool == "save_memory" else "Okay, I've noted that.")
        return ToolAnswer("I already know that." if result.get("duplicate") else "Sorry, I couldn't save that.")
    if tool == "forget_memory":
        if result.get("success"):
            return ToolAnswer("Okay, I've forgotten that.")
        if result.get("choices"):
            choices = _listed([_mid_sentence(second_person(str(choice["content"]))) for choice in result["choices"]])
            return ToolAnswer(f"Which one should I forget: {choices}?")
        return ToolAnswer("I don't have anything saved about that.")
    # Said to the user, and so handed to the model: "You live in Lyon", not "User lives in Lyon".
    found = [second_person(str(hit["content"])) for hit in result.get("results", [])]
    if not found:
        return ToolAnswer("I don't have anything saved about that.")
    return ToolAnswer(f"Here is what I have saved: {_listed([_mid_sentence(fact) for fact in found])}.", tuple(found))


def _recalled(result: Mapping[str, Any]) -> ToolAnswer:
    hits = [hit for hit in result.get("results", []) if str(hit.get("text", "")).strip()]
    if not result.get("success") or not hits:
        return ToolAnswer("I couldn't find that in our earlier chats.")
    findings = tuple(_cut(str(hit["text"])) for hit in hits)
    best = hits[0]
    speaker = "you said" if best.get("role") == "user" else "I said"
    where = f"In our chat {best['chatTitle']}" if best.get("chatTitle") else "In an earlier chat"
    return ToolAnswer(f"{where}, {speaker}: {findings[0].rstrip('.')}.", findings)


def _mid_sentence(fact: str) -> str:
    """A fact said to the user, inside a longer sentence: "You live in Lyon" -> "you live in Lyon"."""
    return fact[0].lower() + fact[1:] if fact.startswith(("You ", "Your ")) else fact


def _cut(text: str) -> str:
    words = text.split()
    return " ".join(words[:FINDING_MAX_WORDS]) + ("..." if len(words) > FINDING_MAX_WORDS else "")


def _listed(items: Sequence[str]) -> str:
    items = [item.rstrip(".") for item in items]
    if not items:
        return "none"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
