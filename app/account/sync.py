"""Copying a whole history (folders, chats with their turns, memories) from one store to another: SQLite
into Supabase, or back.

Running it again copies nothing twice. A chat keeps its id in the copy, so the next run finds it and
appends only the turns it lacks (turns are known by their ids, or by position for turns without one);
a folder is known by its name; a memory by its content, category and folder. Copies keep their times:
the target stores write with a clock set to the moment each row had in the source.

What is copied of a chat: title, folder, every turn, the compacted assistant history with its summary
(when the copy holds exactly the source's turns), the topic vector, the memory switch and the working
memory. Turn vectors for recall are not: the maintenance backfill makes them where the chat now lives.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime
from uuid import UUID

from chats.errors import ChatNotFound
from chats.memory.models import Memory
from chats.memory.store import MemoryStore
from chats.models import Chat, EmbeddedText, Turn, folder_name_key, utc_now
from chats.store import ChatStore

PAGE = 200
"""Chats listed per call while walking the source."""


class StampClock:
    """The target stores' clock: the source's moment while a copy is written, else the wall clock."""

    def __init__(self) -> None:
        self._at: datetime | None = None

    def __call__(self) -> datetime:
        return self._at or utc_now()

    @contextmanager
    def at(self, moment: datetime) -> Iterator[None]:
        self._at = moment
        try:
            yield
        finally:
            self._at = None


@dataclass(frozen=True, slots=True)
class Stores:
    chats: ChatStore
    memories: MemoryStore


@dataclass(slots=True)
class SyncReport:
    chats: int = 0
    """Chats in the source."""
    chats_created: int = 0
    chats_extended: int = 0
    """Chats the target had, that got turns they lacked."""
    turns_copied: int = 0
    folders_created: int = 0
    memories: int = 0
    """Memories in the source, superseded ones included."""
    memories_copied: int = 0
    journal_delivered: int = 0
    """Turns that waited in this computer's journal, delivered to the store Parley uses (before copying
    when it is the source, so the copy has them; after, when it is the target)."""
    journal_waiting: int = 0
    """Journaled turns that store could not take yet: they reach it when it answers, not the copy."""
    seconds: float = 0.0
    """How long it took (wall clock)."""

    def line(self, target: str) -> str:
        untouched = self.chats - self.chats_created - self.chats_extended
        journal = f" {self.journal_delivered} journaled turns delivered first." if self.journal_delivered else ""
        if self.journal_waiting:
            journal += f" {self.journal_waiting} journaled turns still wait for their store: sync again later."
        return (
            f"Synced to {target}: {self.chats} chats ({self.chats_created} new, {self.chats_extended} with new "
            f"turns, {untouched} already there), {self.turns_copied} turns, {self.folders_created} new folders, "
            f"{self.memories_copied} of {self.memories} memories new, in {self.seconds:.1f} s.{journal}"
        )

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def missing_turns(source: Sequence[Turn], target: Sequence[Turn]) -> list[Turn]:
    """The source's turns the target lacks: those whose id it does not hold, and those without an id
    past the target's length."""
    held = {turn.id for turn in target if turn.id is not None}
    return [
        turn
        for index, turn in enumerate(source)
        if (turn.id not in held if turn.id is not None else index >= len(target))
    ]


def same_turns(a: Sequence[Turn], b: Sequence[Turn]) -> bool:
    return len(a) == len(b) and all(x.id == y.id and x.text == y.text for x, y in zip(a, b, strict=True))


def memory_key(memory: Memory, project_id: str | None) -> tuple[str, str, str | None]:
    return memory.content, memory.category, project_id


async def sync(source: Stores, target: Stores, clock: StampClock) -> SyncReport:
    """Copy what `target` lacks of `source`; `clock` must be the target stores' clock."""
    started = time.perf_counter()
    copier = _Copier(source, target, clock)
    await copier.folders()
    await copier.chats()
    await copier.memories()
    copier.report.seconds = time.perf_counter() - started
    return copier.report


class _Copier:
    def __init__(self, source: Stores, target: Stores, clock: StampClock) -> None:
        self._source = source
        self._target = target
        self._clock = clock
        self.report = SyncReport()
        self._folders: dict[str, str] = {}
        """Source folder id -> the target's folder of the same name."""
        self._chats: set[UUID] = set()
        """The chats the target holds now."""

    async def folders(self) -> None:
        theirs = {folder_name_key(folder.name): folder.id for folder in await self._target.chats.list_folders()}
        for folder in await self._source.chats.list_folders():
            key = folder_name_key(folder.name)
            if key not in theirs:
                theirs[key] = (await self._target.chats.create_folder(folder.name)).id
                self.report.folders_created += 1
            self._folders[folder.id] = theirs[key]

    async def chats(self) -> None:
        source = self._source.chats
        topics = {chat_id: value for chat_id, kind, value in await source.embedded_texts() if kind == "topic"}
        offset = 0
        while page := await source.list_chats(limit=PAGE, offset=offset):
            offset += len(page)
            for info in page:
                self.report.chats += 1
                await self._chat(await source.get(info.id), topics.get(info.id))
                self._chats.add(info.id)

    async def _chat(self, chat: Chat, topic: EmbeddedText | None) -> None:
        target = self._target.chats
        try:
            copy = await target.get(chat.id)
        except ChatNotFound:
            with self._clock.at(chat.created_at):
                project_id = self._folders.get(chat.project_id) if chat.project_id else None
                copy = await target.create(chat_id=chat.id, title=chat.title, project_id=project_id)
            self.report.chats_created += 1
            await self._chat_state(chat.id)
        new = missing_turns(chat.full_history, copy.full_history)
        if not new:
            return
        if copy.full_history:
            self.report.chats_extended += 1
        with self._clock.at(chat.last_activity_at):
            version = (await target.append(chat.id, new)).version
        self.report.turns_copied += len(new)
        if same_turns(chat.full_history, [*copy.full_history, *new]):
            # The copy holds exactly the source's turns: it may as well see them as the source's model does.
            if chat.assistant_history != chat.full_history or chat.summary is not None:
                await target.replace_assistant_history(
                    chat.id, expected_version=version, assistant_history=chat.assistant_history, summary=chat.summary
                )
            if topic is not None:
                await target.set_embedding(chat.id, "topic", topic)

    async def _chat_state(self, chat_id: UUID) -> None:
        """The memory switch and the working memory of a chat just created in the target."""
        source, target = self._source.chats, self._target.chats
        if not (await source.load_assistant_context(chat_id)).memory_enabled:
            await target.set_memory_enabled(chat_id, False)
        notes = await source.get_working_memory(chat_id)
        if notes.data:
            await target.put_working_memory(chat_id, notes.data, expected_version=0)

    async def memories(self) -> None:
        held = {memory_key(memory, memory.project_id): memory.id for memory in await self._target.memories.export()}
        copies: dict[UUID, UUID] = {}
        """Source memory id -> its copy's id."""
        theirs = await self._source.memories.export()  # oldest first: a superseded one before its successor
        for memory in theirs:
            self.report.memories += 1
            project_id = self._folders.get(memory.project_id, memory.project_id) if memory.project_id else None
            key = memory_key(memory, project_id)
            if key in held:
                copies[memory.id] = held[key]
                continue
            replaced = [copies[old.id] for old in theirs if old.superseded_by == memory.id and old.id in copies]
            with self._clock.at(memory.created_at):
                copy = await self._target.memories.add(
                    content=memory.embedding,
                    category=memory.category,
                    importance=memory.importance,
                    title=memory.title,
                    tags=memory.tags,
                    project_id=project_id,
                    source_chat_id=memory.source_chat_id if memory.source_chat_id in self._chats else None,
                    supersedes=replaced,
                )
            copies[memory.id] = held[key] = copy.id
            self.report.memories_copied += 1
