"""The Supabase chat store as the voice loop and the window use it: Parley starts, and keeps talking,
while Supabase cannot be reached.

A conversation needs a chat. While Supabase is unreachable a new chat can still be begun: it is
recorded locally (`StartedChats`), listed, shown and talked in, and its turns wait in the turn journal
like any others. The first delivery that reaches Supabase creates it there first (with the id and
creation time it was begun with, and only if it is not there already: a creation whose answer was
lost is not repeated), then appends its turns; turn ids keep the appends exactly-once. Everything else
is the plain Supabase store: while unreachable it raises `SupabaseUnreachable`, and the callers (the
journal, the outbox, the window's banner) know what that means.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Unpack
from uuid import UUID

from chats.errors import ChatNotFound, FolderNotFound
from chats.models import NO_FOLDER, AssistantContext, Chat, ChatInfo, FolderFilter, Turn, utc_now
from chats.store import AppendResult, NewChat, WorkingMemoryRecord
from chats.supabase.connection import SupabaseConnection
from chats.supabase.errors import SupabaseUnreachable
from chats.supabase.started_chats import StartedChat, StartedChats
from chats.supabase.store import SupabaseChatStore

log = logging.getLogger(__name__)


class OutageTolerantChatStore(SupabaseChatStore):
    def __init__(
        self, connection: SupabaseConnection, started: StartedChats, *, clock: Callable[[], datetime] = utc_now
    ) -> None:
        """On a connection that may not reach Supabase yet: the project's schema is checked by the first
        call that does."""
        super().__init__(connection, clock=clock)
        self._started = started

    def watch_reachability(self, listener: Callable[[bool], None]) -> None:
        """See `SupabaseConnection.watch_reachability`: what the window's banner shows."""
        self._connection.watch_reachability(listener)

    async def create(self, **chat: Unpack[NewChat]) -> Chat:
        """As the Supabase store; while it is unreachable, a chat with no turns is begun locally."""
        try:
            return await super().create(**chat)
        except SupabaseUnreachable as unreachable:
            if chat.get("turns"):
                raise
            log.warning("Supabase is unreachable (%s): the new chat is kept here until it is back", unreachable)
        started = StartedChat(
            chat.get("chat_id") or uuid.uuid4(), chat.get("title"), chat.get("project_id"), self._clock()
        )
        await self._started.add(started)
        return started.chat(self.user_id)

    async def list_chats(self, *, limit: int = 50, offset: int = 0, project_id: FolderFilter = None) -> list[ChatInfo]:
        """As the Supabase store; while it is unreachable, the chats begun meanwhile (newest first)."""
        try:
            return await super().list_chats(limit=limit, offset=offset, project_id=project_id)
        except SupabaseUnreachable:
            started = [chat.info() for chat in await self._started.newest_first() if _in(chat, project_id)]
            return started[offset : offset + limit]

    async def get(self, chat_id: UUID) -> Chat:
        started = await self._reached(chat_id)
        return started.chat(self.user_id) if started else await super().get(chat_id)

    async def load_assistant_context(self, chat_id: UUID) -> AssistantContext:
        """As the Supabase store; a chat begun while it is unreachable starts empty (`StartedChat.context`)."""
        started = await self._reached(chat_id)
        return started.context() if started else await super().load_assistant_context(chat_id)

    async def get_working_memory(self, chat_id: UUID) -> WorkingMemoryRecord:
        started = await self._reached(chat_id)
        return WorkingMemoryRecord({}, 0) if started else await super().get_working_memory(chat_id)

    async def append(self, chat_id: UUID, turns: Sequence[Turn]) -> AppendResult:
        """As the Supabase store, once a chat begun while it was unreachable is created there."""
        started = await self._started.get(chat_id)
        if started is not None:
            await self._create(started)
        return await super().append(chat_id, turns)

    async def _reached(self, chat_id: UUID) -> StartedChat | None:
        """The chat as begun here while Supabase is still unreachable; None once Supabase has it (it is
        created there now if it can be) or when it was not begun here."""
        started = await self._started.get(chat_id)
        if started is None:
            return None
        try:
            await self._create(started)
        except SupabaseUnreachable:
            return started
        return None

    async def _create(self, started: StartedChat) -> None:
        """Create the chat in Supabase as it was begun, unless a creation whose answer was lost did; in no
        folder if its folder was deleted meanwhile."""
        try:
            await super().load_assistant_context(started.id)
        except ChatNotFound:
            params: dict[str, object] = {
                "p_id": str(started.id),
                "p_title": started.title,
                "p_turns": [],
                "p_project_id": started.project_id,
                "p_now": started.created_at.isoformat(),
            }
            try:
                await self._call("create_chat", params)
            except FolderNotFound:
                await self._call("create_chat", params | {"p_project_id": None})
        await self._started.remove(started.id)


def _in(chat: StartedChat, folder: FolderFilter) -> bool:
    if folder is None:
        return True
    return chat.project_id is None if folder is NO_FOLDER else chat.project_id == folder
