"""How important a memory is (spec 001): a base by category, moved by what the fact and its reason say.

Base: identity 10, preference 9, relationship 8, project 7, context 5.
Boosts: +2 when the user asked to remember it, +1 for specific details (names, numbers, dates),
+1 for a long-term goal. Reductions: -2 for a vague statement, -2 for temporary context.
The result is clamped to `IMPORTANCE_MIN`..`IMPORTANCE_MAX`, so an identity fact cannot climb past 10
and a vague, temporary context note still counts 1.
"""

from __future__ import annotations

import re

from chats.errors import InvalidMemory
from chats.memory.models import Category
from chats.memory.text import names, numbers

IMPORTANCE_MIN = 1
IMPORTANCE_MAX = 10
BASE: dict[Category, int] = {"identity": 10, "preference": 9, "relationship": 8, "project": 7, "context": 5}
EXPLICIT_REQUEST = 2
SPECIFIC_DETAILS = 1
LONG_TERM_GOAL = 1
VAGUE = -2
TEMPORARY = -2


def checked_importance(value: int) -> int:
    """`value`, when it is an importance a memory may be given."""
    if not IMPORTANCE_MIN <= value <= IMPORTANCE_MAX:
        raise InvalidMemory(f"importance is {IMPORTANCE_MIN} to {IMPORTANCE_MAX}, not {value}")
    return value


def _any_of(*phrases: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(phrases) + r")\b", re.IGNORECASE)


_ASKED = _any_of(
    r"remember (?:this|that)",
    r"don['\u2019]t forget",
    r"do not forget",
    r"keep in mind",
    r"save (?:this|that)",
    r"note (?:this|that)",
    r"explicitly",
    r"asked (?:me )?to (?:remember|save|note)",
    r"important",
)
_GOAL = _any_of(
    r"long[- ]term",
    r"goals?",
    r"aims? to",
    r"dreams? of",
    r"plans? to",
    r"planning to",
    r"wants? to become",
    r"career",
    r"ambitions?",
    r"working towards?",
)
_VAGUE = _any_of(
    r"might",
    r"maybe",
    r"perhaps",
    r"possibly",
    r"someday",
    r"some day",
    r"not sure",
    r"unsure",
    r"thinking about",
    r"considering",
    r"sort of",
    r"kind of",
)
_TEMPORARY = _any_of(
    r"today",
    r"tonight",
    r"this (?:morning|afternoon|evening|week|weekend)",
    r"right now",
    r"at the moment",
    r"for now",
    r"temporarily",
    r"this time",
)


def asks_to_remember(text: str) -> bool:
    """Whether `text` (the user's words, or the model's reasoning) says the user asked to keep it."""
    return bool(_ASKED.search(text))


def has_specific_details(content: str) -> bool:
    return bool(numbers(content) or names(content))


def importance(category: Category, content: str, reasoning: str = "", explicit_request: bool = False) -> int:
    """Spec 001's score. `explicit_request` comes from the tool (the user said "remember ..."); a
    reasoning that says so counts too."""
    score = BASE[category]
    if explicit_request or asks_to_remember(reasoning):
        score += EXPLICIT_REQUEST
    if has_specific_details(content):
        score += SPECIFIC_DETAILS
    both = f"{content} {reasoning}"
    if _GOAL.search(both):
        score += LONG_TERM_GOAL
    if _VAGUE.search(content):
        score += VAGUE
    if _TEMPORARY.search(content):
        score += TEMPORARY
    return max(IMPORTANCE_MIN, min(IMPORTANCE_MAX, score))
