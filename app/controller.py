"""The chat use cases, shared by the command line and the window."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from uuid import UUID

from app.wiring import ChatServices
from chats.embedders.embedding import embed_one
from chats.models import Chat, ChatInfo, Folder, FolderFilter, chat_title

# The importer and the exporter (ijson, the sync rules) are imported when an import or an export runs:
# `parley chats list` and the window's first paint need neither.
if TYPE_CHECKING:
    from app.account.sync import StampClock
    from app.chat_import import ChatImporter, ImportReport
    from chats.import_reader import ImportedChat, ImportedFolder
    from chats.search import ChatMatch
    from chats.transfer import ExportedChat

PAGE = 200


@dataclass(frozen=True, slots=True)
class ReembedReport:
    model: str
    vectors: int
    """Summary and topic vectors rebuilt."""
    topics_added: int
    """Chats that had no vector at all and got a topic."""
    memories: int = 0
    """Memory vectors rebuilt: memory search and duplicate checks compare like with like, too."""


class ChatController:
    def __init__(self, services: ChatServices, clock: StampClock | None = None) -> None:
        """`clock`: the one the stores were built with (`open_chat_services(clock=...)`), for imported chats
        to keep their times, as `parley chats import` does; without it they take the time of the import."""
        self._s = services
        self._clock = clock

    async def new_chat(self, title: str | None = None, folder_id: str | None = None) -> Chat:
        return await self._s.store.create(title=None if title is None else chat_title(title), project_id=folder_id)

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

    async def rename(self, chat_id: UUID, title: str) -> str:
        """Give the chat `title` (on one line, stripped: `chats.models.chat_title`); return it as kept."""
        kept = chat_title(title)
        await self._s.store.rename(chat_id, kept)
        return kept

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

    async def export_chats(self) -> tuple[list[ExportedChat], list[Folder]]:
        """Every chat with what an export carries beside it (`chats.transfer`), most recent activity first,
        and every folder."""
        from chats.import_reader import ChatState
        from chats.transfer import ExportedChat

        store = self._s.store
        folders = await store.list_folders()
        names = {folder.id: folder.name for folder in folders}
        exported = []
        for chat in await self.all_chats():
            context = await store.load_assistant_context(chat.id)
            notes = await store.get_working_memory(chat.id)
            folder = None if chat.project_id is None else names.get(chat.project_id, chat.project_id)
            exported.append(ExportedChat(chat, folder, ChatState(context.memory_enabled, notes.data), context.topic))
        return exported, folders

    def importer(self, clock: StampClock | None = None, *, as_new: bool = False) -> ChatImporter:
        """Imports chats one at a time (`app.chat_import`); one importer per import. `clock`: the store's, for
        exported chats to keep their times (default: the controller's); `as_new`: an export's chats become
        copies with new ids."""
        from app.chat_import import ChatImporter

        return ChatImporter(self._s, clock or self._clock, as_new=as_new)

    async def import_chats(
        self, chats: Iterable[ImportedChat], folders: Sequence[ImportedFolder] = ()
    ) -> list[ImportReport]:
        """The `folders` of an export (made first, empty ones too), then each chat whole in one transaction,
        compacted as the rules say; with their ids and times, as `parley chats import` keeps them."""
        importer = self.importer()
        await importer.import_folders(folders)
        return [await importer.import_chat(imported) for imported in chats]

    async def reembed(self) -> ReembedReport:
        """Rebuild every summary, topic and memory vector with the current embedder (after switching models)."""
        store, embedder = self._s.store, self._s.embedder
        rebuilt = 0
        embedded_chats = set()
        for chat_id, kind, old in await store.embedded_texts():
            embedded_chats.add(chat_id)
            if old.model != embedder.model_name:
                await store.set_embedding(chat_id, kind, await embed_one(embedder, old.text, fall_back=False))
                rebuilt += 1
        added = 0
        offset = 0
        while page := await store.list_chats(limit=PAGE, offset=offset):
            offset += len(page)
            for info in page:
                if info.id not in embedded_chats and (await self._s.maintainer.maintain(info.id)).topic_refreshed:
                    added += 1
        memory, stale = self._s.memory, 0
        for memory_id, old in await memory.store.embedded_texts():
            fact_embedder = memory.embedder_for(old.text)  # a fact in another language may have its own
            if old.model != fact_embedder.model_name:
                await memory.store.set_embedding(memory_id, await embed_one(fact_embedder, old.text, fall_back=False))
                stale += 1
        return ReembedReport(embedder.model_name, rebuilt, added, stale)
