"""The recall side of every `ChatStore`: turn vectors, recall candidates and excerpts, and the working
memory of a chat. A backend's test module binds `make_store` and imports the tests:
`from tests.chats.recall_contract import *`, beside `store_contract`'s."""

from __future__ import annotations

from uuid import UUID, uuid4

import numpy as np
import pytest

from chats.errors import ChatNotFound, FolderNotFound, InvalidTurn, VersionConflict
from chats.models import NO_FOLDER, EmbeddedText, Turn
from chats.store import ChatStore, HiddenTurns, RecallQuery, SearchQuery, TurnSpan, TurnVector
from tests.chats.store_contract import StoreFactory, turns, unit

# The `store` fixture comes with `store_contract`'s tests, which every backend imports beside these.


def chat_turns(count: int, prefix: str = "turn") -> list[Turn]:
    return turns(*(f"{prefix} {i}" for i in range(count)))


def turn_vector(chat_id: UUID, index: int, vector: np.ndarray, model: str = "m") -> TurnVector:
    return TurnVector(chat_id, index, EmbeddedText(f"text {index}", vector, model))


def recall_query(vector: np.ndarray, text: str = "", **fields: object) -> RecallQuery:
    return RecallQuery(vector=vector, model="m", text=text, **fields)  # type: ignore[arg-type]


async def test_the_words_of_a_request_for_another_chat_are_not_searched(store: ChatStore) -> None:
    asked = [Turn(role="user", text="let's go back to the venue chat", navigation=True)]
    chat = await store.create(turns=[*turns("the tomatoes need staking"), *asked])
    await store.append(chat.id, [Turn(role="model", text="I found no chat about a venue.", navigation=True)])
    assert await store.search(SearchQuery(vector=unit(1), model="m", text="the venue chat")) == []
    assert await store.recall_candidates(recall_query(unit(1), "venue", context=0)) == []
    # What the turns say is kept; only the words are not in the index (recall vectors embed nothing).
    assert [t.text for t in (await store.get(chat.id)).full_history][1:] == [
        "let's go back to the venue chat",
        "I found no chat about a venue.",
    ]
    assert [t.text for t in await store.turns_without_vectors(chat.id, "m")] == ["the tomatoes need staking", "", ""]


async def test_turns_wait_for_vectors_per_model(store: ChatStore) -> None:
    done = await store.create(turns=chat_turns(2))
    waiting = await store.create(turns=chat_turns(3))
    await store.create()  # no turns: nothing to embed
    await store.set_turn_vectors([turn_vector(done.id, i, unit(1)) for i in range(2)])
    assert await store.chats_without_turn_vectors("m") == [waiting.id]
    assert set(await store.chats_without_turn_vectors("other")) == {done.id, waiting.id}
    first = await store.turns_without_vectors(waiting.id, "m", limit=2)
    assert [(t.chat_id, t.index, t.text) for t in first] == [(waiting.id, 0, "turn 0"), (waiting.id, 1, "turn 1")]
    await store.set_turn_vectors([turn_vector(waiting.id, 1, unit(1))])
    assert [t.index for t in await store.turns_without_vectors(waiting.id, "m")] == [0, 2]
    await store.append(done.id, turns("later"))
    assert [t.index for t in await store.turns_without_vectors(done.id, "m")] == [2]
    assert set(await store.chats_without_turn_vectors("m")) == {done.id, waiting.id}


async def test_turn_vectors_need_a_real_turn_of_the_users_chat(make_store: StoreFactory) -> None:
    alice = await make_store("alice")
    bob = await make_store("bob")
    chat = await alice.create(turns=chat_turns(2))
    with pytest.raises(ChatNotFound):
        await bob.set_turn_vectors([turn_vector(chat.id, 0, unit(1))])
    with pytest.raises(ChatNotFound):
        await bob.turns_without_vectors(chat.id, "m")
    with pytest.raises(InvalidTurn):
        await alice.set_turn_vectors([turn_vector(chat.id, 2, unit(1))])
    assert len(await alice.turns_without_vectors(chat.id, "m")) == 2  # the refused batch stored nothing
    await alice.close()
    await bob.close()


async def test_a_zero_vector_matches_nothing(store: ChatStore) -> None:
    # An embedder gives an empty text (a navigation turn's searchable text) a zero row: it must rank last,
    # never first (pgvector's cosine distance to it is NaN, which Postgres sorts above every number).
    chat = await store.create(turns=chat_turns(3))
    zero = np.zeros(8, dtype=np.float32)
    await store.set_turn_vectors(
        [turn_vector(chat.id, 0, zero), turn_vector(chat.id, 1, unit(1, 0.2)), turn_vector(chat.id, 2, zero)]
    )
    found = await store.recall_candidates(recall_query(unit(1), limit=1, context=0))
    assert [(c.index, c.similarity is not None and c.similarity > 0.9) for c in found] == [(1, True)]
    everything = await store.recall_candidates(recall_query(unit(1), context=0))
    assert sorted((c.index, c.similarity) for c in everything)[::2] == [(0, 0.0), (2, 0.0)]
    # Chat search likewise, though a summary or topic is never empty.
    blank, near = (await store.create()).id, (await store.create()).id
    await store.set_embedding(blank, "topic", EmbeddedText("?", zero, "m"))
    await store.set_embedding(near, "topic", EmbeddedText("near", unit(1, 0.2), "m"))
    [first] = await store.search(SearchQuery(vector=unit(1), model="m", text="", limit=1))
    assert first.chat_id == near and first.similarity is not None and first.similarity > 0.9
    both = {c.chat_id: c.similarity for c in await store.search(SearchQuery(vector=unit(1), model="m", text=""))}
    assert both[blank] == 0.0


async def test_recall_reports_similarity_of_the_same_model_only(store: ChatStore) -> None:
    chat = await store.create(turns=chat_turns(3))
    await store.set_turn_vectors(
        [
            turn_vector(chat.id, 0, unit(1, 0.1)),
            turn_vector(chat.id, 1, unit(0.1, 1)),
            turn_vector(chat.id, 2, unit(1), model="other"),
        ]
    )
    found = {c.index: c for c in await store.recall_candidates(recall_query(unit(1)))}
    assert set(found) == {0, 1}
    assert found[0].similarity == pytest.approx(0.995, abs=1e-3)
    assert found[1].similarity == pytest.approx(0.0995, abs=1e-3)
    assert all(c.chat_id == chat.id and c.lexical == 0 for c in found.values())


async def test_recall_takes_the_best_by_each_signal_and_their_neighbours(store: ChatStore) -> None:
    texts = [f"filler talk number {i}" for i in range(20)]
    texts[5] = "we decided on the terracotta tiles"
    chat = await store.create(turns=turns(*texts))
    vectors = [turn_vector(chat.id, i, unit(0, 1)) for i in range(20)]
    vectors[14] = turn_vector(chat.id, 14, unit(1))
    await store.set_turn_vectors(vectors)
    found = {c.index: c for c in await store.recall_candidates(recall_query(unit(1), "terracotta", limit=1, context=1))}
    assert set(found) == {4, 5, 6, 13, 14, 15}
    assert found[5].lexical > 0 and found[4].lexical == 0
    assert found[14].similarity == pytest.approx(1.0, abs=1e-5)
    assert found[13].similarity == pytest.approx(0.0, abs=1e-5)


async def test_recall_finds_words_before_vectors_exist(store: ChatStore) -> None:
    chat = await store.create(turns=turns("hello", "the terracotta tiles arrive on Monday", "good"))
    [candidate] = await store.recall_candidates(recall_query(unit(1), "terracotta tiles", context=0))
    assert (candidate.chat_id, candidate.index, candidate.similarity) == (chat.id, 1, None)
    assert candidate.lexical > 0


async def test_recall_leaves_out_the_turns_the_model_sees(store: ChatStore) -> None:
    current = await store.create(turns=turns(*(f"tiles talk {i}" for i in range(6))))
    other = await store.create(turns=turns("tiles elsewhere"))
    await store.set_turn_vectors([turn_vector(current.id, i, unit(1)) for i in range(6)])
    hidden = HiddenTurns(current.id, 4)
    found = await store.recall_candidates(recall_query(unit(1), "tiles", hidden=hidden))
    assert {(c.chat_id, c.index) for c in found} == {(current.id, 0), (current.id, 1), (other.id, 0)}
    await store.append(current.id, turns("tiles again"))  # now turns 3..6 are the last four
    found = await store.recall_candidates(recall_query(unit(1), "tiles", hidden=hidden))
    assert {c.index for c in found if c.chat_id == current.id} == {0, 1, 2}


async def test_recall_keeps_to_a_folder(store: ChatStore) -> None:
    folder = await store.create_folder("House")
    inside = await store.create(turns=turns("tiles in the folder"), project_id=folder.id)
    outside = await store.create(turns=turns("tiles outside"))
    await store.set_turn_vectors([turn_vector(inside.id, 0, unit(1)), turn_vector(outside.id, 0, unit(1))])
    for project_id, expected in ((folder.id, inside.id), (NO_FOLDER, outside.id)):
        for text in ("tiles", ""):
            found = await store.recall_candidates(recall_query(unit(1), text, project_id=project_id))
            assert [c.chat_id for c in found] == [expected]
    assert len(await store.recall_candidates(recall_query(unit(1), "tiles"))) == 2
    with pytest.raises(FolderNotFound):
        await store.recall_candidates(recall_query(unit(1), "tiles", project_id="missing"))


async def test_recall_follows_new_vectors_and_deleted_chats(store: ChatStore) -> None:
    kept = await store.create(turns=chat_turns(1))
    doomed = await store.create(turns=chat_turns(1))
    await store.set_turn_vectors([turn_vector(kept.id, 0, unit(0, 1))])
    assert [c.chat_id for c in await store.recall_candidates(recall_query(unit(1)))] == [kept.id]
    await store.set_turn_vectors([turn_vector(doomed.id, 0, unit(1)), turn_vector(kept.id, 0, unit(1))])
    found = {c.chat_id: c.similarity for c in await store.recall_candidates(recall_query(unit(1)))}
    assert found == {kept.id: pytest.approx(1.0, abs=1e-5), doomed.id: pytest.approx(1.0, abs=1e-5)}
    await store.delete(doomed.id)
    assert [c.chat_id for c in await store.recall_candidates(recall_query(unit(1)))] == [kept.id]


async def test_excerpts_hold_existing_visible_turns_in_the_order_asked(store: ChatStore) -> None:
    first = await store.create(title="Tiles", turns=chat_turns(6, "a"))
    second = await store.create(turns=chat_turns(3, "b"))
    spans = [TurnSpan(second.id, -2, 1), TurnSpan(first.id, 3, 9), TurnSpan(uuid4(), 0, 1), TurnSpan(first.id, 0, 0)]
    found = await store.excerpts(spans, hidden=HiddenTurns(first.id, 2))
    assert [(e.chat_id, e.title, e.first, [t.text for t in e.turns]) for e in found] == [
        (second.id, None, 0, ["b 0", "b 1"]),
        (first.id, "Tiles", 3, ["a 3"]),
        (first.id, "Tiles", 0, ["a 0"]),
    ]
    assert await store.excerpts([TurnSpan(first.id, 4, 5)], hidden=HiddenTurns(first.id, 2)) == []
    [whole] = await store.excerpts([TurnSpan(first.id, 4, 5)])
    assert whole.turns == first.full_history[4:]


# Working memory.


async def test_working_memory_starts_empty_and_keeps_what_is_put(store: ChatStore) -> None:
    chat = await store.create()
    empty = await store.get_working_memory(chat.id)
    assert (dict(empty.data), empty.version) == ({}, 0)
    data = {"goal": "tile the kitchen", "budget": 18500, "rooms": ["kitchen", "hall"], "done": {"grout": False}}
    assert await store.put_working_memory(chat.id, data, expected_version=0) == 1
    stored = await store.get_working_memory(chat.id)
    assert (dict(stored.data), stored.version) == (data, 1)
    assert await store.put_working_memory(chat.id, {"goal": "ünïcode ✓"}, expected_version=1) == 2
    assert dict((await store.get_working_memory(chat.id)).data) == {"goal": "ünïcode ✓"}


async def test_working_memory_is_compare_and_swap(store: ChatStore) -> None:
    chat = await store.create()
    await store.put_working_memory(chat.id, {"a": 1}, expected_version=0)
    for stale in (0, 2):
        with pytest.raises(VersionConflict) as conflict:
            await store.put_working_memory(chat.id, {"a": 2}, expected_version=stale)
        assert conflict.value.actual == 1
    assert dict((await store.get_working_memory(chat.id)).data) == {"a": 1}


async def test_working_memory_leaves_the_chat_as_it_was(store: ChatStore) -> None:
    chat = await store.create(turns=turns("hi"))
    await store.put_working_memory(chat.id, {"a": 1}, expected_version=0)
    assert await store.get(chat.id) == chat


async def test_working_memory_goes_with_its_chat(store: ChatStore) -> None:
    chat = await store.create()
    await store.put_working_memory(chat.id, {"a": 1}, expected_version=0)
    await store.delete(chat.id)
    for call in (store.get_working_memory(chat.id), store.put_working_memory(chat.id, {}, expected_version=1)):
        with pytest.raises(ChatNotFound):
            await call
    for call in (store.get_working_memory(uuid4()), store.put_working_memory(uuid4(), {}, expected_version=0)):
        with pytest.raises(ChatNotFound):
            await call


async def test_users_never_see_each_others_turns_or_working_memory(make_store: StoreFactory) -> None:
    alice = await make_store("alice")
    bob = await make_store("bob")
    secret = await alice.create(title="Secret", turns=turns("my secret terracotta plan", "noted"))
    await alice.set_turn_vectors([turn_vector(secret.id, i, unit(1)) for i in range(2)])
    await alice.put_working_memory(secret.id, {"plan": "secret"}, expected_version=0)
    mine = await bob.create(turns=turns("nothing to see"))
    await bob.set_turn_vectors([turn_vector(mine.id, 0, unit(0, 1))])
    folder = await bob.create_folder("Bob's")
    assert await bob.chats_without_turn_vectors("other") == [mine.id]
    found = await bob.recall_candidates(recall_query(unit(1), "secret terracotta plan", limit=10, context=2))
    assert {c.chat_id for c in found} == {mine.id}
    hidden = HiddenTurns(secret.id, 1)  # naming alice's chat changes nothing for bob
    assert {c.chat_id for c in await bob.recall_candidates(recall_query(unit(1), "secret", hidden=hidden))} == {mine.id}
    assert await bob.recall_candidates(recall_query(unit(1), "secret", project_id=folder.id)) == []
    assert await bob.excerpts([TurnSpan(secret.id, 0, 1)]) == []
    for call in (
        bob.get_working_memory(secret.id),
        bob.put_working_memory(secret.id, {"plan": "stolen"}, expected_version=1),
        bob.turns_without_vectors(secret.id, "m"),
        bob.set_turn_vectors([turn_vector(secret.id, 0, unit(0, 1))]),
    ):
        with pytest.raises(ChatNotFound):
            await call
    assert dict((await alice.get_working_memory(secret.id)).data) == {"plan": "secret"}
    found = await alice.recall_candidates(recall_query(unit(1), "secret"))
    assert {c.chat_id for c in found} == {secret.id}
    assert all(c.similarity == pytest.approx(1.0, abs=1e-5) for c in found)
    await alice.close()
    await bob.close()
