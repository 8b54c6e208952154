"""The behaviour every `ChatStore` must have. A backend's test module binds `make_store` and imports
the tests: `from tests.chats.store_contract import *`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from uuid import UUID, uuid4

import numpy as np
import pytest

from chats.errors import (
    ChatNotFound,
    DuplicateFolderName,
    FolderNotFound,
    InvalidFolderName,
    InvalidTurn,
    VersionConflict,
)
from chats.models import NO_FOLDER, EmbeddedText, Turn
from chats.store import ChatStore, HiddenTurns, RecallQuery, SearchQuery, TurnSpan, TurnVector

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
    chat = await store.create(turns=[turn, request])
    assert (await store.get(chat.id)).full_history == (turn, request)


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


async def test_list_filters_by_folder(store: ChatStore) -> None:
    home = await store.create_folder("Home")
    inside = await store.create(title="a", project_id=home.id)
    outside = await store.create(title="b")
    moved = await store.create(title="c")
    await store.move(moved.id, home.id)
    assert {info.id for info in await store.list_chats(project_id=home.id)} == {inside.id, moved.id}
    assert [info.id for info in await store.list_chats(project_id=NO_FOLDER)] == [outside.id]
    assert len(await store.list_chats()) == 3
    assert [(f.id, f.chats) for f in await store.list_folders()] == [(home.id, 2)]
    assert (await store.load_assistant_context(moved.id)).project_id == home.id  # the voice session's scope
    await store.move(moved.id, None)
    assert (await store.get(moved.id)).project_id is None
    assert (await store.load_assistant_context(moved.id)).project_id is None
    assert {info.id for info in await store.list_chats(project_id=NO_FOLDER)} == {outside.id, moved.id}


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


async def test_a_new_folder_is_empty_and_named_as_given(make_store: StoreFactory) -> None:
    clock = Clock()
    store = await make_store_with_clock(make_store, clock)
    folder = await store.create_folder("  Kitchen renovation \n")
    assert (folder.name, folder.chats, folder.created_at) == ("Kitchen renovation", 0, clock.now)
    assert str(UUID(folder.id)) == folder.id
    assert await store.list_folders() == [folder]
    assert await store.list_chats(project_id=folder.id) == []
    await store.close()


async def test_folders_are_listed_by_name_ignoring_case(store: ChatStore) -> None:
    for name in ("beta", "Gamma", "alpha", "Beta 2"):
        await store.create_folder(name)
    assert [f.name for f in await store.list_folders()] == ["alpha", "beta", "Beta 2", "Gamma"]


@pytest.mark.parametrize("name", ["", "   ", "x" * 81, " " + "x" * 81])
async def test_a_blank_or_long_folder_name_is_refused(store: ChatStore, name: str) -> None:
    kept = await store.create_folder("Kept")
    for call in (store.create_folder(name), store.rename_folder(kept.id, name)):
        with pytest.raises(InvalidFolderName) as refused:
            await call
        assert isinstance(refused.value, ValueError)
    assert await store.list_folders() == [kept]


async def test_a_name_of_80_characters_fits(store: ChatStore) -> None:
    assert (await store.create_folder(" " + "x" * 80 + " ")).name == "x" * 80


async def test_folder_names_are_unique_ignoring_case(store: ChatStore) -> None:
    work = await store.create_folder("Work")
    home = await store.create_folder("Straße")
    for call in (
        store.create_folder(" WORK "),
        store.create_folder("STRASSE"),
        store.rename_folder(home.id, "work"),
    ):
        with pytest.raises(DuplicateFolderName):
            await call
    assert await store.list_folders() == [home, work]
    assert (await store.rename_folder(work.id, "WORK")).name == "WORK"


async def test_renaming_a_folder_keeps_its_chats(store: ChatStore) -> None:
    folder = await store.create_folder("Garden")
    chat = await store.create(project_id=folder.id)
    renamed = await store.rename_folder(folder.id, "  Allotment ")
    assert (renamed.id, renamed.name, renamed.chats, renamed.created_at) == (
        folder.id,
        "Allotment",
        1,
        folder.created_at,
    )
    assert await store.list_folders() == [renamed]
    assert (await store.get(chat.id)).project_id == folder.id


async def test_deleting_a_folder_moves_its_chats_to_no_folder(store: ChatStore) -> None:
    doomed = await store.create_folder("Doomed")
    other = await store.create_folder("Other")
    inside = [await store.create(title=f"in {i}", project_id=doomed.id) for i in range(2)]
    elsewhere = await store.create(project_id=other.id)
    await store.delete_folder(doomed.id)
    assert [f.id for f in await store.list_folders()] == [other.id]
    assert {info.id for info in await store.list_chats(project_id=NO_FOLDER)} == {chat.id for chat in inside}
    assert [info.id for info in await store.list_chats(project_id=other.id)] == [elsewhere.id]
    assert await store.count() == 3
    for call in (store.list_chats(project_id=doomed.id), store.move(elsewhere.id, doomed.id)):
        with pytest.raises(FolderNotFound):
            await call


async def test_unknown_folder_is_not_found_everywhere(store: ChatStore) -> None:
    folder = await store.create_folder("Real")
    chat = await store.create(project_id=folder.id)
    for call in (
        store.create(project_id="missing"),
        store.move(chat.id, "missing"),
        store.list_chats(project_id="missing"),
        store.rename_folder("missing", "Name"),
        store.delete_folder("missing"),
    ):
        with pytest.raises(FolderNotFound, match="no folder with id missing"):
            await call
    assert (await store.get(chat.id)).project_id == folder.id  # the refused move changed nothing
    assert await store.count() == 1


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


async def test_search_reports_similarity_of_the_same_model_only(store: ChatStore) -> None:
    kitchen = await store.create(title="k")
    garden = await store.create(title="g")
    other_model = await store.create(title="o")
    await store.set_embedding(kitchen.id, "topic", EmbeddedText("kitchen", unit(1, 0.1), "m"))
    await store.set_embedding(garden.id, "topic", EmbeddedText("garden", unit(0.1, 1), "m"))
    await store.set_embedding(other_model.id, "topic", EmbeddedText("kitchen", unit(1, 0.1), "other"))
    found = {c.chat_id: c for c in await store.search(SearchQuery(vector=unit(1), model="m", text=""))}
    assert set(found) == {kitchen.id, garden.id}
    assert found[kitchen.id].similarity == pytest.approx(0.995, abs=1e-3)
    assert found[garden.id].similarity == pytest.approx(0.0995, abs=1e-3)


async def test_a_summary_outranks_the_topic_it_replaced(store: ChatStore) -> None:
    chat = await store.create()
    await store.set_embedding(chat.id, "topic", EmbeddedText("old", unit(0, 1), "m"))
    context = await store.load_assistant_context(chat.id)
    await store.replace_assistant_history(
        chat.id,
        expected_version=context.version,
        assistant_history=[],
        summary=EmbeddedText("new", unit(1), "m"),
    )
    [candidate] = await store.search(SearchQuery(vector=unit(1), model="m", text=""))
    assert candidate.similarity == pytest.approx(1.0, abs=1e-5)


async def test_search_scores_words_in_turns_titles_and_summaries(store: ChatStore) -> None:
    in_turn = await store.create(turns=turns("we planned the wedding menu", "nice"))
    in_title = await store.create(title="Wedding speech")
    await store.create(turns=turns("tax return questions"))
    found = await store.search(SearchQuery(vector=unit(1), model="m", text="the wedding"))
    assert {c.chat_id for c in found} == {in_turn.id, in_title.id}
    assert all(c.lexical > 0 and c.similarity is None for c in found)


async def test_a_chat_matched_in_its_turns_and_its_title_outranks_one_matched_in_either(store: ChatStore) -> None:
    both = await store.create(title="Wedding venue", turns=turns("the venue holds 120 guests"))
    in_turns = await store.create(turns=turns("the venue holds 120 guests"))
    in_title = await store.create(title="Wedding venue")
    found = {c.chat_id: c.lexical for c in await store.search(SearchQuery(vector=unit(1), model="m", text="venue"))}
    assert found[both.id] > max(found[in_turns.id], found[in_title.id]) > 0


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


async def test_search_words_are_never_query_syntax(store: ChatStore) -> None:
    chat = await store.create(turns=turns('he said "NEAR(a b)" OR * AND -x'))
    found = await store.search(SearchQuery(vector=unit(1), model="m", text='"NEAR(a b)" OR * AND -x'))
    assert [c.chat_id for c in found] == [chat.id]


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


async def test_users_never_see_each_others_folders(make_store: StoreFactory) -> None:
    alice = await make_store("alice")
    bob = await make_store("bob")
    alices = await alice.create_folder("Work")
    chat = await alice.create(project_id=alices.id)
    bobs = await bob.create_folder("work")  # the same name is free for another user
    assert [f.id for f in await bob.list_folders()] == [bobs.id]
    for call in (
        bob.rename_folder(alices.id, "Mine now"),
        bob.delete_folder(alices.id),
        bob.list_chats(project_id=alices.id),
        bob.create(project_id=alices.id),
        alice.move(chat.id, bobs.id),
    ):
        with pytest.raises(FolderNotFound):
            await call
    with pytest.raises(ChatNotFound):
        await bob.move(chat.id, bobs.id)
    await bob.delete_folder(bobs.id)
    assert [(f.id, f.name, f.chats) for f in await alice.list_folders()] == [(alices.id, "Work", 1)]
    assert (await alice.get(chat.id)).project_id == alices.id
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


# Recall over past messages: turn vectors, candidates and excerpts.


def chat_turns(count: int, prefix: str = "turn") -> list[Turn]:
    return turns(*(f"{prefix} {i}" for i in range(count)))


def turn_vector(chat_id: UUID, index: int, vector: np.ndarray, model: str = "m") -> TurnVector:
    return TurnVector(chat_id, index, EmbeddedText(f"text {index}", vector, model))


def recall_query(vector: np.ndarray, text: str = "", **fields: object) -> RecallQuery:
    return RecallQuery(vector=vector, model="m", text=text, **fields)  # type: ignore[arg-type]


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
