"""The memory use cases the tools, the CLI and the window call: save, add, search, update, forget.

`plan_save` is the pure decision (duplicate? which older facts does it supersede?); `MemoryService`
is the thin async shell that embeds, asks the store for candidates and writes.

Saving follows spec 001's steps: validate (content 10..500 characters, category, reasoning 10..200),
make the content third person (`chats.memory.text.third_person`), embed, look for a duplicate among
the memories visible from the chat's folder (`chats.memory.duplicates`), find the older facts it
contradicts (`chats.memory.supersede`), score its importance, and keep it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal
from uuid import UUID

import numpy as np

from chats.embedders.embedding import Embedder, embed_named, embed_one
from chats.embedders.local_models import OtherLanguages
from chats.errors import InvalidMemory
from chats.memory.duplicates import Reason, judge_duplicate
from chats.memory.importance import importance
from chats.memory.models import (
    Category,
    Memory,
    MemoryHit,
    category_of,
    clean_tags,
    clean_title,
    scope_of,
    spec_category,
)
from chats.memory.preload import importance_order
from chats.memory.ranking import memory_ranking_for
from chats.memory.store import (
    SEARCH_LIMIT_MAX,
    UNCHANGED,
    MemoryChanges,
    MemoryListing,
    MemoryQuery,
    MemoryStore,
    NewMemory,
    Unchanged,
)
from chats.memory.supersede import contradicts, restates
from chats.memory.text import third_person
from chats.models import EmbeddedText, FolderFilter, search_query
from chats.storable_text import REPLACEMENT, storable_text

REASONING_MIN = 10
REASONING_MAX = 200
"""Spec 001's limits on `reasoning`, in characters once stripped."""
CANDIDATES = 10
"""Most similar memories checked for a duplicate or a contradiction."""
CANDIDATE_MIN_SIMILARITY = 0.25
"""Below this cosine, two MiniLM facts are about different things. Contradictions need a low line:
"User lives in Berlin" and "User moved to Paris" score 0.52, "User started working at Hooli" and "User has
a job at Stark" 0.37 (`bench/month.py` met it); duplicates start at 0.85, restatements at
`supersede.RESTATEMENT_SIMILARITY` (0.7) or lower when the new fact says nothing more."""


@dataclass(frozen=True, slots=True)
class Saved:
    memory: Memory
    superseded: tuple[Memory, ...]
    """Older memories the new one contradicted, now marked superseded by it."""


@dataclass(frozen=True, slots=True)
class Duplicate:
    existing: Memory
    similarity: float
    reason: Reason


FORGET_MIN_SIMILARITY = 0.2
"""`forget_memory("where I work")`: a memory less similar than this is not what the user means (MiniLM
scores "where I work" / "User works at Google as a designer" 0.25, an unrelated fact below 0.1)."""
FORGET_CLOSE = 0.1
"""Another memory within this much similarity of the best one is a real alternative: ask which."""


@dataclass(frozen=True, slots=True)
class ForgetChoice:
    outcome: Literal["forget", "ask", "none"]
    """`forget`: one clear match (the first option); `ask`: several close ones; `none`: nothing fits."""
    options: tuple[Memory, ...]


def choose_to_forget(hits: Sequence[MemoryHit]) -> ForgetChoice:
    """Which memory "forget where I work" means, from search hits: by similarity alone, because
    deleting the wrong fact is worse than asking."""
    relevant = sorted((h for h in hits if h.similarity >= FORGET_MIN_SIMILARITY), key=lambda h: -h.similarity)
    if not relevant:
        return ForgetChoice("none", ())
    close = [h for h in relevant if h.similarity >= relevant[0].similarity - FORGET_CLOSE]
    return ForgetChoice("forget" if len(close) == 1 else "ask", tuple(h.memory for h in close))


@dataclass(frozen=True, slots=True)
class SavePlan:
    duplicate: Duplicate | None
    supersedes: tuple[Memory, ...]


def plan_save(content: str, category: Category, candidates: Sequence[MemoryHit]) -> SavePlan:
    """What saving `content` should do, given the most similar current memories (`score` the cosine)."""
    for hit in candidates:
        verdict = judge_duplicate(content, hit.memory.content, hit.similarity)
        if verdict.duplicate:
            return SavePlan(Duplicate(hit.memory, hit.similarity, verdict.reason), ())
        if verdict.reason == "not similar" and restates(
            content, category, hit.memory.content, hit.memory.category, hit.similarity
        ):
            return SavePlan(Duplicate(hit.memory, hit.similarity, "same fact"), ())
    older = tuple(
        hit.memory for hit in candidates if contradicts(content, category, hit.memory.content, hit.memory.category)
    )
    return SavePlan(None, older)


LISTING_PAGE = 200
"""Memories read per page when every saved one is listed."""


def most_important_first(memories: Sequence[Memory], first: Callable[[Memory], bool] = lambda _: False) -> list[Memory]:
    """`memories` in the order "what do you know about me" answers: those `first` picks, then the rest, each
    most important first (then identity before preference..., then the oldest: `importance_order`)."""
    return sorted(memories, key=lambda memory: (not first(memory), *importance_order(memory)))


def storable_content(content: str) -> str:
    """`content` with any surrogate pair split in two joined again (`storable_text`); `InvalidMemory` for a
    lone surrogate, which no store can hold and which the model had better say again than Parley guess."""
    text = storable_text(content)
    if text.count(REPLACEMENT) > content.count(REPLACEMENT):
        raise InvalidMemory("Content holds a character that is not text (a lone surrogate): save it without it")
    return text


def check_reasoning(reasoning: str) -> str:
    reasoning = " ".join(reasoning.split())
    if not REASONING_MIN <= len(reasoning) <= REASONING_MAX:
        raise InvalidMemory(f"reasoning must be {REASONING_MIN} to {REASONING_MAX} characters, not {len(reasoning)}")
    return reasoning


class MemoryService:
    def __init__(self, store: MemoryStore, embedder: Embedder, other_languages: OtherLanguages | None = None) -> None:
        """`other_languages`: what embeds a fact `embedder` cannot read (`chats.embedders.local_models`);
        a search then asks each model that holds memories, each with its own floor."""
        self._store = store
        self._embedder = embedder
        self._other = other_languages

    @property
    def store(self) -> MemoryStore:
        return self._store

    def embedder_for(self, fact: str) -> Embedder:
        """The embedder of `fact`: the service's, or the other languages' for a fact it cannot read."""
        return self._other.embedder if self._other is not None and self._other.takes(fact) else self._embedder

    async def embedded(self, facts: Sequence[str]) -> list[EmbeddedText]:
        """Each of `facts` embedded by its embedder (`embedder_for`), a batch per embedder (an import's)."""
        chosen = [self.embedder_for(fact) for fact in facts]
        found: dict[int, EmbeddedText] = {}
        for embedder in {id(e): e for e in chosen}.values():
            mine = [i for i, e in enumerate(chosen) if e is embedder]
            done = await embed_named(embedder, [facts[i] for i in mine])
            found |= {
                i: EmbeddedText(facts[i], vector, done.model) for i, vector in zip(mine, done.matrix, strict=True)
            }
        return [found[i] for i in range(len(facts))]

    async def save(
        self,
        content: str,
        category: str,
        reasoning: str,
        *,
        project_id: str | None,
        source_chat_id: UUID | None = None,
        explicit_request: bool = False,
        title: str | None = None,
        tags: Sequence[str] = (),
    ) -> Saved | Duplicate:
        """Spec 001's `save_memory`. Raises `InvalidMemory` (its message is for the model),
        `EmbeddingError` and `StoreUnavailable`."""
        return await self._remember(
            third_person(storable_content(content)),
            category_of(category),
            check_reasoning(reasoning),
            project_id=project_id,
            source_chat_id=source_chat_id,
            explicit_request=explicit_request,
            title=title,
            tags=tags,
        )

    async def add(
        self,
        content: str,
        *,
        project_id: str | None,
        category: str | None = None,
        title: str | None = None,
        tags: Sequence[str] = (),
        source_chat_id: UUID | None = None,
    ) -> Saved | Duplicate:
        """Spec 000's `add_memory(content, metadata?)`: the same rules, no reasoning; the category is
        one of the five kinds, or any name (`models.spec_category`), and defaults to context."""
        kind, tags = spec_category(category, clean_tags(tags))
        return await self._remember(
            third_person(storable_content(content)),
            kind or "context",
            "",
            project_id=project_id,
            source_chat_id=source_chat_id,
            explicit_request=False,
            title=title,
            tags=tags,
        )

    async def _remember(
        self,
        content: str,
        category: Category,
        reasoning: str,
        *,
        project_id: str | None,
        source_chat_id: UUID | None,
        explicit_request: bool,
        title: str | None,
        tags: Sequence[str],
    ) -> Saved | Duplicate:
        title, tags = clean_title(title), clean_tags(tags)
        embedded = await embed_one(self.embedder_for(content), content)
        candidates = await self._store.find_similar(
            embedded.vector,
            embedded.model,
            scope=scope_of(project_id),
            limit=CANDIDATES,
            min_similarity=CANDIDATE_MIN_SIMILARITY,
        )
        plan = plan_save(content, category, candidates)
        if plan.duplicate is not None:
            return plan.duplicate
        memory = await self._store.add(
            NewMemory(
                content=embedded,
                category=category,
                importance=importance(category, content, reasoning, explicit_request),
                title=title,
                tags=tags,
                project_id=project_id,
                source_chat_id=source_chat_id,
                supersedes=[older.id for older in plan.supersedes],
            )
        )
        return Saved(memory, plan.supersedes)

    async def search(
        self,
        query: str,
        *,
        scope: FolderFilter,
        limit: int = 5,
        category: str | None = None,
        tags: Sequence[str] = (),
    ) -> list[MemoryHit]:
        """Spec 000's `search_memories`: the best current memories visible from `scope`."""
        if not 1 <= limit <= SEARCH_LIMIT_MAX:
            raise InvalidMemory(f"limit must be between 1 and {SEARCH_LIMIT_MAX}, not {limit}")
        kind, tags = spec_category(category, clean_tags(tags))
        query = search_query(query)
        found: dict[UUID, MemoryHit] = {}
        for embedder in await self._searched(scope):
            embedded = await embed_one(embedder, query)
            asked = MemoryQuery(
                vector=embedded.vector,
                model=embedded.model,
                text=query,
                scope=scope,
                limit=limit,
                category=kind,
                tags=tags,
                min_similarity=memory_ranking_for(embedded.model).min_similarity,
            )
            found |= {hit.memory.id: hit for hit in await self._store.search(asked)}
        # Each model's own ranking, then the best of them: their scores are cosines and shares of one BM25.
        return sorted(found.values(), key=lambda hit: -hit.score)[:limit]

    async def _searched(self, scope: FolderFilter) -> list[Embedder]:
        """The embedders a search asks: the service's, and the other languages' when a memory visible from
        `scope` is of its model (asked with any unit vector: its weights load only then)."""
        if self._other is None:
            return [self._embedder]
        other = self._other.embedder
        probe = np.eye(1, other.dimensions, dtype=np.float32)[0]
        held = await self._store.find_similar(probe, other.model_name, scope=scope, limit=1, min_similarity=-2.0)
        return [self._embedder, other] if held else [self._embedder]

    async def saved(
        self, *, scope: FolderFilter, category: str | None = None, tags: Sequence[str] = ()
    ) -> list[Memory]:
        """Every current memory visible from `scope` (of `category`, carrying every one of `tags`, as
        `search` filters), in no set order: what "what do you know about me" lists, and how many are kept."""
        kind, tags = spec_category(category, clean_tags(tags))
        wanted = {tag.casefold() for tag in tags}
        found: list[Memory] = []
        while True:
            page = await self._store.list_memories(
                MemoryListing(category=kind, scope=scope, limit=LISTING_PAGE, offset=len(found))
            )
            found += page
            if len(page) < LISTING_PAGE:
                return [memory for memory in found if wanted <= {tag.casefold() for tag in memory.tags}]

    async def update(
        self,
        memory_id: UUID,
        *,
        content: str | None = None,
        category: str | None = None,
        title: str | Unchanged | None = UNCHANGED,
        tags: Sequence[str] | None = None,
        scope: FolderFilter = None,
    ) -> Memory:
        """Edit a memory (the Memory page): new content is made third person and re-embedded, and the
        importance is scored again when the content or the category changes."""
        current = await self._store.get(memory_id, scope=scope)
        new_category = current.category if category is None else category_of(category)
        text = None if content is None else third_person(storable_content(content))
        embedded = None if text is None else await embed_one(self.embedder_for(text), text)
        rescored = None
        if text is not None or new_category != current.category:
            rescored = importance(new_category, text or current.content)
        changes = MemoryChanges(
            content=embedded,
            category=None if category is None else new_category,
            importance=rescored,
            title=title,
            tags=tags,
        )
        return await self._store.update(memory_id, changes, scope=scope)

    async def find_to_forget(self, query: str, *, scope: FolderFilter) -> ForgetChoice:
        """The memory a spoken "forget ..." means (nothing is deleted here: the tool deletes the one
        clear match with `forget`, or asks about the options)."""
        return choose_to_forget(await self.search(query, scope=scope, limit=SEARCH_LIMIT_MAX))

    async def forget(self, memory_id: UUID, *, scope: FolderFilter = None) -> int:
        """Delete a memory (and the older versions it superseded); raises `MemoryNotFound`."""
        return await self._store.delete(memory_id, scope=scope)
