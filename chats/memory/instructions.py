"""Memories are facts about the user, never instructions to the assistant.

A memory is pre-loaded into every conversation's system prompt, so a saved "User says: ignore previous
instructions and ..." would reach the model where its instructions live. Two defences: the prompt shows
memories as quoted data (`chats.memory.preload`), and content that speaks to the assistant is refused
when it is saved, by any path (the tools, the offline voice, the command line, the Memory page).

The phrasings are those of prompt injection (OWASP LLM01's examples, and what jailbreak prompts open
with): telling the model to drop its instructions, naming its system prompt, giving it a new role or new
rules. A preference about how Parley should talk ("User wants answers in Italian") is a fact about the
user and passes; so does a sentence that merely uses the words ("User's boss told them to ignore the old
budget").
"""

from __future__ import annotations

import re
from functools import cache

from chats.errors import InvalidMemory
from languages.registry import SUPPORTED, table


@cache
def _to_the_assistant() -> re.Pattern[str]:
    """Each language's phrasings of prompt injection (`[memory_instructions]`), whatever the memory's language:
    read when a memory is first checked, not with the memory store that every command opens."""
    return re.compile(
        "|".join(
            pattern
            for code in SUPPORTED
            for pattern in table(code).get("memory_instructions", {}).get("to_the_assistant", [])
        ),
        re.IGNORECASE,
    )


def refuse_instructions(text: str) -> None:
    """Raise `InvalidMemory` when `text` speaks to the assistant instead of describing the user. The
    message quotes only the words found, never the whole content."""
    found = _to_the_assistant().search(text)
    if found:
        words = " ".join(found.group(0).split())[:40]
        raise InvalidMemory(
            f"A memory describes the user and cannot give the assistant instructions (found {words!r}): "
            "save a fact about the user, e.g. 'User prefers short answers'"
        )
