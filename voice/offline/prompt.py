"""The chat model's prompt: ChatML, as SmolLM2 was tuned on, and the history trimmed to fit. Pure.

The system prompt goes apart from the turns: it is the same for every answer in a conversation, so the
model computes it once and keeps it (CTranslate2's static prompt), and only the turns are new each time.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Literal

START, END = "<|im_start|>", "<|im_end|>"


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Literal["user", "assistant"]
    text: str


def without_tools(system: str, tools: Collection[str]) -> str:
    """The system prompt less its last section, the declared `tools` ("- name: description", after a line
    that introduces them, as `app.tools.prompt.system_prompt` ends): the small model calls no tool (the app
    routes the user's intents), and given their descriptions it read them out as answers ("- listrecentchats:
    List the user's most recent chats...")."""
    lines = system.split("\n")
    heads = tuple(f"- {name}: " for name in tools)
    first = next((i for i, line in enumerate(lines) if heads and line.startswith(heads)), len(lines))
    if 0 < first < len(lines) and lines[first - 1].endswith(":"):
        first -= 1
    return "\n".join(lines[:first]).rstrip()


def system_block(system: str) -> str:
    return f"{START}system\n{system.strip()}{END}\n"


def turns_block(messages: Sequence[ChatMessage]) -> str:
    """The turns, then the opening of the assistant's answer."""
    return "".join(f"{START}{m.role}\n{m.text.strip()}{END}\n" for m in messages) + f"{START}assistant\n"


def with_findings(question: str, findings: Sequence[str]) -> str:
    """The user's question with what a tool found, as one user turn: the small model stays closest to the
    findings when they come with the question, and no earlier turns, in the user's own turn."""
    notes = "\n".join(f"- {finding}" for finding in findings)
    return f"{question.strip()}\n\nFrom your notes:\n{notes}\nAnswer using only these notes, in one short sentence."


def fit(messages: Sequence[ChatMessage], count: Callable[[str], int], budget: int) -> list[ChatMessage]:
    """The most recent messages whose turns block takes at most `budget` tokens (by `count`), always
    keeping the last one (the question) and starting with a user turn where it can."""
    kept: list[ChatMessage] = []
    used = count(turns_block([]))
    for message in reversed(messages):
        size = count(turns_block([message])) - count(turns_block([]))
        if kept and used + size > budget:
            break
        kept.append(message)
        used += size
    kept.reverse()
    while len(kept) > 1 and kept[0].role != "user":
        kept.pop(0)
    return kept
