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

from chats.errors import InvalidMemory

_TO_THE_ASSISTANT = re.compile(
    r"|".join(
        (
            # "ignore previous instructions", "disregard all the rules above", "forget everything above"
            r"\b(?:ignore|disregard|forget|override|bypass)\b(?:\W+\w+){0,3}?\W+"
            r"(?:instructions?|rules|guidelines|directives|prompts?|everything (?:above|before))\b",
            # "the system prompt", "developer message"
            r"\b(?:system|developer)\s+(?:prompt|message|instructions?)\b",
            # "System: ...", "Assistant: ...", "[INST]"
            r"(?:^|[.!?]\s+)(?:system|assistant|developer)\s*:",
            r"\[/?INST\]|<\|im_start\|>",
            # "new instructions:", "from now on you", "you are now", "you must always"
            r"\bnew (?:instructions?|rules)\b",
            r"\bfrom now on,? you\b",
            r"\byou (?:are|will|must|should|shall) (?:now|no longer|always|never|from now on)\b",
            # a new role: "act as", "pretend to be", "jailbreak", "developer mode"
            r"\b(?:act|behave|respond|roleplay) as (?:if|an?|the|DAN)\b",
            r"\bpretend (?:to be|you are)\b",
            r"\b(?:jailbreak|jailbroken|developer mode|DAN mode)\b",
        )
    ),
    re.IGNORECASE,
)


def refuse_instructions(text: str) -> None:
    """Raise `InvalidMemory` when `text` speaks to the assistant instead of describing the user. The
    message quotes only the words found, never the whole content."""
    found = _TO_THE_ASSISTANT.search(text)
    if found:
        words = " ".join(found.group(0).split())[:40]
        raise InvalidMemory(
            f"A memory describes the user and cannot give the assistant instructions (found {words!r}): "
            "save a fact about the user, e.g. 'User prefers short answers'"
        )
