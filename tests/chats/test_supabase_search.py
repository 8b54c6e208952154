"""Chat search on Supabase past row level security (0006_fast_chat_search.sql, 0007_chat_search_vectors.sql):
the word counts and the vector table it reads stay exact through every write, it searches only the words
that tell rows apart, as SQLite does, and, running as its owner, still keeps to the caller's rows."""

from __future__ import annotations

import numpy as np
import pytest

from chats.models import EmbeddedText, Turn
from chats.store import SearchQuery
from chats.supabase.store import SupabaseChatStore
from tests.fakes.supabase_stack import SupabaseStack, TestUser

RECOUNT = """
SELECT in_turns, lexeme, count(*)::integer FROM (
    SELECT true AS in_turns, l.lexeme FROM chat_turns AS t CROSS JOIN LATERAL unnest(t.words) AS l WHERE t.user_id = %s
    UNION ALL
    SELECT false, l.lexeme FROM chats AS c CROSS JOIN LATERAL unnest(c.words) AS l WHERE c.user_id = %s
) AS w GROUP BY 1, 2
"""


def unit(*values: float) -> np.ndarray:
    vector = np.zeros(8, dtype=np.float32)
    vector[: len(values)] = values
    return vector / np.linalg.norm(vector)


SEARCHABLE = """
SELECT c.id, c.summary_model, c.summary_embedding::text FROM chats AS c
WHERE c.user_id = %s AND c.summary_model IS NOT NULL
UNION ALL
SELECT c.id, c.topic_model, c.topic_embedding::text FROM chats AS c
WHERE c.user_id = %s AND c.topic_model IS NOT NULL AND c.topic_model IS DISTINCT FROM c.summary_model
"""


def search_vectors(stack: SupabaseStack, user: TestUser) -> tuple[set[tuple[object, ...]], set[tuple[object, ...]]]:
    """The vectors the search table keeps, and those the chats hold (the summary's, else the topic's)."""
    kept = stack.query(
        "SELECT v.chat_id, m.name, v.embedding::text FROM parley.chat_search_vectors AS v"
        " JOIN parley.embedding_models AS m ON m.id = v.model_id"
        " WHERE v.user_id = %s AND v.dims = extensions.vector_dims(v.embedding)",
        user.id,
    )
    return {tuple(row) for row in kept}, {tuple(row) for row in stack.query(SEARCHABLE, user.id, user.id)}


def counts(stack: SupabaseStack, user: TestUser) -> tuple[set[tuple[bool, str, int]], set[tuple[bool, str, int]]]:
    """The counts the database keeps, and a count made afresh from the rows."""
    kept = stack.query("SELECT in_turns, lexeme, rows FROM parley.word_counts WHERE user_id = %s AND rows > 0", user.id)
    return {tuple(row) for row in kept}, {tuple(row) for row in stack.query(RECOUNT, user.id, user.id)}


async def sign_in(stack: SupabaseStack, user: TestUser) -> SupabaseChatStore:
    return await SupabaseChatStore.sign_in(stack.url, stack.anon_key, user.email, user.password)


async def test_the_word_counts_follow_every_write(supabase_stack: SupabaseStack) -> None:
    user = supabase_stack.new_user("alice")
    store = await sign_in(supabase_stack, user)
    kitchen = await store.create(title="Kitchen tiles", turns=[Turn(role="user", text="blue tiles for the kitchen")])
    trip = await store.create(turns=[Turn(role="user", text="a trip to Lisbon"), Turn(role="model", text="lovely")])
    await store.append(kitchen.id, [Turn(role="user", text="and a granite worktop")])
    await store.replace_assistant_history(
        kitchen.id,
        expected_version=(await store.get(kitchen.id)).version,
        assistant_history=[Turn(role="model", text="Tiles and worktop chosen.", summary=True)],
        summary=EmbeddedText("Tiles and worktop chosen.", unit(1), "m"),
    )
    await store.set_embedding(trip.id, "topic", EmbeddedText("Lisbon trip", unit(0, 1), "m"))
    await store.rename(trip.id, "Lisbon")
    kept, recounted = counts(supabase_stack, user)
    assert kept == recounted
    assert (True, "granit", 1) in kept and (False, "lisbon", 1) in kept
    await store.delete(kitchen.id)
    kept, recounted = counts(supabase_stack, user)
    assert kept == recounted
    assert not any(lexeme == "granit" for _, lexeme, _ in kept)
    await store.close()


async def test_a_word_in_more_than_500_turns_is_not_searched_but_a_rare_one_is(supabase_stack: SupabaseStack) -> None:
    store = await sign_in(supabase_stack, supabase_stack.new_user("alice"))
    common = await store.create(turns=[Turn(role="user", text=f"weather report number {i}") for i in range(501)])
    rare = await store.create(turns=[Turn(role="user", text="the weather in Reykjavik")])

    async def found(text: str) -> dict[object, float]:
        hits = await store.search(SearchQuery(unit(1), "no such model", text))
        return {hit.chat_id: hit.lexical for hit in hits}

    assert await found("weather") == {}  # in 502 turns: it tells nothing apart
    by_words = await found("weather Reykjavik")
    assert set(by_words) == {rare.id} and by_words[rare.id] > 0
    assert common.id not in by_words
    await store.close()


async def test_the_search_vectors_follow_every_write(supabase_stack: SupabaseStack) -> None:
    user = supabase_stack.new_user("alice")
    store = await sign_in(supabase_stack, user)
    young = await store.create(turns=[Turn(role="user", text="a trip to Lisbon")])
    await store.set_embedding(young.id, "topic", EmbeddedText("Lisbon trip", unit(0, 1), "m"))
    other_model = await store.create(turns=[Turn(role="user", text="tiles")])
    await store.set_embedding(other_model.id, "topic", EmbeddedText("tiles", unit(1), "openai"))
    await store.replace_assistant_history(
        other_model.id,
        expected_version=(await store.get(other_model.id)).version,
        assistant_history=[Turn(role="model", text="Tiles chosen.", summary=True)],
        summary=EmbeddedText("Tiles chosen.", unit(1, 1), "m"),
    )
    await store.append(young.id, [Turn(role="model", text="lovely")])
    await store.rename(young.id, "Lisbon")
    kept, held = search_vectors(supabase_stack, user)
    assert kept == held and len(kept) == 3  # young: topic of m; other: summary of m and topic of openai
    similarities = {hit.chat_id: hit.similarity for hit in await store.search(SearchQuery(unit(1, 1), "m", ""))}
    assert similarities == {other_model.id: pytest.approx(1.0), young.id: pytest.approx(0.5**0.5)}
    await store.set_embedding(young.id, "topic", EmbeddedText("Lisbon trip", unit(1, 1), "m"))
    await store.delete(other_model.id)
    kept, held = search_vectors(supabase_stack, user)
    assert kept == held and len(kept) == 1
    assert [hit.chat_id for hit in await store.search(SearchQuery(unit(1, 1), "m", ""))] == [young.id]
    await store.close()


async def test_a_vector_of_another_size_is_never_compared(supabase_stack: SupabaseStack) -> None:
    store = await sign_in(supabase_stack, supabase_stack.new_user("alice"))
    chat = await store.create(turns=[Turn(role="user", text="a trip to Lisbon")])
    await store.set_embedding(chat.id, "topic", EmbeddedText("Lisbon trip", unit(1), "m"))
    assert await store.search(SearchQuery(np.full(4, 0.5, dtype=np.float32), "m", "")) == []
    await store.close()


async def test_two_users_with_the_same_words_and_vectors_each_find_only_their_own(
    supabase_stack: SupabaseStack,
) -> None:
    alice, bob = supabase_stack.new_user("alice"), supabase_stack.new_user("bob")
    stores = {alice.id: await sign_in(supabase_stack, alice), bob.id: await sign_in(supabase_stack, bob)}
    own: dict[str, set[object]] = {}
    for user_id, store in stores.items():
        chats = [
            await store.create(title="Reykjavik trip", turns=[Turn(role="user", text="the weather in Reykjavik")])
            for _ in range(3)
        ]
        for chat in chats:
            await store.set_embedding(chat.id, "topic", EmbeddedText("Reykjavik trip", unit(1), "m"))
        own[user_id] = {chat.id for chat in chats}
    for user_id, store in stores.items():
        by_vector = await store.search(SearchQuery(unit(1), "m", ""))
        by_words = await store.search(SearchQuery(unit(0, 1), "no such model", "weather Reykjavik"))
        assert {hit.chat_id for hit in by_vector} == own[user_id]
        assert {hit.chat_id for hit in by_words} == own[user_id]
        assert all(hit.lexical > 0 for hit in by_words)
        await store.close()
