"""`SupabaseMemoryStore`: long-term memories in the user's own Supabase project.

Every operation is a remote procedure of `chats/migrations/postgres/0005_memories.sql` called as the
signed-in user, so row level security keeps other users' memories out of reach; the ones that must be
atomic (add and supersede, delete with the versions it superseded) are one transaction there.

Search ranks as the SQLite store does, with the same pure functions of `chats.memory.ranking`: the
database reports the raw signals (exact cosine, and BM25 as SQLite's FTS5 computes it) of a few
candidate lists, and the ranking happens here. The lists: the `CANDIDATES` most similar memories, the
`CANDIDATES` best word matches, the `CANDIDATES` most similar saved on the date the query names, and
the memories said in the same chats as those. With at most `CANDIDATES` memories in the searched scope
that is all of them, ranked as SQLite ranks its whole index. Past that it is close: a memory in no
list is outranked by 100 others in similarity and by 100 others in words, and the results come from
the best 30 (`Ranking.pool`). Only signals travel for the candidates; vectors are read for those 30
alone, in a second call. (The word signals differ a little: Postgres's English stemmer is not FTS5's
porter, and document frequencies are over the user's memories, not the whole file.)
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from uuid import UUID

import numpy as np

from chats.errors import InvalidMemory, MemoryNotFound
from chats.memory.models import Memory, MemoryHit, Preload, category_of
from chats.memory.preload import DEFAULT_MAX_TOKENS, build_preload
from chats.memory.ranking import Ranking, date_window, diversify, memory_terms
from chats.memory.store import FIRST_PAGE, SEARCH_LIMIT_MAX, MemoryChanges, MemoryListing, MemoryQuery, NewMemory
from chats.models import EmbeddedText, FolderFilter, Vector, utc_now
from chats.supabase import memory_rows as rows
from chats.supabase.calls import SupabaseStore
from chats.supabase.connection import SupabaseConnection
from chats.supabase.errors import RemoteError
from chats.supabase.rows import vector_text

MEMORY_NOT_FOUND = "PME04"
NOT_THE_CONTENT = "PME22"
CHECK_VIOLATION = "23514"

CANDIDATES = 100
"""Memories per candidate list of a search (see the module docstring): several times `Ranking.pool`."""


class SupabaseMemoryStore(SupabaseStore):
    what = "memory"

    def __init__(
        self,
        connection: SupabaseConnection,
        *,
        clock: Callable[[], datetime] = utc_now,
        ranking: Ranking = Ranking(),  # noqa: B008 - frozen, so one shared default is safe
        candidates: int = CANDIDATES,
        owns_connection: bool = False,
    ) -> None:
        """As `SupabaseStore`; `candidates` is the length of each candidate list a search reads (see the
        module docstring)."""
        super().__init__(connection, clock=clock, owns_connection=owns_connection)
        self._ranking = ranking
        self._candidates = candidates

    async def add(self, memory: NewMemory) -> Memory:
        memory = memory.checked()
        row = await self._call(
            "add_memory",
            {
                "p_id": str(memory.memory_id or uuid.uuid4()),
                "p_content": memory.content.text,
                "p_category": memory.category,
                "p_importance": memory.importance,
                "p_embedding": vector_text(memory.content.vector),
                "p_model": memory.content.model,
                "p_title": memory.title,
                "p_tags": list(memory.tags),
                "p_tag_keys": rows.tag_keys(memory.tags),
                "p_project_id": memory.project_id,
                "p_source_chat_id": None if memory.source_chat_id is None else str(memory.source_chat_id),
                "p_supersedes": [str(older) for older in memory.supersedes],
                "p_now": self._now(),
            },
        )
        return rows.memory(row)

    async def get(self, memory_id: UUID, *, scope: FolderFilter = None) -> Memory:
        return rows.memory(await self._call("get_memory", {"p_id": str(memory_id), **rows.scope_params(scope)}))

    async def update(self, memory_id: UUID, changes: MemoryChanges, *, scope: FolderFilter = None) -> Memory:
        changes = changes.checked()
        params: dict[str, object] = {"p_id": str(memory_id), **rows.scope_params(scope)}
        if changes.content is not None:
            params |= {
                "p_content": changes.content.text,
                "p_embedding": vector_text(changes.content.vector),
                "p_model": changes.content.model,
            }
        if changes.category is not None:
            params["p_category"] = changes.category
        if changes.importance is not None:
            params["p_importance"] = changes.importance
        if changes.sets_title:
            params |= {"p_set_title": True, "p_title": changes.title}
        if changes.tags is not None:
            params |= {"p_tags": list(changes.tags), "p_tag_keys": rows.tag_keys(changes.tags)}
        params["p_now"] = self._now()
        return rows.memory(await self._call("update_memory", params))

    async def delete(self, memory_id: UUID, *, scope: FolderFilter = None) -> int:
        return int(await self._call("delete_memory", {"p_id": str(memory_id), **rows.scope_params(scope)}))

    async def list_memories(self, listing: MemoryListing = FIRST_PAGE) -> list[Memory]:
        params: dict[str, object] = {
            "p_limit": listing.limit,
            "p_offset": listing.offset,
            "p_include_superseded": listing.include_superseded,
            **rows.scope_params(listing.scope),
        }
        if listing.category is not None:
            params["p_category"] = category_of(listing.category)
        return [rows.memory(row) for row in await self._call("list_memories", params)]

    async def count(self, *, include_superseded: bool = False) -> int:
        return int(await self._call("count_memories", {"p_include_superseded": include_superseded}))

    async def search(self, query: MemoryQuery) -> list[MemoryHit]:
        if not 1 <= query.limit <= SEARCH_LIMIT_MAX:
            raise InvalidMemory(f"limit must be between 1 and {SEARCH_LIMIT_MAX}, not {query.limit}")
        ranking = query.ranking(self._ranking)
        window = date_window(query.text)
        params: dict[str, object] = {
            "query_embedding": vector_text(query.vector),
            "model_name": query.model,
            "query_terms": memory_terms(query.text, prefixes=False),  # Postgres drops FTS prefix marks
            "match_count": max(self._candidates, query.limit),
            "p_tag_keys": rows.tag_keys(query.tags),
            **rows.scope_params(query.scope),
        }
        if query.category is not None:
            params["p_category"] = category_of(query.category)
        if window is not None and ranking.date_weight:
            until = window.end + timedelta(days=ranking.date_grace_days)
            params |= {"p_created_from": window.start.isoformat(), "p_created_until": until.isoformat()}
        found = rows.candidates(await self._call("search_memory_candidates", params))
        ranked = rows.best_candidates(found, window, ranking, query.limit)
        fetched = {m.id: m for m in await self._memories(ranked.ids)}
        kept = [i for i, memory_id in enumerate(ranked.ids) if memory_id in fetched]  # not deleted meanwhile
        if not kept:
            return []
        members = [fetched[ranked.ids[i]] for i in kept]
        vectors = np.stack([m.embedding.vector for m in members]).astype(np.float32)
        picked = diversify(ranked.scores[kept], vectors, query.limit, ranking.diversity)
        return [MemoryHit(members[p], float(ranked.scores[kept[p]]), float(ranked.similarity[kept[p]])) for p in picked]

    async def _memories(self, ids: Sequence[UUID]) -> list[Memory]:
        if not ids:
            return []
        return [rows.memory(row) for row in await self._call("get_memories", {"p_ids": [str(i) for i in ids]})]

    async def find_similar(
        self, vector: Vector, model: str, *, scope: FolderFilter, limit: int = 10, min_similarity: float = 0.0
    ) -> list[MemoryHit]:
        if limit <= 0:
            return []
        found = await self._call(
            "find_similar_memories",
            {
                "query_embedding": vector_text(vector),
                "model_name": model,
                "match_count": limit,
                "min_similarity": min_similarity,
                **rows.scope_params(scope),
            },
        )
        return [rows.similar_hit(row) for row in found]

    async def preload(self, max_tokens: int = DEFAULT_MAX_TOKENS) -> Preload:
        return build_preload([rows.memory(row) for row in await self._call("preload_memories", {})], max_tokens)

    async def export(self) -> list[Memory]:
        return [rows.memory(row) for row in await self._call("export_memories", {})]

    async def embedded_texts(self) -> list[tuple[UUID, EmbeddedText]]:
        return [(memory.id, memory.embedding) for memory in await self.export()]

    async def set_embedding(self, memory_id: UUID, value: EmbeddedText) -> None:
        await self._call(
            "set_memory_embedding",
            {
                "p_id": str(memory_id),
                "p_text": value.text,
                "p_embedding": vector_text(value.vector),
                "p_model": value.model,
            },
        )

    def _domain_error(self, function: str, error: RemoteError) -> Exception:
        if error.code == MEMORY_NOT_FOUND:
            detail = str(error.details) if error.details is not None else ""
            try:
                return MemoryNotFound(UUID(detail))
            except ValueError:
                return MemoryNotFound(detail)
        if error.code in (NOT_THE_CONTENT, CHECK_VIOLATION):
            # A check the client makes first (chats/memory/models.py) answers before the table's own does;
            # the table's message is the fallback should the two ever disagree.
            return InvalidMemory(error.message)
        return super()._domain_error(function, error)
