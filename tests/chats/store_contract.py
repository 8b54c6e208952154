"""The behaviour every `ChatStore` must have: chats, folders and search (recall and working memory:
`recall_contract`). A backend's test module binds `make_store` and imports the tests:
`from tests.chats.store_contract import *`."""

from __future__ import annotations

import asyncio
import math
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
    VersionConflict,
)
from chats.models import NO_FOLDER, EmbeddedText, Source, Turn
from chats.search import rank
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
    chat = await store.create(turns=[turn, request])
    assert (await store.get(chat.id)).full_history == (turn, request)


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


async def described_chat(store: ChatStore, title: str, similarity: float, *said: str) -> UUID:
    """A chat titled `title` that said `said` (its topic text, as maintenance makes it), at `similarity` to
    the query vector `unit(1)`."""
    chat = await store.create(title=title, turns=turns(*said))
    topic = unit(similarity, math.sqrt(1 - similarity**2))
    await store.set_embedding(chat.id, "topic", EmbeddedText(" ".join(said), topic, "m"))
    return chat.id


async def ranked_for(store: ChatStore, request: str) -> list[UUID]:
    found = await store.search(SearchQuery(vector=unit(1), model="m", text=request))
    return [chat.chat_id for chat in rank(found, datetime.now(UTC), request)]


async def test_a_chat_titled_after_a_subject_is_offered_over_one_that_mentions_it_once(store: ChatStore) -> None:
    # Similarities as all-MiniLM-L6-v2 gives them for "sourdough" (0.36 and 0.21).
    baking = await described_chat(
        store,
        "Sourdough baking",
        0.36,
        "My starter is finally bubbly after a week of feeding it flour and water.",
        "Then it is ready: feed it the night before you bake.",
        "What hydration should I use for a first loaf? I want an open crumb.",
        "Start at 70 percent; raise it as you get used to the dough.",
    )
    trip = await described_chat(
        store,
        "San Francisco trip",
        0.21,
        "We're flying to San Francisco in May for a week.",
        "May is a good month: mild and not too foggy.",
        "Someone said we must try sourdough at the wharf.",
        "Yes, it's famous there.",
    )
    for request in ("sourdough", "the chat about sourdough"):
        assert (await ranked_for(store, request))[:2] == [baking, trip], request


async def test_one_trivia_question_does_not_outrank_the_chat_about_the_subject(store: ChatStore) -> None:
    # Similarities as all-MiniLM-L6-v2 gives them for "the Roman Empire" (0.50 and 0.41).
    essay = await described_chat(
        store,
        "Essay on the Roman Empire",
        0.50,
        "I am writing an essay on the decline of ancient Rome and why the empire split in two.",
        "Start from the third-century crisis; the economy and the invasions both matter.",
        "My teacher wants sources on Diocletian and Constantine for the essay.",
        "Their reforms are covered well in most histories of late antiquity.",
    )
    quiz = await described_chat(
        store,
        "Pub quiz practice",
        0.41,
        "What is the capital of Australia?",
        "Canberra.",
        "In what year did the Western Roman Empire fall?",
        "476.",
        "Which planet has the most moons?",
        "Saturn.",
    )
    assert (await ranked_for(store, "the Roman Empire"))[:2] == [essay, quiz]


async def test_a_chat_named_after_its_subject_only_in_its_summary_is_offered_over_trivia(store: ChatStore) -> None:
    # The essay chat's title does not name the empire and its last turns do not either; its summary does.
    # Similarities as all-MiniLM-L6-v2 gives them for "the Roman Empire": the summary 0.65, the quiz 0.50.
    essay = await described_chat(
        store,
        "History homework",
        0.46,
        "My teacher wants sources on Diocletian and Constantine.",
        "Their reforms are covered well in most histories of late antiquity.",
    )
    context = await store.load_assistant_context(essay)
    await store.replace_assistant_history(
        essay,
        expected_version=context.version,
        assistant_history=list(context.assistant_history),
        summary=EmbeddedText(
            "The user is writing an essay on the decline of the Roman Empire and why it split in two.",
            unit(0.65, math.sqrt(1 - 0.65**2)),
            "m",
        ),
    )
    quiz = await described_chat(
        store,
        "Pub quiz practice",
        0.50,
        "What is the capital of Australia?",
        "Canberra.",
        "In what year did the Western Roman Empire fall?",
        "476.",
    )
    # Other chats, as a store holds: BM25 counts words that half of the chats say as said everywhere.
    await described_chat(store, "Tax return", 0.05, "Which receipts do I keep for the tax return?", "All of them.")
    await described_chat(store, "Tomatoes", 0.08, "My tomato leaves are turning yellow.", "Water less often.")
    await described_chat(store, "Bike repair", 0.1, "My back tyre keeps going flat.", "Look for a thorn.")
    await described_chat(store, "Gym plan", 0.12, "Three sessions a week?", "Yes, full body each time.")
    [found] = [c for c in await store.search(SearchQuery(unit(1), "m", "the Roman Empire")) if c.chat_id == essay]
    assert found.summary is not None and "Roman Empire" in found.summary
    assert (await ranked_for(store, "the Roman Empire"))[:2] == [essay, quiz]


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
