"""Questions about what is saved as a whole: "what do you know about me", "tell me what you remember about
me", "what have I told you about my family", in every supported language.

Searched as they are, such questions match nothing (their words are all about asking) or match by chance
("me" finds one memory of three). So `search_memories` lists instead when its query is made only of words
that ask (`filler`) and of words that name a part of the user's life (`parts`: "family", "work", "hobbies",
by memory category); the memories of those parts come first. The words are data, per language, in
`languages/<code>/requests.toml` (`[memory_questions]`); a query is read against every language's at
once, because a tool call does not say which language the user speaks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.offline.phrases import normalised
from chats.memory.importance import IMPORTANCE_MAX
from chats.memory.models import Category, Memory, MemoryHit, category_of
from chats.memory.service import most_important_first
from languages.registry import SUPPORTED, table, words

FILLER: frozenset[str] = frozenset(
    word for code in SUPPORTED for word in words(table(code)["memory_questions"]["filler"])
)
"""The words that ask about memories without naming what: "what", "know", "remember", "me", "sai", "mich"."""
MY: frozenset[str] = frozenset(word for code in SUPPORTED for word in words(table(code)["memory_questions"]["my"]))
""""my", "mia", "meine": filler beside a part ("my family"), a name on their own ("Mia")."""
PARTS: Mapping[str, Category] = {
    word: category_of(category)
    for code in SUPPORTED
    for category, said in table(code)["memory_questions"]["parts"].items()
    for word in words(said)
}
"""A word naming a part of the user's life -> the category of the memories about it ("family" -> relationship)."""


@dataclass(frozen=True, slots=True)
class BroadQuestion:
    """A question about everything saved, or about whole parts of the user's life."""

    parts: frozenset[str]
    """The words that named the parts asked about ("family"); empty: everything alike."""

    @property
    def categories(self) -> frozenset[Category]:
        return frozenset(PARTS[word] for word in self.parts)

    def about(self, memory: Memory) -> bool:
        """Whether `memory` is about a part asked for: of its category, or naming it ("User's family
        visits in June")."""
        return memory.category in self.categories or not self.parts.isdisjoint(_words(memory.content))


def broad_question(query: str) -> BroadQuestion | None:
    """The broad question `query` asks, or None for a query that names something to search for."""
    named = [word for word in _words(query) if word not in FILLER]
    parts = frozenset(word for word in named if word in PARTS)
    if any(word not in PARTS and not (parts and word in MY) for word in named):
        return None
    return BroadQuestion(parts)


def overview(broad: BroadQuestion, saved: Sequence[Memory], limit: int) -> list[MemoryHit]:
    """What `broad` answers: the `limit` most important of the `saved` memories, those about the parts it
    asks for first, as hits scored by their importance (the tool and `parley memories search` alike)."""
    listed = most_important_first(saved, broad.about)[:limit]
    return [MemoryHit(memory, memory.importance / IMPORTANCE_MAX, 0.0) for memory in listed]


def _words(text: str) -> list[str]:
    """Lower-case words, an elided article's apostrophe dropped ("l'utente" -> "l", "utente"), without
    single letters ("user's" -> "user")."""
    found = (token.rstrip("'") for token in normalised(text).split())
    return [word for word in found if len(word) > 1]
