"""The memory use cases of the Memory page and `parley memories`: browse, search, add, edit, forget, export."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal
from uuid import UUID

from app.wiring import ChatServices
from chats.memory.export import export_json, export_markdown, working_notes
from chats.memory.models import Memory, MemoryHit, category_of
from chats.memory.service import Duplicate, Saved
from chats.memory.store import SEARCH_LIMIT_MAX

ExportFormat = Literal["json", "markdown"]
PAGE = 500
"""Most memories listed at once: a person's memory bank, not a data set."""


class MemoryController:
    def __init__(self, services: ChatServices) -> None:
        self._memory = services.memory
        self._chats = services.store

    async def browse(
        self, *, category: str | None = None, include_replaced: bool = False, limit: int = PAGE, offset: int = 0
    ) -> list[Memory]:
        """Newest first; facts a newer one replaced only when asked."""
        return await self._memory.store.list_memories(
            category=None if category is None else category_of(category),
            include_superseded=include_replaced,
            limit=limit,
            offset=offset,
        )

    async def search(self, text: str, *, category: str | None = None, limit: int = SEARCH_LIMIT_MAX) -> list[MemoryHit]:
        """The current memories that best match `text`, in every folder."""
        return await self._memory.search(text, scope=None, limit=limit, category=category)

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
        text = export_json(memories, notes) if format == "json" else export_markdown(memories, notes)
        return text, memories
