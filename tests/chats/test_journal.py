"""The turn journal: nothing lost to a crash or an outage, nothing delivered twice."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from uuid import UUID, uuid4

import pytest

from chats.errors import StoreUnavailable
from chats.journal import TurnJournal
from chats.models import Source, Turn
from chats.sqlite.store import SqliteChatStore
from chats.store import AppendResult


class FlakyStore(SqliteChatStore):
    """The real SQLite store, with an outage switch and a gate the test can hold appends at."""

    down = False
    gate: asyncio.Event | None = None
    waiting: asyncio.Event | None = None

    async def append(self, chat_id: UUID, turns: Sequence[Turn]) -> AppendResult:
        if self.down:
            raise StoreUnavailable("the chat database is unavailable: simulated outage")
        if self.gate is not None and self.waiting is not None:
            self.waiting.set()
            await self.gate.wait()
        return await super().append(chat_id, turns)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[FlakyStore]:
    opened = await FlakyStore.open(tmp_path / "chats.sqlite3", "alice")
    assert isinstance(opened, FlakyStore)
    yield opened
    await opened.close()


def said(*texts: str) -> list[Turn]:
    return [Turn(role="user" if i % 2 == 0 else "model", text=text) for i, text in enumerate(texts)]


async def test_recorded_turns_reach_the_store_and_leave_the_journal(tmp_path: Path, store: FlakyStore) -> None:
    journal = TurnJournal(tmp_path / "journal.jsonl")
    first, second = await store.create(), await store.create()
    for chat, turn in zip([first, second, first], said("a", "b", "c"), strict=True):
        recorded = await journal.record(chat.id, turn)
        assert recorded.id is not None and recorded.text == turn.text
    delivery = await journal.deliver(store)
    assert (delivery.delivered, delivery.pending) == (3, 0)
    assert [t.text for t in (await store.get(first.id)).full_history] == ["a", "c"]
    assert [t.text for t in (await store.get(second.id)).full_history] == ["b"]
    assert not journal.path.exists()


async def test_an_outage_keeps_every_turn_for_later(tmp_path: Path, store: FlakyStore) -> None:
    journal = TurnJournal(tmp_path / "journal.jsonl")
    chat = await store.create()
    for turn in said("one", "two"):
        await journal.record(chat.id, turn)
    store.down = True
    assert (await journal.deliver(store)).pending == 2
    store.down = False
    assert (await journal.deliver(store)).delivered == 2
    assert [t.text for t in (await store.get(chat.id)).full_history] == ["one", "two"]


async def test_a_delivery_repeated_after_a_crash_duplicates_nothing(tmp_path: Path, store: FlakyStore) -> None:
    journal = TurnJournal(tmp_path / "journal.jsonl")
    chat = await store.create()
    for turn in said("one", "two"):
        await journal.record(chat.id, turn)
    # The crash: the store took the turns, the journal was never trimmed.
    await store.append(chat.id, [entry.turn for entry in await journal.pending()])
    delivery = await TurnJournal(journal.path).deliver(store)
    assert (delivery.delivered, delivery.already_there) == (0, 2)
    assert [t.text for t in (await store.get(chat.id)).full_history] == ["one", "two"]


async def test_turns_recorded_during_a_delivery_wait_for_the_next(tmp_path: Path, store: FlakyStore) -> None:
    journal = TurnJournal(tmp_path / "journal.jsonl")
    chat = await store.create()
    await journal.record(chat.id, said("before")[0])
    store.gate, store.waiting = asyncio.Event(), asyncio.Event()
    delivery = asyncio.create_task(journal.deliver(store))
    await store.waiting.wait()
    await journal.record(chat.id, said("during")[0])  # never waits on the slow store
    store.gate.set()
    assert (await delivery).delivered == 1
    assert [entry.turn.text for entry in await journal.pending()] == ["during"]
    store.gate = None
    await journal.deliver(store)
    assert [t.text for t in (await store.get(chat.id)).full_history] == ["before", "during"]


async def test_a_torn_last_line_is_skipped_and_loses_nothing_after_it(tmp_path: Path, store: FlakyStore) -> None:
    journal = TurnJournal(tmp_path / "journal.jsonl")
    chat = await store.create()
    await journal.record(chat.id, said("kept")[0])
    with journal.path.open("ab") as file:
        file.write(b'{"chat_id": "' + str(chat.id).encode() + b'", "turn": {"role": "us')
    await journal.record(chat.id, said("after the crash")[0])
    delivery = await journal.deliver(store)
    assert (delivery.delivered, delivery.damaged_lines) == (2, 1)
    assert [t.text for t in (await store.get(chat.id)).full_history] == ["kept", "after the crash"]


async def test_an_answers_web_sources_outlive_a_restart_and_reach_the_store(tmp_path: Path, store: FlakyStore) -> None:
    chat = await store.create()
    sources = (Source("bbc.co.uk", "https://example.org/weather"), Source("meteo", "https://example.net/roma"))
    await TurnJournal(tmp_path / "journal.jsonl").record(chat.id, Turn(role="model", text="Sunny.", sources=sources))
    restarted = TurnJournal(tmp_path / "journal.jsonl")
    assert [entry.turn.sources for entry in await restarted.pending()] == [sources]
    assert (await restarted.deliver(store)).delivered == 1
    assert (await store.get(chat.id)).full_history[0].sources == sources


async def test_turns_of_a_deleted_chat_are_dropped(tmp_path: Path, store: FlakyStore) -> None:
    journal = TurnJournal(tmp_path / "journal.jsonl")
    chat = await store.create()
    await journal.record(chat.id, said("gone")[0])
    await store.delete(chat.id)
    delivery = await journal.deliver(store)
    assert (delivery.dropped, delivery.pending) == (1, 0)
    assert not journal.path.exists()


async def test_a_chat_still_to_be_opened_is_made_by_its_first_delivery_and_survives_a_restart(
    tmp_path: Path, store: FlakyStore
) -> None:
    new_chat = uuid4()
    store.down = True
    await TurnJournal(tmp_path / "journal.jsonl").record(new_chat, said("Hello")[0], opens_chat=True)
    assert (await TurnJournal(tmp_path / "journal.jsonl").deliver(store)).pending == 1
    assert await store.count() == 0  # an outage keeps the turn, and the chat still to be made
    store.down = False
    restarted = TurnJournal(tmp_path / "journal.jsonl")  # the mark is in the file, not in memory
    delivery = await restarted.deliver(store)
    assert (delivery.delivered, delivery.to_chats) == (1, ((new_chat, 1),))
    assert [t.text for t in (await store.get(new_chat)).full_history] == ["Hello"]


async def test_an_opening_turn_delivered_again_after_a_crash_is_not_duplicated(
    tmp_path: Path, store: FlakyStore
) -> None:
    journal = TurnJournal(tmp_path / "journal.jsonl")
    new_chat = uuid4()
    turn = await journal.record(new_chat, said("Hello")[0], opens_chat=True)
    await store.create(chat_id=new_chat, turns=[turn])  # the store took it; the crash came before the rewrite
    delivery = await journal.deliver(store)
    assert (delivery.delivered, delivery.already_there) == (0, 1)
    assert len((await store.get(new_chat)).full_history) == 1


async def test_turns_of_a_chat_not_opened_by_them_are_dropped_when_it_is_gone(
    tmp_path: Path, store: FlakyStore
) -> None:
    journal = TurnJournal(tmp_path / "journal.jsonl")
    await journal.record(uuid4(), said("Hello")[0])  # a chat deleted meanwhile: not made again
    delivery = await journal.deliver(store)
    assert (delivery.dropped, await store.count()) == (1, 0)


async def test_what_was_said_since_the_chat_was_loaded_outlives_its_delivery(tmp_path: Path, store: FlakyStore) -> None:
    chat, other = (await store.create()).id, (await store.create()).id
    journal = TurnJournal(tmp_path / "journal.jsonl")
    await journal.record(chat, Turn(role="user", text="Before the load."))
    journal.mark_loaded()
    asked = await journal.record(chat, Turn(role="user", text="Switch to the other chat."))
    await journal.record(chat, Turn(role="model", text="Which one?"))
    await journal.record(other, Turn(role="user", text="Elsewhere."))
    await journal.deliver(store)  # delivered: the record of what was said stays
    assert [t.text for t in journal.said_since_loaded(chat)] == ["Switch to the other chat.", "Which one?"]
    await journal.record(chat, Turn(role="user", text="The garden one."))
    assert asked.id is not None and not await journal.mark_navigation(asked.id, other)  # delivered: kept here
    moved = await journal.record(chat, Turn(role="user", text="No, the kitchen."))
    assert moved.id is not None and await journal.mark_navigation(moved.id, other)
    assert [t.text for t in journal.said_since_loaded(chat)] == [
        "Switch to the other chat.",
        "Which one?",
        "The garden one.",
    ]
    assert [t.text for t in journal.said_since_loaded(other)] == ["Elsewhere.", "No, the kitchen."]
    assert [t.navigation for t in journal.said_since_loaded(other)] == [False, True]
    assert [(e.chat_id, e.turn.navigation) for e in await journal.pending()][-1] == (other, True)
    journal.mark_loaded()
    assert journal.said_since_loaded(chat) == []
