"""The `MemoryStore` protocol every backend implements, and the query it answers.

A store instance is bound to one user, like `ChatStore`: it never returns, changes or counts another
user's memories. Within the user, `scope` arguments apply the folder rule of `chats.memory.models`
(`visible_in`): project and context memories stay in their folder's pool, personal ones are seen
everywhere. A store never embeds: the caller (`chats.memory.service`) hands it `EmbeddedText`s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol
from uuid import UUID

from chats.memory.importance import checked_importance
from chats.memory.models import (
    Category,
    Memory,
    MemoryHit,
    Preload,
    category_of,
    clean_content,
    clean_tags,
    clean_title,
)
from chats.memory.preload import DEFAULT_MAX_TOKENS
from chats.memory.ranking import Ranking
from chats.models import EmbeddedText, FolderFilter, Vector

SEARCH_LIMIT_MAX = 10
"""Spec 000: `search_memories` returns 1..10 results."""


@dataclass(frozen=True, slots=True)
class MemoryQuery:
    vector: Vector = field(repr=False)
    model: str
    """Only memories embedded by this model are compared by similarity."""
    text: str
    """The query words, for the lexical signal and the dates it names."""
    scope: FolderFilter
    """The folder of the chat asking (an id), `NO_FOLDER` for a chat in no folder, or None for every
    folder (the Memory page). There is no default: a tool must say where it asks from."""
    limit: int = 5
    """1..`SEARCH_LIMIT_MAX`."""
    category: Category | None = None
    tags: tuple[str, ...] = ()
    """Only memories carrying every one of these tags (ignoring case)."""
    min_similarity: float | None = None
    """The floor of `model`'s cosines (`chats.memory.ranking.memory_ranking_for`); None: the store's ranking's."""

    def ranking(self, ranking: Ranking) -> Ranking:
        """The store's `ranking`, with this query's floor."""
        return ranking if self.min_similarity is None else replace(ranking, min_similarity=self.min_similarity)


class Unchanged:
    """The type of `UNCHANGED`: an `update` argument left as it is."""


UNCHANGED = Unchanged()


@dataclass(frozen=True, slots=True)
class MemoryListing:
    """Which memories `MemoryStore.list_memories` lists (newest first), and which page of them."""

    category: Category | None = None
    scope: FolderFilter = None
    """As `MemoryQuery.scope`; None here is every folder."""
    include_superseded: bool = False
    limit: int = 50
    offset: int = 0


FIRST_PAGE = MemoryListing()
"""The newest current memories of every folder."""


@dataclass(frozen=True, slots=True)
class NewMemory:
    """A memory for `MemoryStore.add` to keep: what the caller knows of it (the store stamps the times)."""

    content: EmbeddedText = field(repr=False)
    """The fact (`content.text`) with its embedding."""
    category: Category
    importance: int
    title: str | None = None
    tags: Sequence[str] = ()
    project_id: str | None = None
    """The folder it is said in; None outside folders."""
    source_chat_id: UUID | None = None
    supersedes: Sequence[UUID] = ()
    """Older memories of the same user that this one replaces (others are ignored)."""
    memory_id: UUID | None = None
    """The id to keep it under (a copy from another store or an export keeps its id, so that copying it
    again finds it); None for a new one."""

    def checked(self) -> NewMemory:
        """The same memory as a store keeps it: validated (`InvalidMemory`), the title, category, tags
        and importance in their stored form. Every store checks the same way, before writing anything."""
        clean_content(self.content)
        return replace(
            self,
            title=clean_title(self.title),
            category=category_of(self.category),
            tags=clean_tags(self.tags),
            importance=checked_importance(self.importance),
        )


@dataclass(frozen=True, slots=True)
class MemoryChanges:
    """What `MemoryStore.update` changes: None leaves a field as it is (`UNCHANGED` for the title, whose
    None clears it). No change at all still moves `updated_at` on."""

    content: EmbeddedText | None = field(default=None, repr=False)
    """New content, already embedded."""
    category: Category | None = None
    importance: int | None = None
    title: str | Unchanged | None = UNCHANGED
    tags: Sequence[str] | None = None

    @property
    def sets_title(self) -> bool:
        """Whether the title changes: to a new one, or to none."""
        return not isinstance(self.title, Unchanged)

    def checked(self) -> MemoryChanges:
        """The same changes as a store writes them: validated (`InvalidMemory`) and in their stored form."""
        if self.content is not None:
            clean_content(self.content)
        return replace(
            self,
            category=None if self.category is None else category_of(self.category),
            importance=None if self.importance is None else checked_importance(self.importance),
            title=self.title if isinstance(self.title, Unchanged) else clean_title(self.title),
            tags=None if self.tags is None else clean_tags(self.tags),
        )


class MemoryStore(Protocol):
    @property
    def user_id(self) -> str: ...

    async def add(self, memory: NewMemory) -> Memory:
        """Keep `memory` (validated: `InvalidMemory`), and in the same transaction mark the memories it
        supersedes as superseded by it. An id it is given must not be taken yet."""
        ...

    async def get(self, memory_id: UUID, *, scope: FolderFilter = None) -> Memory:
        """The memory, superseded or not; raises `MemoryNotFound` when the user has none with this id
        visible from `scope`."""
        ...

    async def update(self, memory_id: UUID, changes: MemoryChanges, *, scope: FolderFilter = None) -> Memory:
        """Make the `changes` (validated: `InvalidMemory`) and move `updated_at` on; raises `MemoryNotFound`
        like `get`."""
        ...

    async def delete(self, memory_id: UUID, *, scope: FolderFilter = None) -> int:
        """Forget the memory and the older memories it superseded (they were versions of the same
        fact: forgetting "works at Meta" must not bring back "works at Google"). Returns how many
        memories went; raises `MemoryNotFound` like `get`."""
        ...

    async def list_memories(self, listing: MemoryListing = FIRST_PAGE) -> list[Memory]:
        """Newest first."""
        ...

    async def count(self, *, include_superseded: bool = False) -> int: ...

    async def search(self, query: MemoryQuery) -> list[MemoryHit]:
        """The best current (not superseded) memories for the query, ranked by the store's
        `chats.memory.ranking.Ranking` (picked best first; with diversity on, a later hit may carry a
        higher `score` than an earlier one). Memories embedded by another model than the query's are
        not searched: re-embed them (`embedded_texts`, `set_embedding`)."""
        ...

    async def find_similar(
        self, vector: Vector, model: str, *, scope: FolderFilter, limit: int = 10, min_similarity: float = 0.0
    ) -> list[MemoryHit]:
        """Current memories visible from `scope` by cosine similarity alone, most similar first:
        the candidates for duplicate and contradiction checks. `score` is the cosine."""
        ...

    async def preload(self, max_tokens: int = DEFAULT_MAX_TOKENS) -> Preload:
        """The block of personal memories for the system prompt (`chats.memory.preload`)."""
        ...

    async def export(self) -> list[Memory]:
        """Every memory of the user, superseded ones included, oldest first."""
        ...

    async def embedded_texts(self) -> list[tuple[UUID, EmbeddedText]]:
        """Every memory's embedding, for re-embedding with another model."""
        ...

    async def set_embedding(self, memory_id: UUID, value: EmbeddedText) -> None:
        """Replace a memory's embedding (its text must be the content); `updated_at` is kept."""
        ...

    async def close(self) -> None: ...
