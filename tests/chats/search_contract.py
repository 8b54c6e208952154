"""How every `ChatStore` finds chats for a description: similarity by embedding model, words in turns, titles and
summaries, and what `rank` then offers first. A backend's test module imports the tests:
`from tests.chats.search_contract import *`, beside `store_contract`'s (whose `store` fixture these use)."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from uuid import UUID

import pytest

from chats.models import EmbeddedText
from chats.search import rank
from chats.store import ChatStore, SearchQuery
from tests.chats.store_contract import turns, unit


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
