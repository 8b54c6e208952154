"""The memory use cases of the Memory page and `parley memories`: browse, search, add, edit, forget, export
and import."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal
from uuid import UUID, uuid5

from app.account.sync import StampClock, copy_folders, copy_memories
from app.chat_import import IMPORT_NAMESPACE, imported_folder_name
from app.offline.memory_questions import broad_question, overview
from app.wiring import ChatServices
from chats.errors import ChatNotFound
from chats.memory.export import MemoriesFile, export_json, export_markdown, working_notes
from chats.memory.models import Memory, MemoryHit, category_of
from chats.memory.service import Duplicate, Saved
from chats.memory.store import SEARCH_LIMIT_MAX, MemoryListing
from chats.models import Folder, utc_now

ExportFormat = Literal["json", "markdown"]
PAGE = 500
"""Most memories listed at once: a person's memory bank, not a data set."""
EMBED_BATCH = 64
"""Memory texts embedded per call while importing."""


@dataclass(frozen=True, slots=True)
class MemoryImportReport:
    memories: int
    """Memories in the file, replaced ones included."""
    added: int
    """Memories added; the others were here already (the same id, or the same content, category and folder;
    with `as_new`, the same copy's id)."""
    notes_restored: int
    """Chats here that got the working memory the file gives them (a chat that has notes keeps its own)."""
    notes_skipped: int
    """Working memories of chats that are not here (import the chats first)."""


class MemoryController:
    def __init__(self, services: ChatServices, clock: StampClock | None = None) -> None:
        """`clock`: the one the stores were built with, for imported memories to keep their times."""
        self._s = services
        self._memory = services.memory
        self._chats = services.store
        self._clock = clock or StampClock()

    @property
    def user_id(self) -> str:
        return self._chats.user_id

    async def browse(
        self, *, category: str | None = None, include_replaced: bool = False, limit: int = PAGE, offset: int = 0
    ) -> list[Memory]:
        """Newest first; facts a newer one replaced only when asked."""
        return await self._memory.store.list_memories(
            MemoryListing(
                category=None if category is None else category_of(category),
                include_superseded=include_replaced,
                limit=limit,
                offset=offset,
            )
        )

    async def search(self, text: str, *, category: str | None = None, limit: int = SEARCH_LIMIT_MAX) -> list[MemoryHit]:
        """The current memories that best match `text`, in every folder; for a question about what is saved
        as a whole ("what do you know about me"), what is saved, most important first, as the tool answers."""
        broad = broad_question(text)
        if broad is not None:
            return overview(broad, await self._memory.saved(scope=None, category=category), limit)
        return await self._memory.search(text, scope=None, limit=limit, category=category)

    async def count(self) -> int:
        """How many current memories are saved, in every folder and category."""
        return len(await self._memory.saved(scope=None))

    async def add(self, text: str, *, category: str) -> Saved | Duplicate:
        """Remember what the user typed (theirs by definition: no grounding check), in the third person."""
        return await self._memory.add(text, project_id=None, category=category)

    async def edit(self, memory_id: UUID, *, content: str | None = None, category: str | None = None) -> Memory:
        return await self._memory.update(memory_id, content=content, category=category)

    async def forget(self, memory_id: UUID) -> int:
        """Forget a memory and the older facts it replaced; how many went."""
        return await self._memory.forget(memory_id)

    async def export(self, format: ExportFormat) -> tuple[str, Sequence[Memory]]:
        """Every memory, replaced ones included, then every chat's working memory, as JSON or Markdown text."""
        memories = await self._memory.store.export()
        notes = await working_notes(self._chats)
        if format == "markdown":
            return export_markdown(memories, notes), memories
        return export_json(memories, notes, await self._chats.list_folders()), memories

    async def import_memories(self, exported: MemoriesFile, *, as_new: bool = False) -> MemoryImportReport:
        """Keep the memories of an export this store lacks, with their ids, times, folders and what replaced
        what, and give each chat here that has no working memory the one the file has for it. A folder is
        found by its name, else made with the file's id for it. Importing the same file again adds nothing;
        `as_new` adds every memory as a copy, under an id derived from its own, so that importing again as
        new finds the copies."""
        memories = await self._embedded(exported.memories)
        folders = await self._folders(exported, memories)
        said_in = {memory.source_chat_id for memory in memories if memory.source_chat_id is not None}
        chats = {chat_id for chat_id in said_in if await self._holds(chat_id)}
        added = await copy_memories(
            self._memory.store,
            self._clock,
            memories,
            lambda project_id: folders.get(project_id, project_id),
            chats,
            copy_id=self._copy_id if as_new else None,
        )
        restored = skipped = 0
        for notes in exported.notes:
            try:
                record = await self._chats.get_working_memory(notes.chat_id)
            except ChatNotFound:
                skipped += 1
                continue
            if not record.data:
                await self._chats.put_working_memory(notes.chat_id, notes.notes, expected_version=record.version)
                restored += 1
        return MemoryImportReport(len(memories), len(added), restored, skipped)

    async def _folders(self, exported: MemoriesFile, memories: Sequence[Memory]) -> dict[str, str]:
        """The folder here of each folder id the memories name (see `copy_folders`), made when missing: named
        as the file names it, else after its id (a first-version export)."""
        now = utc_now()
        wanted = []
        for project_id in sorted({memory.project_id for memory in memories if memory.project_id}):
            name = exported.folders.get(project_id) or imported_folder_name(project_id)
            if name:
                wanted.append(Folder(project_id, name, now, 0))
        found, _ = await copy_folders(self._chats, self._clock, wanted)
        return found

    def _copy_id(self, memory_id: UUID) -> UUID:
        """The id of an `--as-new` copy of a memory: the same for the same data folder, user and memory."""
        return uuid5(IMPORT_NAMESPACE, f"memory {self._s.installation} {self._chats.user_id} {memory_id}")

    async def _embedded(self, memories: Sequence[Memory]) -> list[Memory]:
        """`memories` with their content embedded as a saved fact is (an export holds no vectors)."""
        done = []
        for start in range(0, len(memories), EMBED_BATCH):
            batch = memories[start : start + EMBED_BATCH]
            embedded = await self._memory.embedded([memory.content for memory in batch])
            done += [replace(memory, embedding=value) for memory, value in zip(batch, embedded, strict=True)]
        return done

    async def _holds(self, chat_id: UUID) -> bool:
        try:
            await self._chats.load_assistant_context(chat_id)
        except ChatNotFound:
            return False
        return True
