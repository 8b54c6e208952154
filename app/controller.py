"""The chat use cases, shared by the command line and the window."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from app.wiring import ChatServices
from chats.embedding import embed_one
from chats.models import FOLDER_NAME_MAX, Chat, ChatInfo, Folder, FolderFilter, folder_name_key
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

    async def new_chat(self, title: str | None = None, folder_id: str | None = None) -> Chat:
        return await self._s.store.create(title=title, project_id=folder_id)

    async def list_chats(self, limit: int = 50, offset: int = 0, folder: FolderFilter = None) -> list[ChatInfo]:
        """Every chat (`folder` None), one folder's (its id), or with `NO_FOLDER` those in no folder."""
        return await self._s.store.list_chats(limit=limit, offset=offset, project_id=folder)

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

    async def move_chat(self, chat_id: UUID, folder_id: str | None) -> None:
        """Put the chat in a folder, or with None in none."""
        await self._s.store.move(chat_id, folder_id)

    async def set_memory_enabled(self, chat_id: UUID, enabled: bool) -> None:
        """Switch long-term memory on or off in the chat (its pre-loaded memories and memory tools)."""
        await self._s.store.set_memory_enabled(chat_id, enabled)

    async def memory_enabled(self, chat_id: UUID) -> bool:
        return (await self._s.store.load_assistant_context(chat_id)).memory_enabled

    async def folders(self) -> list[Folder]:
        return await self._s.store.list_folders()

    async def create_folder(self, name: str) -> Folder:
        return await self._s.store.create_folder(name)

    async def rename_folder(self, folder_id: str, name: str) -> Folder:
        return await self._s.store.rename_folder(folder_id, name)

    async def delete_folder(self, folder_id: str) -> None:
        """Delete the folder; its chats are kept, in no folder."""
        await self._s.store.delete_folder(folder_id)

    async def import_chats(self, chats: Sequence[ImportedChat]) -> list[ImportReport]:
        """Each chat is created empty, its turns appended, then compacted as the rules say."""
        reports = []
        folders = await self._s.store.list_folders()
        for imported in chats:
            folder_id = await self._folder_for_import(imported.project_id, folders)
            chat = await self._s.store.create(title=imported.title, project_id=folder_id)
            await self._s.store.append(chat.id, imported.turns)
            maintained = await self._s.maintainer.maintain(chat.id)
            reports.append(ImportReport(chat.id, len(imported.turns), maintained.compactions))
        return reports

    async def _folder_for_import(self, project_id: str | None, folders: list[Folder]) -> str | None:
        """The folder here for an imported chat, making it (and adding it to `folders`) on first use."""
        name = imported_folder_name(project_id)
        if not name:
            return None
        found = imported_folder_id(project_id, name, folders)
        if found is None:
            folder = await self._s.store.create_folder(name)
            folders.append(folder)
            found = folder.id
        return found

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


def imported_folder_name(project_id: str | None) -> str:
    """The name of the folder an imported chat's `project_id` lands in, as migration 0003 names the folders
    it makes: the id itself, cut to a folder name's length; empty when there is no folder to keep."""
    return (project_id or "").strip()[:FOLDER_NAME_MAX].strip()


def imported_folder_id(project_id: str | None, name: str, folders: Sequence[Folder]) -> str | None:
    """The folder here an imported chat belongs in: the one with its `project_id` (an export of this
    store), else the one named after that id (made by an earlier import); None when there is none yet.

    Going by name as well keeps the chats of one folder together however often they are imported."""
    by_id = [folder.id for folder in folders if folder.id == project_id]
    by_name = [folder.id for folder in folders if folder_name_key(folder.name) == folder_name_key(name)]
    return next(iter(by_id + by_name), None)
