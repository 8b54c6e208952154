"""Copying a whole history (folders, chats with their turns, memories) from one store to another: SQLite
into Supabase, or back.

Running it again copies nothing twice. A chat keeps its id in the copy, so the next run finds it and
appends only the turns it lacks (turns are known by their ids, or by position for turns without one);
a folder is known by its name (or, renamed since, by its id); a memory by its id or by its content,
category and folder. Copies keep their ids and their times: the target stores write with a clock set to
the moment each row had in the source.
`parley chats import` and `parley memories import` copy from an export file with the same functions.

What is copied of a chat: title, folder, every turn, the compacted assistant history with its summary
(when the copy holds exactly the source's turns), the topic vector, the memory switch and the working
memory. Turn vectors for recall are not: the maintenance backfill makes them where the chat now lives.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Container, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime
from uuid import UUID

from chats.errors import ChatNotFound
from chats.import_reader import ChatState
from chats.memory.models import Memory
from chats.memory.store import MemoryChanges, MemoryStore, NewMemory
from chats.models import Chat, EmbeddedText, Folder, Turn, folder_name_key, utc_now
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


async def copy_folders(target: ChatStore, clock: StampClock, folders: Sequence[Folder]) -> tuple[dict[str, str], int]:
    """Make in `target` the `folders` it lacks, each with its id and creation time: each folder's id -> the
    target's folder for it, and how many were made.

    A folder is known by its name first, as a person knows it: when the target has a folder of that name
    under another id (made there on its own), that one is kept and what names the source's id is mapped to
    it. Else by its id: a folder renamed in one store since the last copy is the same folder, kept under the
    target's name rather than doubled."""
    held = await target.list_folders()
    by_name = {folder_name_key(folder.name): folder.id for folder in held}
    ids = {folder.id for folder in held}
    found, made = {}, 0
    for folder in folders:
        key = folder_name_key(folder.name)
        if key not in by_name and folder.id not in ids:
            with clock.at(folder.created_at):
                by_name[key] = (await target.create_folder(folder.name, folder_id=folder.id)).id
            ids.add(folder.id)
            made += 1
        found[folder.id] = by_name.get(key, folder.id)
    return found, made


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


async def create_copy(
    target: ChatStore, clock: StampClock, chat: Chat, project_id: str | None, state: ChatState
) -> Chat:
    """A new chat in `target` with `chat`'s id, title and creation time, in the folder `project_id` of the
    target, with `state`; no turns yet (`extend_copy` brings them). `clock` must be the target's clock."""
    with clock.at(chat.created_at):
        copy = await target.create(chat_id=chat.id, title=chat.title, project_id=project_id)
    if not state.memory_enabled:
        await target.set_memory_enabled(chat.id, False)
    if state.working_memory:
        await target.put_working_memory(chat.id, state.working_memory, expected_version=0)
    return copy


async def extend_copy(target: ChatStore, clock: StampClock, chat: Chat, copy: Chat, topic: EmbeddedText | None) -> int:
    """Append to `copy` (`chat` as the target holds it) the turns of `chat` it lacks, stamped with `chat`'s
    last activity; when it then holds exactly `chat`'s turns it also gets what `chat`'s model sees (its
    assistant history and summary) and `topic`. How many turns were appended."""
    new = missing_turns(chat.full_history, copy.full_history)
    if not new:
        return 0
    with clock.at(chat.last_activity_at):
        version = (await target.append(chat.id, new)).version
    if same_turns(chat.full_history, [*copy.full_history, *new]):
        # The copy holds exactly the source's turns: it may as well see them as the source's model does.
        if chat.assistant_history != chat.full_history or chat.summary is not None:
            await target.replace_assistant_history(
                chat.id, expected_version=version, assistant_history=chat.assistant_history, summary=chat.summary
            )
        if topic is not None:
            await target.set_embedding(chat.id, "topic", topic)
    return len(new)


def supersession_order(memories: Sequence[Memory]) -> list[Memory]:
    """`memories` oldest first, except that a memory always comes after those it superseded: a copy can
    then mark them superseded by it as it is made (their times alone may say otherwise)."""
    by_time = sorted(memories, key=lambda m: m.created_at)
    ids = {memory.id for memory in memories}
    older: dict[UUID, list[Memory]] = {}
    for memory in by_time:
        if memory.superseded_by in ids and memory.superseded_by != memory.id:
            older.setdefault(memory.superseded_by, []).append(memory)
    ordered: list[Memory] = []
    placed: set[UUID] = set()
    for first in by_time:
        # Depth first, without recursion: a fact restated every week for years is a chain of thousands.
        stack = [(first, False)]
        while stack:
            memory, expanded = stack.pop()
            if expanded:
                ordered.append(memory)
            elif memory.id not in placed:  # placed before its older versions: a (corrupt) cycle ends here
                placed.add(memory.id)
                stack.append((memory, True))
                stack += [(old, False) for old in reversed(older.get(memory.id, ()))]
    return ordered


async def copy_memories(
    target: MemoryStore,
    clock: StampClock,
    memories: Sequence[Memory],
    folder: Callable[[str], str],
    chats: Container[UUID],
    *,
    copy_id: Callable[[UUID], UUID] | None = None,
) -> dict[UUID, Memory]:
    """Add to `target` the `memories` it lacks, each with its id, times, tags and importance, and marked
    superseded by the same memory as it was. A memory the target holds is known by its id, or by its
    content, category and folder (then the target's is kept, under its own id). With `copy_id` every memory
    is a copy under `copy_id(its id)`, known by that id alone: copying again finds the copies. `folder`
    gives the target's folder for a memory's `project_id`; `chats` are the chats the target holds (a
    memory keeps its source chat only when that chat is there). The memories made, by source id."""
    held: dict[object, UUID] = {}
    for memory in await target.export():
        held[memory.id] = memory.id
        if copy_id is None:
            held[memory_key(memory, memory.project_id)] = memory.id
    copies: dict[UUID, UUID] = {}
    """Source memory id -> its copy's id (made now or found)."""
    older: dict[UUID, list[UUID]] = {}
    """Source memory id -> the source memories it superseded."""
    for memory in memories:
        if memory.superseded_by is not None:
            older.setdefault(memory.superseded_by, []).append(memory.id)
    made: dict[UUID, Memory] = {}
    for memory in supersession_order(memories):
        project_id = folder(memory.project_id) if memory.project_id else None
        key = memory_key(memory, project_id)
        wanted = memory.id if copy_id is None else copy_id(memory.id)
        found = held.get(wanted) if copy_id is not None else held.get(wanted, held.get(key))
        if found is not None:
            copies[memory.id] = found
            continue
        replaced = [copies[old] for old in older.get(memory.id, ()) if old in copies]
        with clock.at(memory.created_at):
            copy = await target.add(
                NewMemory(
                    content=memory.embedding,
                    category=memory.category,
                    importance=memory.importance,
                    title=memory.title,
                    tags=memory.tags,
                    project_id=project_id,
                    source_chat_id=memory.source_chat_id if memory.source_chat_id in chats else None,
                    supersedes=replaced,
                    memory_id=wanted,
                )
            )
        if memory.updated_at != memory.created_at:  # edited in the source: an update with no change stamps it
            with clock.at(memory.updated_at):
                copy = await target.update(copy.id, MemoryChanges())
        copies[memory.id] = held[wanted] = copy.id
        if copy_id is None:
            held[key] = copy.id
        made[memory.id] = copy
    return made


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
        source = await self._source.chats.list_folders()
        self._folders, self.report.folders_created = await copy_folders(self._target.chats, self._clock, source)

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
            project_id = self._folders.get(chat.project_id) if chat.project_id else None
            copy = await create_copy(target, self._clock, chat, project_id, await self._state(chat.id))
            self.report.chats_created += 1
        appended = await extend_copy(target, self._clock, chat, copy, topic)
        self.report.chats_extended += bool(appended and copy.full_history)
        self.report.turns_copied += appended

    async def _state(self, chat_id: UUID) -> ChatState:
        source = self._source.chats
        enabled = (await source.load_assistant_context(chat_id)).memory_enabled
        return ChatState(enabled, (await source.get_working_memory(chat_id)).data)

    async def memories(self) -> None:
        theirs = await self._source.memories.export()  # oldest first: a superseded one before its successor
        self.report.memories = len(theirs)

        def folder(project_id: str) -> str:
            return self._folders.get(project_id, project_id)

        copied = await copy_memories(self._target.memories, self._clock, theirs, folder, self._chats)
        self.report.memories_copied = len(copied)
