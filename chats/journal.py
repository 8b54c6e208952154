"""The turn journal: every finished turn is written to a local append-only file the moment it ends,
and delivered to the chat store later (on idle, on switch, on shutdown, at the next start).

It is the outbox that makes a crash or a store outage lose nothing: a turn leaves the journal only
after the store has it. Turns carry ids and stores keep an id once per chat, so a delivery cut short
and repeated never duplicates a turn.

It is also the one record of what was said since the chat in conversation was loaded from the store
(`mark_loaded`, `said_since_loaded`), delivered or not: with the store's copy as it was loaded, that is
what the chat holds now, for a conversation that must go on while the store cannot be reached, a live
session that must start over, and the memory tools that act only on the user's own words.

The file holds one JSON object per line: `{"chat_id": "...", "turn": {...}}`, with `"opens_chat": true`
on the turns of a chat the store does not hold yet: a conversation in a new chat creates it only with
its first saved turn, so a run that fails before anyone speaks leaves no empty chat behind. A line cut
short by a crash (the last one) or damaged on disk is skipped and counted, never fatal.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from uuid import UUID

from chats.errors import ChatNotFound, ChatsError, InvalidTurn
from chats.models import Turn
from chats.store import ChatStore

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class JournalEntry:
    chat_id: UUID
    turn: Turn
    """Always carries an id."""
    opens_chat: bool = False
    """The chat is not in the store yet: the delivery creates it with these turns."""


@dataclass(frozen=True, slots=True)
class Delivery:
    delivered: int
    """Turns the store now holds that it did not before."""
    already_there: int
    """Turns the store had already (a delivery repeated after a crash)."""
    dropped: int
    """Turns of chats deleted meanwhile: nobody can see them any more."""
    pending: int
    """Turns still in the journal because the store could not take them."""
    damaged_lines: int
    to_chats: tuple[tuple[UUID, int], ...] = ()
    """(chat id, turns it received) for each chat that received turns, in delivery order."""


JOURNAL_FILE = "journal.jsonl"
"""The journal's file name in the data folder."""


class TurnJournal:
    def __init__(self, path: Path) -> None:
        self._path = path
        self._file_lock = asyncio.Lock()
        """Held only for file work, never across a store call: recording never waits on the store."""
        self._delivery_lock = asyncio.Lock()
        self._since_loaded: list[JournalEntry] = []
        """What `record` wrote since `mark_loaded`, `mark_navigation`s applied; in memory only, never trimmed by a
        delivery."""

    @property
    def path(self) -> Path:
        return self._path

    async def record(self, chat_id: UUID, turn: Turn, *, opens_chat: bool = False) -> Turn:
        """Write `turn` durably (flushed and fsynced) and return it with its id. `opens_chat`: the chat is
        not in the store yet, and the delivery of this turn creates it."""
        entry = JournalEntry(chat_id, turn if turn.id is not None else replace(turn, id=uuid.uuid4()), opens_chat)
        async with self._file_lock:
            await asyncio.to_thread(self._append_lines, [_line(entry)])
        self._since_loaded.append(entry)
        return entry.turn

    def mark_loaded(self) -> None:
        """The chat in conversation was just loaded from the store (which holds every turn delivered so far):
        `said_since_loaded` counts from here."""
        self._since_loaded = []

    def said_since_loaded(self, chat_id: UUID) -> list[Turn]:
        """The turns recorded in `chat_id` since `mark_loaded`, in order, whether delivered yet or not."""
        return [entry.turn for entry in self._since_loaded if entry.chat_id == chat_id]

    async def mark_navigation(self, turn_id: UUID, chat_id: UUID) -> bool:
        """Journal the turn `turn_id` as part of a request to go to another chat (`Turn.navigation`), under
        `chat_id`: the chat switched to (where it opens no chat), or the one it was said in. False when the
        journal no longer holds it (delivered already). Waits for a delivery in progress, whose rewrite would
        undo it."""

        def marked(entry: JournalEntry) -> JournalEntry:
            if entry.turn.id != turn_id:
                return entry
            opens_chat = entry.opens_chat and entry.chat_id == chat_id
            return JournalEntry(chat_id, replace(entry.turn, navigation=True), opens_chat)

        async with self._delivery_lock, self._file_lock:
            entries, _, read_up_to = await asyncio.to_thread(self._read)
            if not any(entry.turn.id == turn_id for entry in entries):
                return False
            await asyncio.to_thread(self._rewrite, [marked(e) for e in entries], read_up_to)
            self._since_loaded = [marked(e) for e in self._since_loaded]
        return True

    async def pending(self) -> list[JournalEntry]:
        async with self._file_lock:
            entries, _, _ = await asyncio.to_thread(self._read)
        return entries

    async def deliver(self, store: ChatStore) -> Delivery:
        """Append every journaled turn to `store`, chat by chat in order, and keep only what failed.

        Turns recorded while the store is being written to stay in the journal for the next delivery.
        """
        async with self._delivery_lock:
            async with self._file_lock:
                entries, damaged, read_up_to = await asyncio.to_thread(self._read)
            kept: list[JournalEntry] = []
            to_chats: list[tuple[UUID, int]] = []
            delivered = already = dropped = 0
            for chat_id, turns, opens_chat in _by_chat(entries):
                try:
                    appended = await _append(store, chat_id, turns, opens_chat=opens_chat)
                except ChatNotFound:
                    dropped += len(turns)
                    log.warning("dropped %d journaled turn(s) of deleted chat %s", len(turns), chat_id)
                except ChatsError as error:
                    kept += [JournalEntry(chat_id, turn, opens_chat) for turn in turns]
                    log.warning("kept %d turn(s) of chat %s in the journal: %s", len(turns), chat_id, error)
                else:
                    delivered += appended
                    already += len(turns) - appended
                    if appended:
                        to_chats.append((chat_id, appended))
            async with self._file_lock:
                await asyncio.to_thread(self._rewrite, kept, read_up_to)
        return Delivery(delivered, already, dropped, len(kept), damaged, tuple(to_chats))

    def _append_lines(self, lines: Sequence[str]) -> None:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        with self._path.open("ab+") as file:
            # A line cut short by a crash must not swallow the next record: end it first.
            if file.seek(0, os.SEEK_END) > 0:
                file.seek(-1, os.SEEK_END)
                if file.read(1) != b"\n":
                    file.write(b"\n")
            file.write("".join(lines).encode("utf-8"))
            file.flush()
            os.fsync(file.fileno())

    def _read(self) -> tuple[list[JournalEntry], int, int]:
        """The entries, how many lines were damaged, and how many bytes were read."""
        try:
            raw = self._path.read_bytes()
        except FileNotFoundError:
            return [], 0, 0
        entries, damaged = [], 0
        for line in raw.decode("utf-8", errors="replace").splitlines():
            if not line.strip():
                continue
            try:
                entries.append(_entry(line))
            except (ValueError, InvalidTurn):
                damaged += 1
        if damaged:
            log.warning("skipped %d damaged line(s) of the turn journal", damaged)
        return entries, damaged, len(raw)

    def _rewrite(self, kept: Sequence[JournalEntry], read_up_to: int) -> None:
        """Replace what was read with `kept`, keeping what was recorded after the read; atomically,
        so that a crash leaves either the old file or the new one."""
        try:
            with self._path.open("rb") as file:
                file.seek(read_up_to)
                recorded_since = file.read()
        except FileNotFoundError:
            recorded_since = b""
        if not kept and not recorded_since:
            self._path.unlink(missing_ok=True)
            return
        temporary = self._path.with_suffix(".tmp")
        with temporary.open("wb") as file:
            file.write("".join(_line(entry) for entry in kept).encode("utf-8") + recorded_since)
            file.flush()
            os.fsync(file.fileno())
        temporary.replace(self._path)


async def _append(store: ChatStore, chat_id: UUID, turns: list[Turn], *, opens_chat: bool) -> int:
    """Append `turns` to the chat, and say how many it did not hold yet; a chat still to be opened is
    created with them. Once created (a delivery that reached the store and was cut short before the
    journal was rewritten), it is appended to like any other."""
    try:
        return (await store.append(chat_id, turns)).appended
    except ChatNotFound:
        if not opens_chat:
            raise
    await store.create(chat_id=chat_id, turns=turns)
    return len(turns)


def _line(entry: JournalEntry) -> str:
    record: dict[str, object] = {"chat_id": str(entry.chat_id), "turn": entry.turn.to_json()}
    if entry.opens_chat:
        record["opens_chat"] = True
    return json.dumps(record, ensure_ascii=False) + "\n"


def _entry(line: str) -> JournalEntry:
    data = json.loads(line)
    if not isinstance(data, dict):
        raise ValueError("a journal line must be an object")
    turn = Turn.from_json(data.get("turn"))
    if turn.id is None:
        raise ValueError("a journaled turn must have an id")
    return JournalEntry(UUID(str(data.get("chat_id"))), turn, data.get("opens_chat") is True)


def _by_chat(entries: Sequence[JournalEntry]) -> list[tuple[UUID, list[Turn], bool]]:
    """Entries grouped by chat (its turns, and whether the chat is still to be opened), each group in
    journal order, groups in order of first appearance."""
    groups: dict[UUID, list[Turn]] = {}
    opening: set[UUID] = set()
    for entry in entries:
        groups.setdefault(entry.chat_id, []).append(entry.turn)
        if entry.opens_chat:
            opening.add(entry.chat_id)
    return [(chat_id, turns, chat_id in opening) for chat_id, turns in groups.items()]
