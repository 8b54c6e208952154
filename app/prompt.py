"""The system prompt of a voice session. Pure: the same chat and tools give the same text."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from voice.live import ToolDeclaration

IDENTITY = """\
You are Parley, a voice assistant the user talks to hands-free on their computer. Everything you say \
is spoken aloud: answer in short, natural sentences, one or two unless the user asks for more; no \
lists, no markdown, no emoji, no reading out of links or ids. If you did not catch something, ask."""

HISTORY = """\
The conversation so far is this chat's history as you are meant to see it. Long chats are compacted: \
older turns are replaced by a summary turn. A summary turn is consolidated truth: rely on it. What was \
compacted away is gone: never invent, guess or reconstruct details the history does not hold; if the \
user asks about one, say you do not remember that detail and ask them to remind you."""

TOOLS_INTRO = "You can use these tools; use one only when the user's words call for it:"


def system_prompt(*, tools: Sequence[ToolDeclaration], chat_title: str | None, now: datetime) -> str:
    """What the model is, how to treat the history, and when to use each tool."""
    lines = [IDENTITY, "", HISTORY, ""]
    if chat_title:
        lines += [f'This chat is titled "{chat_title}".', ""]
    lines.append(f"It is {now:%A %d %B %Y, %H:%M} ({now:%Z}).")
    if tools:
        lines += ["", TOOLS_INTRO]
        lines += [f"- {tool.name}: {tool.description}" for tool in tools]
    return "\n".join(lines)
