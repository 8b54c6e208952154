"""The memory store's side of its remote procedures: the arguments a memory is sent as, and the JSON
that comes back read into memory models. Pure: no I/O, no SDK."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import numpy as np

from chats.memory.models import Memory, MemoryHit, category_of
from chats.memory.ranking import DateWindow, Floats, Ints, Ranking, Seconds, fuse, relevant, top
from chats.models import NO_FOLDER, EmbeddedText, FolderFilter
from chats.supabase.rows import moment, parse_vector

Row = Mapping[str, Any]


def tag_keys(tags: Sequence[str]) -> list[str]:
    """Tags as both stores compare them (ignoring case): the `tag_keys` column and a search's filter."""
    return [tag.casefold() for tag in tags]


def scope_params(scope: FolderFilter) -> dict[str, object]:
    """A `visible_in` scope as the procedures take it: a folder id (`p_scope`), outside folders
    (`p_no_folder`), or nothing at all (every folder)."""
    if scope is None:
        return {}
    if scope is NO_FOLDER:
        return {"p_no_folder": True}
    return {"p_scope": scope}


def memory(row: Row) -> Memory:
    content = row["content"]
    return Memory(
        id=UUID(row["id"]),
        user_id=row["user_id"],
        content=content,
        title=row["title"],
        category=category_of(row["category"]),
        tags=tuple(row["tags"]),
        importance=int(row["importance"]),
        project_id=row["project_id"],
        embedding=EmbeddedText(text=content, vector=parse_vector(row["embedding"]), model=row["embedding_model"]),
        source_chat_id=_uuid(row["source_chat_id"]),
        created_at=moment(row["created_at"]),
        updated_at=moment(row["updated_at"]),
        superseded_by=_uuid(row["superseded_by"]),
    )


def similar_hit(row: Row) -> MemoryHit:
    """One answer of `find_similar_memories`: the score is the cosine."""
    similarity = float(row["similarity"])
    return MemoryHit(memory(row["memory"]), similarity, similarity)


@dataclass(frozen=True, slots=True)
class Candidates:
    """The answer of `search_memory_candidates` as the arrays `chats.memory.ranking` scores, in the order
    of the rows' `seq` (the order the SQLite store's index holds them in, which ties break by)."""

    ids: list[UUID]
    similarity: Floats
    """Cosine to the query."""
    lexical: Floats
    """BM25 (0: no word of the query)."""
    chat: Ints
    """A number per source chat; -1: none."""
    created: Seconds
    """POSIX seconds."""

    def __len__(self) -> int:
        return len(self.ids)


def candidates(found: Sequence[Row]) -> Candidates:
    ordered = sorted(found, key=lambda row: int(row["seq"]))
    chats: dict[str, int] = {}
    return Candidates(
        ids=[UUID(row["id"]) for row in ordered],
        similarity=np.array([row["similarity"] for row in ordered], dtype=np.float32),
        lexical=np.array([row["lexical"] for row in ordered], dtype=np.float32),
        chat=np.array(
            [
                -1 if row["source_chat_id"] is None else chats.setdefault(row["source_chat_id"], len(chats))
                for row in ordered
            ],
            dtype=np.int64,
        ),
        created=np.array([moment(row["created_at"]).timestamp() for row in ordered], dtype=np.float64),
    )


@dataclass(frozen=True, slots=True)
class Ranked:
    """The memories `diversify` picks the results from, best first."""

    ids: list[UUID]
    scores: Floats
    """The fused scores."""
    similarity: Floats


def best_candidates(found: Candidates, window: DateWindow | None, ranking: Ranking, limit: int) -> Ranked:
    """The SQLite store's ranking of its whole index, over the candidates: the relevant ones, fused, the
    best `pool` (only the first `limit` when there is no diversity to compare them for)."""
    worth = np.flatnonzero(relevant(found.similarity, found.lexical, ranking))
    scores = fuse(
        found.similarity[worth],
        lexical=found.lexical[worth],
        chat=found.chat[worth],
        created=found.created[worth],
        window=window,
        ranking=ranking,
    )
    best = top(scores, max(ranking.pool, limit))
    if ranking.diversity <= 0:
        best = best[:limit]
    return Ranked([found.ids[worth[i]] for i in best], scores[best], found.similarity[worth[best]])


def _uuid(value: str | None) -> UUID | None:
    return None if value is None else UUID(value)
