"""The behaviour every `ChatStore` must have with its chats and their turns, and what the other contracts
share: the `store` fixture, a clock, turns and unit vectors. The other contracts: folders (`folder_contract`),
search (`search_contract`), recall and working memory (`recall_contract`), the share of words held
(`words_held_contract`). A backend's test module binds `make_store` and imports the tests of each:
`from tests.chats.store_contract import *`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from uuid import uuid4

import numpy as np
import pytest

from chats.errors import ChatNotFound, VersionConflict
from chats.models import EmbeddedText, Source, Turn
from chats.store import ChatStore, SearchQuery

StoreFactory = Callable[[str], Awaitable[ChatStore]]
"""Opens a store bound to the given user id, on the backend's shared test database."""


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def turns(*texts: str) -> list[Turn]:
    return [Turn(role="user" if i % 2 == 0 else "model", text=text) for i, text in enumerate(texts)]


def unit(*values: float) -> np.ndarray:
    vector = np.zeros(8, dtype=np.float32)
    vector[: len(values)] = values
    return vector / np.linalg.norm(vector)


@pytest.fixture
async def store(make_store: StoreFactory) -> AsyncIterator[ChatStore]:
    opened = await make_store("alice")
    yield opened
    await opened.close()


async def test_create_starts_both_histories_alike(store: ChatStore) -> None:
    chat = await store.create(title="Kitchen", turns=turns("hi", "hello"))
    assert chat.full_history == chat.assistant_history == tuple(turns("hi", "hello"))
    assert chat.title == "Kitchen"
    assert chat.summary is None
    assert chat.user_id == store.user_id  # the user the store is bound to (a Supabase user id)
    assert (await store.get(chat.id)) == chat


async def test_a_chat_copied_from_another_store_keeps_its_id(store: ChatStore) -> None:
    original = uuid4()
    chat = await store.create(title="Copied", chat_id=original)
    assert chat.id == original
    assert (await store.get(original)).title == "Copied"


async def test_turn_fields_survive_a_round_trip(store: ChatStore) -> None:
    turn = Turn(role="model", text="answer", thinking="why", at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    request = Turn(role="user", text="back to the venue chat", navigation=True)
    note = Turn(role="model", text="Looked at the screen at 14:02 (1280 x 720 pixels).", note=True)
    chat = await store.create(turns=[turn, request, note])
    assert (await store.get(chat.id)).full_history == (turn, request, note)


async def test_an_answers_web_sources_are_kept_with_it_and_never_searched(store: ChatStore) -> None:
    sources = (
        Source("bbc.co.uk", "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC1"),
        Source("Météo · ilmeteo", "https://example.org/roma?giorno=domani&x=1"),
    )
    answer = Turn(role="model", text="Sunny, 24 degrees.", sources=sources, searches=("meteo roma",), id=uuid4())
    chat = await store.create(turns=turns("weather in Rome?"))
    await store.append(chat.id, [answer])
    after = await store.get(chat.id)
    assert after.full_history[-1] == after.assistant_history[-1] == answer
    assert (await store.load_assistant_context(chat.id)).assistant_history[-1].sources == sources
    assert await store.search(SearchQuery(vector=unit(1), model="m", text="ilmeteo")) == []
    assert await store.search(SearchQuery(vector=unit(1), model="m", text="roma")) == []


async def test_unknown_chat_is_not_found_everywhere(store: ChatStore) -> None:
    missing = uuid4()
    for call in (
        store.get(missing),
        store.load_assistant_context(missing),
        store.append(missing, turns("x")),
        store.rename(missing, "t"),
        store.move(missing, "p"),
        store.delete(missing),
        store.replace_assistant_history(missing, expected_version=1, assistant_history=[], summary=None),
    ):
        with pytest.raises(ChatNotFound):
            await call


async def test_append_extends_both_histories_and_bumps_activity(make_store: StoreFactory) -> None:
    clock = Clock()
    store = await make_store_with_clock(make_store, clock)
    chat = await store.create(turns=turns("one"))
    clock.advance(minutes=5)
    result = await store.append(chat.id, turns("two", "three"))
    after = await store.get(chat.id)
    assert [t.text for t in after.full_history] == ["one", "two", "three"]
    assert after.assistant_history == after.full_history
    assert after.last_activity_at == clock.now
    assert after.version == result.version == chat.version + 1
    assert (result.assistant_turns, result.full_turns, result.appended) == (3, 3, 2)
    await store.close()


async def test_a_turn_delivered_twice_is_kept_once(store: ChatStore) -> None:
    chat = await store.create()
    first, second = Turn(role="user", text="once", id=uuid4()), Turn(role="model", text="twice", id=uuid4())
    assert (await store.append(chat.id, [first])).appended == 1
    result = await store.append(chat.id, [first, second, second, Turn(role="user", text="no id")])
    assert (result.appended, result.full_turns) == (2, 3)
    after = await store.get(chat.id)
    assert [t.text for t in after.full_history] == ["once", "twice", "no id"]
    assert after.assistant_history == after.full_history
    assert after.full_history[0].id == first.id
    assert (await store.append(chat.id, [first, second])).version == after.version


async def test_empty_append_changes_nothing(store: ChatStore) -> None:
    chat = await store.create(turns=turns("one"))
    result = await store.append(chat.id, [])
    assert result.version == chat.version
    assert await store.get(chat.id) == chat


async def test_list_is_most_recent_first_and_paged(make_store: StoreFactory) -> None:
    clock = Clock()
    store = await make_store_with_clock(make_store, clock)
    ids = []
    for i in range(5):
        clock.advance(minutes=1)
        ids.append((await store.create(title=f"chat {i}")).id)
    clock.advance(minutes=1)
    await store.append(ids[0], turns("back to the first"))
    listed = [info.id for info in await store.list_chats(limit=10)]
    assert listed == [ids[0], ids[4], ids[3], ids[2], ids[1]]
    assert [info.id for info in await store.list_chats(limit=2, offset=1)] == [ids[4], ids[3]]
    assert await store.count() == 5
    first = (await store.list_chats(limit=1))[0]
    assert (first.turn_count, first.title) == (1, "chat 0")
    await store.close()


async def test_memory_can_be_switched_off_per_chat(store: ChatStore) -> None:
    chat, other = await store.create(), await store.create()
    assert (await store.load_assistant_context(chat.id)).memory_enabled is True  # on by default
    await store.set_memory_enabled(chat.id, False)
    assert (await store.load_assistant_context(chat.id)).memory_enabled is False
    assert (await store.load_assistant_context(other.id)).memory_enabled is True
    await store.set_memory_enabled(chat.id, True)
    assert (await store.load_assistant_context(chat.id)).memory_enabled is True
    with pytest.raises(ChatNotFound):
        await store.set_memory_enabled(uuid4(), False)


async def test_compare_and_swap_replaces_only_at_the_expected_version(store: ChatStore) -> None:
    chat = await store.create(turns=turns("a", "b", "c"))
    summary = EmbeddedText(text="They said a and b.", vector=unit(1, 2), model="m")
    new_history = [Turn(role="model", text="They said a and b.", summary=True), *turns("c")]
    version = await store.replace_assistant_history(
        chat.id, expected_version=chat.version, assistant_history=new_history, summary=summary
    )
    after = await store.get(chat.id)
    assert after.version == version == chat.version + 1
    assert after.assistant_history == tuple(new_history)
    assert after.full_history == chat.full_history
    assert after.summary is not None and after.summary.text == summary.text and after.summary.model == "m"
    np.testing.assert_allclose(after.summary.vector, summary.vector, rtol=1e-6)
    with pytest.raises(VersionConflict) as conflict:
        await store.replace_assistant_history(
            chat.id, expected_version=chat.version, assistant_history=[], summary=None
        )
    assert conflict.value.actual == version
    assert await store.get(chat.id) == after


async def test_a_user_title_is_never_replaced_by_a_generated_one(store: ChatStore) -> None:
    chat = await store.create()
    assert await store.rename(chat.id, "Generated", automatic=True)
    assert await store.rename(chat.id, "Mine")
    assert not await store.rename(chat.id, "Generated again", automatic=True)
    assert (await store.get(chat.id)).title == "Mine"


async def test_delete_removes_the_chat_and_its_words(store: ChatStore) -> None:
    chat = await store.create(turns=turns("zucchini lasagna recipe"))
    await store.delete(chat.id)
    with pytest.raises(ChatNotFound):
        await store.get(chat.id)
    assert await store.search(SearchQuery(vector=unit(1), model="m", text="zucchini")) == []


async def test_users_never_see_each_other(make_store: StoreFactory) -> None:
    alice = await make_store("alice")
    bob = await make_store("bob")
    chat = await alice.create(title="Alice's secret", turns=turns("my secret plan"))
    await alice.set_embedding(chat.id, "topic", EmbeddedText("secret", unit(1), "m"))
    assert await bob.list_chats() == []
    assert await bob.count() == 0
    assert await bob.search(SearchQuery(vector=unit(1), model="m", text="secret plan")) == []
    for call in (
        bob.get(chat.id),
        bob.append(chat.id, turns("x")),
        bob.rename(chat.id, "x"),
        bob.delete(chat.id),
        bob.set_embedding(chat.id, "topic", EmbeddedText("x", unit(1), "m")),
    ):
        with pytest.raises(ChatNotFound):
            await call
    assert (await alice.get(chat.id)).full_history == tuple(turns("my secret plan"))
    await alice.close()
    await bob.close()


async def test_concurrent_appends_lose_nothing(make_store: StoreFactory) -> None:
    first = await make_store("alice")
    second = await make_store("alice")
    chat = await first.create()
    texts = [f"turn {i}" for i in range(40)]
    await asyncio.gather(
        *(first.append(chat.id, turns(t)) for t in texts[:20]),
        *(second.append(chat.id, turns(t)) for t in texts[20:]),
    )
    after = await first.get(chat.id)
    assert sorted(t.text for t in after.full_history) == sorted(texts)
    assert after.assistant_history == after.full_history
    assert after.version == chat.version + 40
    await first.close()
    await second.close()


async def make_store_with_clock(make_store: StoreFactory, clock: Clock) -> ChatStore:
    factory = getattr(make_store, "with_clock", None)
    assert factory is not None, "the backend's make_store must offer with_clock(user_id, clock)"
    store: ChatStore = await factory("alice", clock)
    return store
