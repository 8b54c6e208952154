"""The chat use cases, shared by the command line and the window."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from app.wiring import ChatServices
from chats.embedding import embed_one
from chats.models import Chat, ChatInfo
from chats.search import ChatMatch
from chats.transfer import ImportedChat

PAGE = 200


@dataclass(frozen=True, slots=True)
class ImportReport:
    chat_id: UUID
    turns: int
    compactions: int


@dataclass(frozen=True, slots=True)
class ReembedReport:
    model: str
    vectors: int
    """Summary and topic vectors rebuilt."""
    topics_added: int
    """Chats that had no vector at all and got a topic."""


class ChatController:
    def __init__(self, services: ChatServices) -> None:
        self._s = services

    async def new_chat(self, title: str | None = None) -> Chat:
        return await self._s.store.create(title=title)

    async def list_chats(self, limit: int = 50, offset: int = 0) -> list[ChatInfo]:
        return await self._s.store.list_chats(limit=limit, offset=offset)

    async def all_chats(self) -> list[Chat]:
        chats: list[Chat] = []
        offset = 0
        while page := await self._s.store.list_chats(limit=PAGE, offset=offset):
            chats += [await self._s.store.get(info.id) for info in page]
            offset += len(page)
        return chats

    async def show(self, chat_id: UUID) -> Chat:
        return await self._s.store.get(chat_id)

    async def find(self, query: str) -> ChatMatch:
        return await self._s.finder.find_chats(query)

    async def rename(self, chat_id: UUID, title: str) -> None:
        await self._s.store.rename(chat_id, title)

    async def delete(self, chat_id: UUID) -> None:
        await self._s.store.delete(chat_id)

    async def import_chats(self, chats: Sequence[ImportedChat]) -> list[ImportReport]:
        """Each chat is created empty, its turns appended, then compacted as the rules say."""
        reports = []
        for imported in chats:
            chat = await self._s.store.create(title=imported.title, project_id=imported.project_id)
            await self._s.store.append(chat.id, imported.turns)
            maintained = await self._s.maintainer.maintain(chat.id)
            reports.append(ImportReport(chat.id, len(imported.turns), maintained.compactions))
        return reports

    async def reembed(self) -> ReembedReport:
        """Rebuild every summary and topic vector with the current embedder (after switching models)."""
        store, embedder = self._s.store, self._s.embedder
        rebuilt = 0
        embedded_chats = set()
        for chat_id, kind, old in await store.embedded_texts():
            embedded_chats.add(chat_id)
            if old.model != embedder.model_name:
                await store.set_embedding(chat_id, kind, await embed_one(embedder, old.text))
                rebuilt += 1
        added = 0
        offset = 0
        while page := await store.list_chats(limit=PAGE, offset=offset):
            offset += len(page)
            for info in page:
                if info.id not in embedded_chats and (await self._s.maintainer.maintain(info.id)).topic_refreshed:
                    added += 1
        return ReembedReport(embedder.model_name, rebuilt, added)
