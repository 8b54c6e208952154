"""Properties of compaction through the real store: nothing lost, nothing reordered, bounded context."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from chats.compaction import SUMMARY_WINDOW_SIZE, TAIL_SIZE
from chats.embedders.minilm import MiniLMEmbedder
from chats.maintenance import ChatMaintainer, MaintenanceWorker
from chats.models import ROLES, Chat, Turn
from chats.sqlite.store import SqliteChatStore
from tests.fakes.text_models import ScriptedTextModel


def check_invariants(chat: Chat, appended: list[Turn]) -> None:
    assert chat.full_history == tuple(appended)
    assert len(chat.assistant_history) <= SUMMARY_WINDOW_SIZE
    tail = min(len(chat.full_history), TAIL_SIZE)
    assert chat.assistant_history[len(chat.assistant_history) - tail :] == chat.full_history[-tail:]
    assert not any(t.summary for t in chat.assistant_history[1:])


@settings(max_examples=15, deadline=None)
@given(batches=st.lists(st.integers(1, 6), min_size=1, max_size=30))
def test_appends_then_compaction_keep_every_turn_in_order(minilm: MiniLMEmbedder, batches: list[int]) -> None:
    async def scenario(path: Path) -> None:
        store = await SqliteChatStore.open(path, "alice")
        maintainer = ChatMaintainer(store, minilm, ScriptedTextModel())
        chat = await store.create()
        appended: list[Turn] = []
        for size in batches:
            batch = [Turn(role=ROLES[len(appended) % 2], text=f"turn {len(appended) + i}") for i in range(size)]
            appended += batch
            await store.append(chat.id, batch)
            await maintainer.maintain(chat.id)
            check_invariants(await store.get(chat.id), appended)
        await store.close()

    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(scenario(Path(folder) / "chats.sqlite3"))


@settings(max_examples=15, deadline=None)
@given(count=st.integers(1, 70))
def test_single_turn_appends_never_grow_the_context_past_31(minilm: MiniLMEmbedder, count: int) -> None:
    async def scenario(path: Path) -> None:
        store = await SqliteChatStore.open(path, "alice")
        maintainer = ChatMaintainer(store, minilm, ScriptedTextModel())
        chat = await store.create()
        appended: list[Turn] = []
        for i in range(count):
            appended.append(Turn(role=ROLES[i % 2], text=f"turn {i}"))
            result = await store.append(chat.id, appended[-1:])
            assert result.assistant_turns <= SUMMARY_WINDOW_SIZE + 1
            await maintainer.maintain(chat.id)
        check_invariants(await store.get(chat.id), appended)
        await store.close()

    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(scenario(Path(folder) / "chats.sqlite3"))


@settings(max_examples=10, deadline=None)
@given(first=st.integers(1, 40), second=st.integers(1, 40))
def test_two_concurrent_appenders_lose_nothing(minilm: MiniLMEmbedder, first: int, second: int) -> None:
    async def appender(store: SqliteChatStore, worker: MaintenanceWorker, chat: Chat, name: str, n: int) -> None:
        for i in range(n):
            await store.append(chat.id, [Turn(role="user", text=f"{name} {i}")])
            worker.request(chat.id)

    async def scenario(path: Path) -> None:
        one = await SqliteChatStore.open(path, "alice")
        two = await SqliteChatStore.open(path, "alice")
        chat = await one.create()
        async with MaintenanceWorker(ChatMaintainer(one, minilm, ScriptedTextModel())) as worker:
            await asyncio.gather(appender(one, worker, chat, "one", first), appender(two, worker, chat, "two", second))
            await worker.idle()
        after = await one.get(chat.id)
        for name, n in (("one", first), ("two", second)):
            assert [t.text for t in after.full_history if t.text.startswith(name)] == [f"{name} {i}" for i in range(n)]
        check_invariants(after, list(after.full_history))
        await one.close()
        await two.close()

    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(scenario(Path(folder) / "chats.sqlite3"))
