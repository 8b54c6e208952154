"""Chats begun while Supabase could not be reached, kept in a small local JSON file until Supabase has
them. The turn journal holds their turns meanwhile; a chat must reach Supabase before its turns, and a
journal replayed after a restart must still find its chat, so the file outlives the process.

The file holds `{"<chat id>": {"title": ..., "project_id": ..., "created_at": "<ISO 8601>"}, ...}` and is
replaced whole (written beside it, then renamed), so a crash leaves the old file or the new one.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from uuid import UUID

from chats.models import AssistantContext, Chat, ChatInfo


@dataclass(frozen=True, slots=True)
class StartedChat:
    id: UUID
    title: str | None
    project_id: str | None
    created_at: datetime
    """When it was begun (UTC): its creation time once Supabase has it."""

    def info(self) -> ChatInfo:
        return ChatInfo(self.id, self.title, self.project_id, None, 0, self.created_at, self.created_at)

    def chat(self, user_id: str) -> Chat:
        """As the store shows it: no turns yet (they wait in the journal)."""
        return Chat(self.id, user_id, self.project_id, self.title, (), (), None, self.created_at, self.created_at, 0)

    def context(self) -> AssistantContext:
        """Long-term memory off: the memories are in Supabase too, out of reach until it is back."""
        return AssistantContext(self.id, self.title, self.project_id, False, (), None, None, 0)


class StartedChats:
    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = asyncio.Lock()

    async def get(self, chat_id: UUID) -> StartedChat | None:
        async with self._lock:
            return (await asyncio.to_thread(self._read)).get(chat_id)

    async def newest_first(self) -> list[StartedChat]:
        async with self._lock:
            chats = await asyncio.to_thread(self._read)
        return sorted(chats.values(), key=lambda chat: chat.created_at, reverse=True)

    async def add(self, chat: StartedChat) -> None:
        async with self._lock:
            chats = await asyncio.to_thread(self._read)
            await asyncio.to_thread(self._write, {**chats, chat.id: chat})

    async def remove(self, chat_id: UUID) -> None:
        async with self._lock:
            chats = await asyncio.to_thread(self._read)
            if chat_id in chats:
                await asyncio.to_thread(self._write, {k: v for k, v in chats.items() if k != chat_id})

    def _read(self) -> dict[UUID, StartedChat]:
        try:
            entries = json.loads(self._path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        return {
            UUID(key): StartedChat(
                UUID(key), entry["title"], entry["project_id"], datetime.fromisoformat(entry["created_at"])
            )
            for key, entry in entries.items()
        }

    def _write(self, chats: dict[UUID, StartedChat]) -> None:
        if not chats:
            self._path.unlink(missing_ok=True)
            return
        entries = {
            str(chat.id): {
                "title": chat.title,
                "project_id": chat.project_id,
                "created_at": chat.created_at.isoformat(),
            }
            for chat in chats.values()
        }
        partial = self._path.with_name(self._path.name + ".partial")
        self._path.parent.mkdir(parents=True, exist_ok=True)
        with partial.open("w", encoding="utf-8") as file:
            json.dump(entries, file)
            file.flush()
            os.fsync(file.fileno())
        partial.replace(self._path)
