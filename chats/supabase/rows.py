"""The JSON the chat store's remote procedures answer, read into chats models (and vectors written for
them). Pure: no I/O, no SDK."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any
from uuid import UUID

import numpy as np

from chats.models import AssistantContext, Chat, ChatInfo, EmbeddedText, Folder, Vector, turns_from_json
from chats.store import (
    AppendResult,
    ChatExcerpt,
    EmbeddingKind,
    PendingTurn,
    SearchCandidate,
    TurnCandidate,
    TurnVector,
    WorkingMemoryRecord,
)

Row = Mapping[str, Any]


def vector_text(vector: Vector) -> str:
    """pgvector's text form. Each float32 widens to a double exactly, and pgvector narrows it back to the
    same float32, so a vector round-trips bit for bit."""
    return json.dumps([float(x) for x in np.asarray(vector, dtype=np.float32)])


def parse_vector(text: str) -> Vector:
    """pgvector's text form (`[0.1,0.2,...]`, as PostgREST sends a vector) as a float32 array."""
    return np.asarray(json.loads(text), dtype=np.float32)


def embedded(text: str | None, vector: str | None, model: str | None) -> EmbeddedText | None:
    if text is None or vector is None or model is None:
        return None
    return EmbeddedText(text=text, vector=parse_vector(vector), model=model)


def moment(value: str) -> datetime:
    """A `timestamptz` as JSON gives it (ISO 8601 with an offset)."""
    return datetime.fromisoformat(value)


def chat(row: Row) -> Chat:
    return Chat(
        id=UUID(row["id"]),
        user_id=row["user_id"],
        project_id=row["project_id"],
        title=row["title"],
        full_history=turns_from_json(row["full_history"]),
        assistant_history=turns_from_json(row["assistant_history"]),
        summary=embedded(row["summary_text"], row["summary_embedding"], row["summary_model"]),
        last_activity_at=moment(row["last_activity_at"]),
        created_at=moment(row["created_at"]),
        version=row["version"],
    )


def assistant_context(chat_id: UUID, row: Row) -> AssistantContext:
    return AssistantContext(
        chat_id=chat_id,
        title=row["title"],
        project_id=row["project_id"],
        memory_enabled=bool(row["memory_enabled"]),
        assistant_history=turns_from_json(row["assistant_history"]),
        summary=embedded(row["summary_text"], row["summary_embedding"], row["summary_model"]),
        topic=embedded(row["topic_text"], row["topic_embedding"], row["topic_model"]),
        version=row["version"],
    )


def chat_info(row: Row) -> ChatInfo:
    return ChatInfo(
        id=UUID(row["id"]),
        title=row["title"],
        project_id=row["project_id"],
        summary_text=row["summary_text"],
        turn_count=row["turn_count"],
        last_activity_at=moment(row["last_activity_at"]),
        created_at=moment(row["created_at"]),
    )


def folder(row: Row) -> Folder:
    return Folder(id=row["id"], name=row["name"], created_at=moment(row["created_at"]), chats=int(row["chats"]))


def append_result(row: Row) -> AppendResult:
    return AppendResult(
        version=row["version"],
        assistant_turns=row["assistant_turns"],
        full_turns=row["full_turns"],
        appended=row["appended"],
    )


def search_candidate(row: Row) -> SearchCandidate:
    return SearchCandidate(
        chat_id=UUID(row["chat_id"]),
        title=row["title"],
        similarity=similarity(row),
        lexical=float(row["lexical"]),
        last_activity_at=moment(row["last_activity_at"]),
        words_held=float(row["words_held"]),
        summary=row.get("summary"),
    )


def embedded_text(row: Row) -> tuple[UUID, EmbeddingKind, EmbeddedText]:
    kind: EmbeddingKind = "summary" if row["kind"] == "summary" else "topic"
    return UUID(row["chat_id"]), kind, EmbeddedText(row["text"], parse_vector(row["embedding"]), row["model"])


def turn_vector_json(vector: TurnVector) -> dict[str, object]:
    return {
        "chat_id": str(vector.chat_id),
        "index": vector.index,
        "text": vector.embedded.text,
        "embedding": vector_text(vector.embedded.vector),
        "model": vector.embedded.model,
    }


def pending_turn(chat_id: UUID, row: Row) -> PendingTurn:
    return PendingTurn(chat_id, row["seq"], row["text"])


def turn_candidate(row: Row) -> TurnCandidate:
    return TurnCandidate(
        chat_id=UUID(row["chat_id"]), index=row["seq"], similarity=similarity(row), lexical=float(row["lexical"])
    )


def similarity(row: Row) -> float | None:
    """A candidate's cosine similarity to the query: None when it has no vector of the query's model."""
    value = row["similarity"]
    return None if value is None else float(value)


def chat_excerpt(row: Row) -> ChatExcerpt:
    return ChatExcerpt(UUID(row["chat_id"]), row["title"], row["first"], turns_from_json(row["turns"]))


def working_memory(row: Row) -> WorkingMemoryRecord:
    return WorkingMemoryRecord(dict(row["data"]), int(row["version"]))
