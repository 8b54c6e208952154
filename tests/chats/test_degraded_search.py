"""Chat search and memory search while the embedding service fails (refused, quota, server error, hang,
malformed answer), through the real google-genai and openai clients against the fakes: the query is
embedded by the local twin, compared with the stored vectors the twin made, and the words find the rest."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from uuid import UUID

import pytest

from chats.embedders.minilm import MiniLMEmbedder
from chats.maintenance import ChatMaintainer
from chats.memory.service import MemoryService
from chats.models import Turn
from chats.recall import Recaller
from chats.search import ChatFinder
from chats.sqlite.memories import SqliteMemoryStore
from chats.sqlite.store import SqliteChatStore
from tests.chats.degraded import FAILURES, Clock, Failure, gemini_in_trouble, openai_in_trouble
from tests.fakes.gemini_server import FakeGeminiServer
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.outages import RETRY_AFTER_SECONDS
from tests.fakes.text_models import ScriptedTextModel

CHATS = {
    "kitchen": ("We're renovating the kitchen: oak cabinets and white wall tiles.", "The tiler comes on Monday."),
    "lisbon": ("Ana and I are planning a long weekend in Lisbon in May.", "A day trip to Sintra, dinner in Alfama."),
    "sourdough": ("My sourdough loaves keep coming out flat and dense.", "The starter is two weeks old."),
}
# Said with the chat's own words, and without any (found by the local vectors alone).
BY_WORDS = {"kitchen": "the kitchen renovation", "sourdough": "my flat sourdough loaves"}
BY_MEANING = {"lisbon": "our holiday in Portugal"}


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteChatStore]:
    opened = await SqliteChatStore.open(tmp_path / "chats.sqlite3", "alice")
    yield opened
    await opened.close()


async def chats_made_before_the_key(store: SqliteChatStore, minilm: MiniLMEmbedder) -> dict[str, UUID]:
    """The chats, maintained with the local model (as they were before a key chose a service's model)."""
    maintainer = ChatMaintainer(store, minilm, ScriptedTextModel())
    ids = {}
    for name, (said, answered) in CHATS.items():
        chat = await store.create(turns=[Turn(role="user", text=said), Turn(role="model", text=answered)])
        await maintainer.maintain(chat.id)
        ids[name] = chat.id
    return ids


@pytest.mark.parametrize("failure", FAILURES)
async def test_gemini_failing_any_way_still_finds_each_chat(
    failure: Failure,
    store: SqliteChatStore,
    minilm: MiniLMEmbedder,
    gemini_server: FakeGeminiServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ids = await chats_made_before_the_key(store, minilm)
    async with gemini_in_trouble(gemini_server, failure, minilm, Clock()) as embedder:
        finder = ChatFinder(store, embedder)
        with caplog.at_level(logging.INFO, logger="chats.degrade"):
            for name, query in {**BY_WORDS, **BY_MEANING}.items():
                match = await finder.find_chats(query)
                assert (match.outcome, match.options[0].chat_id) == ("switch", ids[name]), query
        lisbon = (await finder.ranked(BY_MEANING["lisbon"]))[0]
    assert lisbon.similarity is not None and lisbon.lexical == 0  # the local vectors found it
    # Said once, not per search; a hang cost one timeout, then the rest sent the searches straight to the twin.
    assert [r.getMessage().split(":")[0] for r in caplog.records if r.name == "chats.degrade"] == [
        "Gemini embeddings degraded"
    ]
    assert len(gemini_server.embedding_requests) == (0 if failure == "refused" else 1)


@pytest.mark.parametrize("failure", FAILURES)
async def test_openai_failing_any_way_still_finds_each_chat(
    failure: Failure, store: SqliteChatStore, minilm: MiniLMEmbedder, openai_server: FakeOpenAIServer
) -> None:
    ids = await chats_made_before_the_key(store, minilm)
    async with openai_in_trouble(openai_server, failure, minilm, Clock()) as embedder:
        finder = ChatFinder(store, embedder)
        for name, query in {**BY_WORDS, **BY_MEANING}.items():
            match = await finder.find_chats(query)
            assert (match.outcome, match.options[0].chat_id) == ("switch", ids[name]), query
    assert len(openai_server.embedding_requests) == (0 if failure == "refused" else 1)


async def test_a_quota_refusal_is_remembered_until_the_wait_it_asked_for(
    store: SqliteChatStore, minilm: MiniLMEmbedder, gemini_server: FakeGeminiServer, caplog: pytest.LogCaptureFixture
) -> None:
    ids = await chats_made_before_the_key(store, minilm)
    clock = Clock()
    async with gemini_in_trouble(gemini_server, "quota", minilm, clock) as embedder:
        finder = ChatFinder(store, embedder)
        with caplog.at_level(logging.INFO, logger="chats.degrade"):
            for _ in range(3):
                assert (await finder.find_chats(BY_WORDS["kitchen"])).options[0].chat_id == ids["kitchen"]
            assert len(gemini_server.embedding_requests) == 1
            clock.now += timedelta(seconds=RETRY_AFTER_SECONDS)
            gemini_server.restore()
            found = await finder.ranked(BY_WORDS["kitchen"])
            assert len(gemini_server.embedding_requests) == 2
            # The service's vectors again: the chats hold none of its model, so only their words count.
            assert found[0].chat_id == ids["kitchen"] and found[0].similarity is None
    assert [r.getMessage() for r in caplog.records if r.name == "chats.degrade"] == [
        "Gemini embeddings degraded: the Gemini API is rate-limiting this key, or its quota is used up;"
        " the local model answers, the service is asked again in 42 s",
        "Gemini embeddings recovered: the service answers again",
    ]


@pytest.mark.parametrize("failure", FAILURES)
async def test_memory_search_falls_back_to_the_local_model(
    failure: Failure, tmp_path: Path, minilm: MiniLMEmbedder, gemini_server: FakeGeminiServer
) -> None:
    memories = await SqliteMemoryStore.open(tmp_path / "chats.sqlite3", "alice")
    try:
        await MemoryService(memories, minilm).add("I prefer green tea in the morning", project_id=None)
        await MemoryService(memories, minilm).add("My daughter is called Mia", project_id=None)
        async with gemini_in_trouble(gemini_server, failure, minilm, Clock()) as embedder:
            service = MemoryService(memories, embedder)
            by_words = await service.search("green tea", scope=None)
            by_meaning = await service.search("what do I like to drink", scope=None)
            # Saved while the service fails: kept with the twin's vector, found like the others.
            await service.add("I live in Lyon", project_id=None)
            saved = await service.search("where do I live", scope=None)
    finally:
        await memories.close()
    assert by_words[0].memory.content == "User prefers green tea in the morning"
    assert by_meaning[0].memory.content == "User prefers green tea in the morning"
    assert saved[0].memory.content == "User lives in Lyon"


@pytest.mark.parametrize("failure", ["refused", "hang"])
async def test_recall_falls_back_to_the_local_model(
    failure: Failure, store: SqliteChatStore, minilm: MiniLMEmbedder, gemini_server: FakeGeminiServer
) -> None:
    ids = await chats_made_before_the_key(store, minilm)  # their turns got the local model's vectors
    async with gemini_in_trouble(gemini_server, failure, minilm, Clock()) as embedder:
        recaller = Recaller(store, embedder)
        by_words = await recaller.recall("when does the tiler come", current_chat=None)
        by_meaning = await recaller.recall("what is wrong with my bread", current_chat=None)
    assert by_words[0].chat_id == ids["kitchen"] and by_words[0].turn.text == CHATS["kitchen"][1]
    assert by_meaning[0].chat_id == ids["sourdough"]
