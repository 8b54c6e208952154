"""Which of spec 001's categories a fact said in the user's own words belongs to, when nothing else says:
the offline voice (which has no model to choose) and `parley memories add` without `--category`.

Words decide (each language's `[categories]` in `languages/<code>/words.toml`), first match wins: what the
user eats or cannot eat (preference: a diet is durable and shapes every suggestion, so it is pre-loaded like
any preference, never left in context), who they are (identity), the people in their life (relationship),
likes and dislikes (preference), what they are making (project), else context. Identity, preference and
relationship are pre-loaded into every conversation (`chats.memory.preload`); project and context are
searched when they matter.
"""

from __future__ import annotations

import re

from chats.memory.models import Category
from languages.registry import SUPPORTED, table

_ORDER: tuple[tuple[Category, str], ...] = (
    ("preference", "diet"),
    ("identity", "identity"),
    ("relationship", "relationship"),
    ("preference", "preference"),
    ("project", "project"),
)
"""Each category and the key of `[categories]` that names it, in the order they are tried."""
_CATEGORY_WORDS: tuple[tuple[Category, re.Pattern[str]], ...] = tuple(
    (name, re.compile(r"\b(" + "|".join(table(code)["categories"][key] for code in SUPPORTED) + r")\b", re.I))
    for name, key in _ORDER
)
"""A fact in any language is matched against every language's words: who says "mia moglie" may have
English set, and the offline voice guesses before it knows."""


def guess_category(words: str) -> Category:
    """The category of a fact from its words (the user's, or already in the third person)."""
    return next((name for name, pattern in _CATEGORY_WORDS if pattern.search(words)), "context")
