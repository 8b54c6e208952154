"""`SupabaseChatStore`: the chat store in the user's own Supabase project.

Every operation is one call of a remote procedure of `chats/migrations/postgres/` (one transaction in
the database, one round trip), made as the signed-in user: row level security, not this class, keeps
other users' chats out of reach, and a chat of another user is simply not found.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Unpack
from uuid import UUID

from chats.errors import ChatNotFound, DuplicateFolderName, FolderNotFound, InvalidTurn, VersionConflict
from chats.models import (
    NO_FOLDER,
    AssistantContext,
    Chat,
    ChatInfo,
    EmbeddedText,
    Folder,
    FolderFilter,
    Turn,
    folder_name,
    folder_name_key,
    turns_to_json,
)
from chats.search import query_terms
from chats.store import (
    AppendResult,
    ChatExcerpt,
    EmbeddingKind,
    HiddenTurns,
    HistorySwap,
    NewChat,
    PendingTurn,
    RecallQuery,
    SearchCandidate,
    SearchQuery,
    TurnCandidate,
    TurnSpan,
    TurnVector,
    WorkingMemoryRecord,
)
from chats.supabase import rows
from chats.supabase.calls import SupabaseStore
from chats.supabase.errors import RemoteError

CHAT_NOT_FOUND = "PCH04"
FOLDER_NOT_FOUND = "PFD04"
FOLDER_NAME_TAKEN = "PFD09"
NO_SUCH_TURN = "PCH22"


class SupabaseChatStore(SupabaseStore):
    what = "chat"

    async def create(self, **chat: Unpack[NewChat]) -> Chat:
        row = await self._call(
            "create_chat",
            {
                "p_id": str(chat.get("chat_id") or uuid.uuid4()),
                "p_title": chat.get("title"),
                "p_turns": turns_to_json(chat.get("turns", ())),
                "p_project_id": chat.get("project_id"),
                "p_now": self._now(),
            },
        )
        return rows.chat(row)

    async def get(self, chat_id: UUID) -> Chat:
        return rows.chat(await self._call("get_chat", {"p_chat_id": str(chat_id)}))

    async def load_assistant_context(self, chat_id: UUID) -> AssistantContext:
        return rows.assistant_context(chat_id, await self._call("load_chat_context", {"p_chat_id": str(chat_id)}))

    async def list_chats(self, *, limit: int = 50, offset: int = 0, project_id: FolderFilter = None) -> list[ChatInfo]:
        params: dict[str, object] = {"p_limit": limit, "p_offset": offset}
        if project_id is NO_FOLDER:
            params["p_no_folder"] = True
        elif project_id is not None:
            params["p_project_id"] = project_id
        return [rows.chat_info(row) for row in await self._call("list_chats", params)]

    async def count(self) -> int:
        return int(await self._call("count_chats", {}))

    async def append(self, chat_id: UUID, turns: Sequence[Turn]) -> AppendResult:
        row = await self._call(
            "append_chat_turns",
            {"p_chat_id": str(chat_id), "p_turns": turns_to_json(turns), "p_now": self._now()},
        )
        return rows.append_result(row)

    async def replace_assistant_history(self, chat_id: UUID, **swap: Unpack[HistorySwap]) -> int:
        params: dict[str, object] = {
            "p_chat_id": str(chat_id),
            "p_expected_version": swap["expected_version"],
            "p_assistant_history": turns_to_json(swap["assistant_history"]),
        }
        if (summary := swap["summary"]) is not None:
            params |= {
                "p_summary_text": summary.text,
                "p_summary_embedding": rows.vector_text(summary.vector),
                "p_summary_model": summary.model,
            }
        answer = await self._call("replace_chat_assistant_history", params)
        if not answer["applied"]:
            raise VersionConflict(chat_id, swap["expected_version"], answer["version"])
        return int(answer["version"])

    async def set_embedding(self, chat_id: UUID, kind: EmbeddingKind, value: EmbeddedText) -> None:
        await self._call(
            "set_chat_embedding",
            {
                "p_chat_id": str(chat_id),
                "p_kind": kind,
                "p_text": value.text,
                "p_embedding": rows.vector_text(value.vector),
                "p_model": value.model,
            },
        )

    async def rename(self, chat_id: UUID, title: str, *, automatic: bool = False) -> bool:
        return bool(
            await self._call("rename_chat", {"p_chat_id": str(chat_id), "p_title": title, "p_automatic": automatic})
        )

    async def move(self, chat_id: UUID, project_id: str | None) -> None:
        await self._call("move_chat", {"p_chat_id": str(chat_id), "p_project_id": project_id})

    async def set_memory_enabled(self, chat_id: UUID, enabled: bool) -> None:
        await self._call("set_chat_memory", {"p_chat_id": str(chat_id), "p_enabled": enabled})

    async def delete(self, chat_id: UUID) -> None:
        await self._call("delete_chat", {"p_chat_id": str(chat_id)})

    async def create_folder(self, name: str, folder_id: str | None = None) -> Folder:
        name = folder_name(name)
        row = await self._call(
            "create_chat_folder",
            {
                "p_id": folder_id or str(uuid.uuid4()),
                "p_name": name,
                "p_name_key": folder_name_key(name),
                "p_now": self._now(),
            },
        )
        return rows.folder(row)

    async def list_folders(self) -> list[Folder]:
        folders = [rows.folder(row) for row in await self._call("list_chat_folders", {})]
        # The database orders them too; sorting here keeps the order exactly the SQLite store's.
        return sorted(folders, key=lambda folder: (folder_name_key(folder.name), folder.id))

    async def rename_folder(self, folder_id: str, name: str) -> Folder:
        name = folder_name(name)
        row = await self._call(
            "rename_chat_folder", {"p_id": folder_id, "p_name": name, "p_name_key": folder_name_key(name)}
        )
        return rows.folder(row)

    async def delete_folder(self, folder_id: str) -> None:
        await self._call("delete_chat_folder", {"p_id": folder_id})

    async def search(self, query: SearchQuery) -> list[SearchCandidate]:
        found = await self._call(
            "search_chats_semantic",
            {
                "query_embedding": rows.vector_text(query.vector),
                "match_count": query.limit,
                "model_name": query.model,
                "query_terms": query_terms(query.text, prefixes=False),  # Postgres drops FTS prefix marks
            },
        )
        return [rows.search_candidate(row) for row in found]

    async def embedded_texts(self) -> list[tuple[UUID, EmbeddingKind, EmbeddedText]]:
        return [rows.embedded_text(row) for row in await self._call("chat_embedded_texts", {})]

    async def chats_without_turn_vectors(self, model: str) -> list[UUID]:
        found = await self._call("chats_without_turn_vectors", {"p_model": model})
        return [UUID(row["chat_id"]) for row in found]

    async def turns_without_vectors(self, chat_id: UUID, model: str, *, limit: int = 32) -> list[PendingTurn]:
        found = await self._call(
            "turns_without_vectors", {"p_chat_id": str(chat_id), "p_model": model, "p_limit": limit}
        )
        return [rows.pending_turn(chat_id, row) for row in found]

    async def set_turn_vectors(self, vectors: Sequence[TurnVector]) -> None:
        if vectors:
            await self._call("set_turn_vectors", {"p_vectors": [rows.turn_vector_json(v) for v in vectors]})

    async def recall_candidates(self, query: RecallQuery) -> list[TurnCandidate]:
        params: dict[str, object] = {
            "query_embedding": rows.vector_text(query.vector),
            "model_name": query.model,
            "query_terms": query_terms(query.text, prefixes=False),  # Postgres drops FTS prefix marks
            "match_count": query.limit,
            "context": query.context,
        }
        if query.hidden is not None:
            params |= {"hidden_chat_id": str(query.hidden.chat_id), "hidden_count": query.hidden.count}
        if query.project_id is NO_FOLDER:
            params["p_no_folder"] = True
        elif query.project_id is not None:
            params["p_project_id"] = query.project_id
        return [rows.turn_candidate(row) for row in await self._call("recall_candidates", params)]

    async def excerpts(self, spans: Sequence[TurnSpan], *, hidden: HiddenTurns | None = None) -> list[ChatExcerpt]:
        if not spans:
            return []
        params: dict[str, object] = {
            "p_spans": [{"chat_id": str(s.chat_id), "first": s.first, "last": s.last} for s in spans]
        }
        if hidden is not None:
            params |= {"p_hidden_chat_id": str(hidden.chat_id), "p_hidden_count": hidden.count}
        return [rows.chat_excerpt(row) for row in await self._call("chat_excerpts", params)]

    async def get_working_memory(self, chat_id: UUID) -> WorkingMemoryRecord:
        return rows.working_memory(await self._call("get_working_memory", {"p_chat_id": str(chat_id)}))

    async def put_working_memory(self, chat_id: UUID, data: Mapping[str, Any], *, expected_version: int) -> int:
        answer = await self._call(
            "put_working_memory",
            {
                "p_chat_id": str(chat_id),
                "p_data": dict(data),
                "p_expected_version": expected_version,
                "p_now": self._now(),
            },
        )
        if not answer["applied"]:
            raise VersionConflict(chat_id, expected_version, answer["version"])
        return int(answer["version"])

    def _domain_error(self, function: str, error: RemoteError) -> Exception:
        detail = str(error.details) if error.details is not None else ""
        if error.code == CHAT_NOT_FOUND:
            return ChatNotFound(_chat_id(detail))
        if error.code == FOLDER_NOT_FOUND:
            return FolderNotFound(detail)
        if error.code == FOLDER_NAME_TAKEN:
            return DuplicateFolderName(detail)
        if error.code == NO_SUCH_TURN:
            return InvalidTurn(error.message)
        return super()._domain_error(function, error)


def _chat_id(text: str) -> UUID | str:
    try:
        return UUID(text)
    except ValueError:
        return text
