"""The Memory page's way to the core: list, search, edit, forget and export memories on the runtime thread.

It rides on the chat bridge's services and plumbing (`ChatBridge.request`): each call returns at once,
its answer arrives as a signal on the GUI thread, and a failure shows as the window's error banner.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import cast
from uuid import UUID

from PySide6.QtCore import QObject, Signal

from app.memory_controller import ExportFormat, MemoryController
from app.wiring import ChatServices
from chats.memory.models import Category, Memory
from ui.bridge import ChatBridge


@dataclass(frozen=True, slots=True)
class MemoryQuery:
    """What the page asks to see."""

    category: Category | None = None
    text: str = ""
    """Words to search for; empty lists the newest first."""
    include_replaced: bool = False
    """Also facts a newer one replaced (only when listing)."""


@dataclass(frozen=True, slots=True)
class MemoryList:
    request: int
    query: MemoryQuery
    memories: tuple[Memory, ...]


class MemoryBridge(QObject):
    loaded = Signal(object)
    """A `MemoryList` answering the latest `load`."""
    changed = Signal()
    """A memory was edited or forgotten here, or saved or forgotten in a conversation: load again."""
    exported = Signal(str)
    """A one-line report of an export."""
    chat_memory_loaded = Signal(object, bool)
    """(chat `UUID`, whether long-term memory is on in it)."""

    def __init__(self, chats: ChatBridge) -> None:
        """A child of `chats`: it lives as long as the bridge whose answers it takes, so an answer that
        arrives after the window closed finds it (and its page's connections gone), never a deleted object."""
        super().__init__(chats)
        self._latest = 0
        chats.memories_changed.connect(self.changed)

    def _chats(self) -> ChatBridge:
        # Through Qt's parent, not a Python attribute: a child holding its parent makes a reference cycle,
        # which the garbage collector may break on the runtime thread, deleting the bridge there.
        return cast(ChatBridge, self.parent())

    def load(self, query: MemoryQuery) -> None:
        """Ask for memories; only the answer to the latest request arrives."""
        self._latest += 1
        request = self._latest

        async def work(services: ChatServices) -> MemoryList:
            memories = MemoryController(services)
            if query.text.strip():
                found = tuple(hit.memory for hit in await memories.search(query.text, category=query.category))
            else:
                found = tuple(await memories.browse(category=query.category, include_replaced=query.include_replaced))
            return MemoryList(request, query, found)

        self._chats().request(work, self._on_loaded)

    def update(self, memory_id: UUID, content: str, category: str) -> None:
        """Change a memory's words and category (they are kept in the third person, re-embedded)."""

        async def work(services: ChatServices) -> None:
            await MemoryController(services).edit(memory_id, content=content, category=category)

        self._chats().request(work, self._on_changed)

    def forget(self, memory_id: UUID) -> None:
        async def work(services: ChatServices) -> None:
            await MemoryController(services).forget(memory_id)

        self._chats().request(work, self._on_changed)

    def export(self, path: Path, format: ExportFormat) -> None:
        """Write every memory (replaced ones included, marked as such) to `path`."""

        async def work(services: ChatServices) -> str:
            text, memories = await MemoryController(services).export(format)
            await asyncio.to_thread(path.write_text, text, encoding="utf-8")
            return f"Exported {len(memories)} memories to {path}."

        self._chats().request(work, self.exported.emit)

    def load_chat_memory(self, chat_id: UUID) -> None:
        """Ask whether memory is on in the chat; `chat_memory_loaded` answers."""

        async def work(services: ChatServices) -> tuple[UUID, bool]:
            return chat_id, (await services.store.load_assistant_context(chat_id)).memory_enabled

        self._chats().request(work, self._on_chat_memory)

    def set_chat_memory(self, chat_id: UUID, enabled: bool) -> None:
        """Switch memory on or off in the chat, from its next conversation on."""

        async def work(services: ChatServices) -> tuple[UUID, bool]:
            await services.store.set_memory_enabled(chat_id, enabled)
            return chat_id, enabled

        self._chats().request(work, self._on_chat_memory)

    def _on_chat_memory(self, answer: tuple[UUID, bool]) -> None:
        self.chat_memory_loaded.emit(*answer)

    def _on_loaded(self, answer: MemoryList) -> None:
        if answer.request == self._latest:
            self.loaded.emit(answer)

    def _on_changed(self, _done: None) -> None:
        self.changed.emit()
