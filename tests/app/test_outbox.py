"""The journal as an outbox on Supabase: the real `supabase` client and the local stack, its HTTP front
killed and brought back on the same port; the pauses between retries are the test's to release."""

from __future__ import annotations

import asyncio
from pathlib import Path
from uuid import UUID

from app.outbox import Outbox
from chats.journal import Delivery, TurnJournal
from chats.models import Turn
from chats.supabase.store import SupabaseChatStore
from tests.fakes.supabase_stack import SupabaseStack
from voice.backoff import Backoff

WAIT_S = 10.0
"""Safety net only: a test that reaches it has failed."""


class Pauses:
    """The outbox's `pause`: records each wait asked for and returns only when the test releases it."""

    def __init__(self) -> None:
        self.asked: list[float] = []
        self._released = asyncio.Semaphore(0)
        self._changed = asyncio.Condition()

    async def __call__(self, seconds: float) -> None:
        async with self._changed:
            self.asked.append(seconds)
            self._changed.notify_all()
        await self._released.acquire()

    def release(self) -> None:
        self._released.release()

    async def until_asked(self, count: int) -> None:
        async with asyncio.timeout(WAIT_S), self._changed:
            await self._changed.wait_for(lambda: len(self.asked) >= count)


class Deliveries:
    """The outbox's `on_retry_delivered`."""

    def __init__(self) -> None:
        self.seen: list[Delivery] = []
        self._news = asyncio.Event()

    async def __call__(self, delivery: Delivery) -> None:
        self.seen.append(delivery)
        self._news.set()

    async def until_one(self) -> Delivery:
        async with asyncio.timeout(WAIT_S):
            await self._news.wait()
        return self.seen[-1]


def stored_turns(stack: SupabaseStack, chat_id: UUID) -> list[tuple[str, str]]:
    """(turn id, text) of every stored turn of the chat, read past row level security."""
    return stack.query("SELECT turn_id::text, text FROM chat_turns WHERE chat_id = %s ORDER BY seq", chat_id)


def test_the_waits_double_up_to_a_minute() -> None:
    assert [Backoff().delay(attempt) for attempt in range(8)] == [1, 2, 4, 8, 16, 32, 60, 60]
    assert Backoff(first_s=0.5, max_s=3).delay(1000) == 3


async def test_turns_spoken_while_supabase_is_down_arrive_once_when_it_is_back(
    supabase_stack: SupabaseStack, tmp_path: Path
) -> None:
    front = supabase_stack.serve()
    user = supabase_stack.new_user("alice")
    store = await SupabaseChatStore.sign_in(front.url, supabase_stack.anon_key, user.email, user.password)
    chat = await store.create(title="Outage")
    journal, pauses, deliveries = TurnJournal(tmp_path / "journal.jsonl"), Pauses(), Deliveries()
    said: list[Turn] = []

    async def say(*texts: str) -> None:
        for text in texts:
            said.append(await journal.record(chat.id, Turn(role="user", text=text)))

    async with Outbox(journal, store, on_retry_delivered=deliveries, pause=pauses) as outbox:
        await say("one", "two")
        assert (await outbox.deliver()).delivered == 2
        assert pauses.asked == []  # nothing left over: no retry

        front.stop()  # Supabase goes away in the middle of the conversation
        await say("three", "four")  # recording goes on: it never waits on the store
        failed = await outbox.deliver()
        assert (failed.delivered, failed.pending) == (0, 2)
        for attempt in range(3):  # each retry fails, and waits twice as long as the one before
            await pauses.until_asked(attempt + 1)
            pauses.release()
        await pauses.until_asked(4)
        assert pauses.asked == [1, 2, 4, 8]
        await say("five")

        front = supabase_stack.serve(front.port)  # back, at the same address
        pauses.release()
        delivery = await deliveries.until_one()
        assert (delivery.delivered, delivery.pending, delivery.to_chats) == (3, 0, ((chat.id, 3),))
    assert await journal.pending() == []
    assert stored_turns(supabase_stack, chat.id) == [(str(turn.id), turn.text) for turn in said]
    await store.close()
    front.stop()


async def test_a_delivery_the_store_took_but_never_confirmed_adds_nothing_when_repeated(
    supabase_stack: SupabaseStack, tmp_path: Path
) -> None:
    user = supabase_stack.new_user("alice")
    store = await SupabaseChatStore.sign_in(supabase_stack.url, supabase_stack.anon_key, user.email, user.password)
    chat = await store.create()
    journal = TurnJournal(tmp_path / "journal.jsonl")
    said = [await journal.record(chat.id, Turn(role="user", text=text)) for text in ("one", "two", "three")]
    await store.append(chat.id, said[:2])  # what reached the store before the answer was lost
    async with Outbox(journal, store, on_retry_delivered=Deliveries(), pause=Pauses()) as outbox:
        delivery = await outbox.deliver()
    assert (delivery.delivered, delivery.already_there, delivery.pending) == (1, 2, 0)
    assert stored_turns(supabase_stack, chat.id) == [(str(turn.id), turn.text) for turn in said]
    await store.close()
