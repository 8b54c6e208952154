"""Finding the chat a user means: the pure ranking and decision, then real chats and the real embedder."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from uuid import UUID, uuid4

import pytest

from chats.embedders.minilm import MiniLMEmbedder
from chats.maintenance import ChatMaintainer
from chats.models import Turn
from chats.search import ChatFinder, decide, fts_match_expression, names_all, query_terms, rank, words_held
from chats.sqlite.store import SqliteChatStore
from chats.store import SearchCandidate
from tests.fakes.text_models import ScriptedTextModel

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def candidate(
    similarity: float | None, lexical: float = 0.0, days_ago: float = 1.0, title: str = "t"
) -> SearchCandidate:
    return SearchCandidate(uuid4(), title, similarity, lexical, NOW - timedelta(days=days_ago))


def test_query_terms_drop_the_words_that_ask_for_a_chat() -> None:
    assert query_terms("Let's go back to the chat about the Kitchen renovation, the kitchen!") == [
        "kitchen",
        "renovation",
    ]
    assert fts_match_expression(query_terms("the chat about")) is None
    assert fts_match_expression(query_terms('quote "NEAR" OR *')) == '"quote" OR "near"'
    assert fts_match_expression(['a"b']) == '"a""b"'


def test_one_clear_match_is_switched_to() -> None:
    best = candidate(0.62, lexical=8.0)
    match = decide(rank([best, candidate(0.31), candidate(0.05)], NOW))
    assert match.outcome == "switch"
    assert [o.chat_id for o in match.options] == [best.chat_id]


def test_close_matches_are_offered_as_choices() -> None:
    first, second = candidate(0.55, lexical=4.0), candidate(0.53, lexical=3.9)
    match = decide(rank([first, second, candidate(0.1)], NOW))
    assert match.outcome == "ask"
    assert {o.chat_id for o in match.options} == {first.chat_id, second.chat_id}


def test_the_chat_the_request_is_said_in_is_never_offered_nor_switched_to() -> None:
    here, other, third = candidate(0.55, lexical=4.0), candidate(0.53, lexical=3.9), candidate(0.2)
    assert decide(rank([here, other, third], NOW), current=here.chat_id).outcome == "here"
    second = candidate(0.52, lexical=3.8)  # close behind the best: still no choice to offer
    behind = decide(rank([other, second, third], NOW), current=second.chat_id)
    assert (behind.outcome, [o.chat_id for o in behind.options]) == ("switch", [other.chat_id])
    assert decide(rank([other, second, third], NOW)).outcome == "ask"  # as it would be from elsewhere


def test_nothing_similar_means_none_even_with_some_shared_words() -> None:
    some_words = dataclasses.replace(candidate(0.05, lexical=2.0), words_held=0.5)
    assert decide(rank([candidate(0.12), some_words], NOW)).outcome == "none"
    assert decide(rank([], NOW)).outcome == "none"


def test_recency_breaks_a_tie() -> None:
    old, recent = candidate(0.5, days_ago=200), candidate(0.5, days_ago=1)
    assert rank([old, recent], NOW)[0].chat_id == recent.chat_id


def test_a_title_that_names_the_whole_request_lifts_its_chat() -> None:
    mentioned = candidate(0.21, lexical=3.1, title="San Francisco trip")
    named = candidate(0.36, lexical=0.3, title="Sourdough baking")
    assert rank([mentioned, named], NOW)[0].chat_id == mentioned.chat_id  # without the request: words win
    assert rank([mentioned, named], NOW, "the chat about sourdough")[0].chat_id == named.chat_id
    # A title holding some of a longer request's words is no sign that the chat is about it.
    assert names_all({"sourdough", "bake"}, "Sourdough baking", "en")
    assert not names_all({"sourdough", "diego"}, "Sourdough baking", "en")


def test_a_summary_that_names_the_whole_request_lifts_its_chat() -> None:
    trivia = candidate(0.41, lexical=3.1, title="Pub quiz practice")
    essay = SearchCandidate(
        uuid4(),
        "History homework",
        0.40,
        0.8,
        NOW - timedelta(days=1),
        summary="The user is writing an essay on why the Roman Empire split in two and fell.",
    )
    assert rank([trivia, essay], NOW, "the Roman Empire")[0].chat_id == essay.chat_id
    assert rank([trivia, essay], NOW, "the Roman Empire and Carthage")[0].chat_id == trivia.chat_id
    assert rank([trivia, essay], NOW)[0].chat_id == trivia.chat_id  # without the request: words win


def test_one_stray_word_of_a_request_does_not_outweigh_the_chat_its_meaning_points_to() -> None:
    # "the money for the house": the mortgage chat shares no word with it; a house move shares "house".
    mortgage = candidate(0.6)
    move = dataclasses.replace(candidate(0.31, lexical=4.0), words_held=0.5)
    assert rank([move, mortgage], NOW)[0].chat_id == mortgage.chat_id
    # Holding every telling word of the request, the same match carries the chat.
    assert rank([dataclasses.replace(move, words_held=1.0), mortgage], NOW)[0].chat_id == move.chat_id


def test_beside_the_meaning_words_count_less_in_the_languages_matched_by_stems() -> None:
    # A French request's stems are read as prefixes: "maison*" joins a house move to "l'argent pour la maison".
    mortgage = candidate(0.33)
    move = dataclasses.replace(candidate(0.22, lexical=4.0), words_held=0.5)
    assert rank([move, mortgage], NOW, "l'argent pour la maison")[0].chat_id == mortgage.chat_id
    # The same match in English still carries the chat: LoCoMo's questions need their words.
    assert rank([move, mortgage], NOW, "the money for the house")[0].chat_id == move.chat_id


def test_a_detail_said_once_finds_its_chat_though_its_summary_is_far_from_the_request() -> None:
    # "the one where I mentioned the scarf": the gift chat's summary is about a birthday, not the scarf.
    gift = dataclasses.replace(candidate(0.08, lexical=5.0), words_held=1.0)
    budget = dataclasses.replace(candidate(0.09, lexical=1.0), words_held=0.5)
    match = decide(rank([gift, budget], NOW))
    assert (match.outcome, match.options[0].chat_id) == ("switch", gift.chat_id)


def test_at_most_three_choices() -> None:
    similar = [candidate(0.5 + i * 0.001) for i in range(6)]
    assert len(decide(rank(similar, NOW)).options) == 3


CHATS = {
    "kitchen": [
        "We are renovating the kitchen and need new cabinets.",
        "Oak or walnut for the cabinets? The budget is 18,500 euros.",
        "Marco the contractor can start tiling on March 3rd.",
    ],
    "japan": [
        "I'm planning a two-week holiday in Japan next April.",
        "Should I spend more days in Kyoto or in Tokyo?",
        "I want to see the temples and eat ramen.",
    ],
    "taxes": [
        "I need help with my tax return this year.",
        "Can I deduct my home office expenses as a freelancer?",
    ],
    "marathon": [
        "I'm training for the Berlin marathon in September.",
        "How many long runs should I do each week?",
    ],
    "half marathon": [
        "I signed up for a half marathon in spring.",
        "What pace should I run my long runs at?",
    ],
}


@pytest.fixture
async def finder(tmp_path: Path, minilm: MiniLMEmbedder) -> AsyncIterator[tuple[ChatFinder, dict[str, UUID]]]:
    store = await SqliteChatStore.open(tmp_path / "chats.sqlite3", "alice")
    maintainer = ChatMaintainer(store, minilm, ScriptedTextModel(titles=list(CHATS)))
    ids = {}
    for name, said in CHATS.items():
        turns = [t for text in said for t in (Turn(role="user", text=text), Turn(role="model", text="I see."))]
        chat = await store.create(turns=turns)
        await maintainer.maintain(chat.id)
        ids[name] = chat.id
    yield ChatFinder(store, minilm), ids
    await store.close()


async def test_a_paraphrase_finds_its_chat(finder: tuple[ChatFinder, dict[str, UUID]]) -> None:
    search, ids = finder
    match = await search.find_chats("let's go back to the chat about remodeling my kitchen")
    assert match.outcome == "switch"
    assert match.options[0].chat_id == ids["kitchen"]
    match = await search.find_chats("the one about my vacation to Tokyo")
    assert (match.outcome, match.options[0].chat_id) == ("switch", ids["japan"])


async def test_two_chats_on_one_subject_are_asked_about(finder: tuple[ChatFinder, dict[str, UUID]]) -> None:
    search, ids = finder
    match = await search.find_chats("my marathon runs")
    assert match.outcome == "ask"
    assert {o.chat_id for o in match.options} >= {ids["marathon"], ids["half marathon"]}


async def test_the_chat_holding_every_word_of_the_request_is_the_one(
    finder: tuple[ChatFinder, dict[str, UUID]],
) -> None:
    search, ids = finder
    # Both chats are about running; only the marathon's says "training" as well.
    match = await search.find_chats("my running training")
    assert (match.outcome, match.options[0].chat_id) == ("switch", ids["marathon"])


async def test_an_unknown_subject_matches_nothing(finder: tuple[ChatFinder, dict[str, UUID]]) -> None:
    search, _ = finder
    assert (await search.find_chats("quantum chromodynamics lecture notes")).outcome == "none"


async def test_vectors_of_another_model_are_never_compared(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    store = await SqliteChatStore.open(tmp_path / "chats.sqlite3", "alice")
    chat = await store.create(turns=[Turn(role="user", text="We are renovating the kitchen.")])
    await ChatMaintainer(store, minilm, ScriptedTextModel()).maintain(chat.id)

    class OtherModel(MiniLMEmbedder):
        @property
        def model_name(self) -> str:
            return "another-model"

    [found] = await ChatFinder(store, OtherModel()).ranked("kitchen renovation")
    assert found.similarity is None and found.lexical > 0
    await store.close()


def test_words_held_counts_only_the_telling_words() -> None:
    # Four chats: "caroline" is in three (more than half), "mortgage" in one, "house" in too many rows.
    shares = words_held([{"a", "b", "c"}, {"a"}, None, {"b"}], chats=4)
    assert shares == {"a": 0.5, "b": 0.5}
    assert words_held([{"a", "b", "c"}, None], chats=4) is None
