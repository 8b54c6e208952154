"""Maintenance while Gemini fails (refused, quota, server error, hang, malformed answer), through the real
google-genai client against the fake: titles, summaries and topic vectors come from the offline writer and
the local model, and once Gemini answers again each chat maintained without it is caught up, once."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from chats.compaction import SUMMARY_WINDOW_SIZE
from chats.degrade import MAX_REST
from chats.embedders.minilm import MiniLMEmbedder
from chats.maintenance import ChatMaintainer, transcript
from chats.models import Turn
from chats.sqlite.store import SqliteChatStore
from chats.text.offline_text import OfflineTextModel
from tests.chats.degraded import FAILURES, Clock, Failure, gemini_parts_in_trouble
from tests.fakes.gemini_server import FakeGeminiServer

KITCHEN = (
    Turn(role="user", text="We're renovating the kitchen: oak cabinets and white wall tiles."),
    Turn(role="model", text="Oak and white tiles go well together. When does the tiler come?"),
)
LISBON = (
    Turn(role="user", text="Ana and I are planning a long weekend in Lisbon in May."),
    Turn(role="model", text="Lovely: a day trip to Sintra is worth it."),
)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteChatStore]:
    opened = await SqliteChatStore.open(tmp_path / "chats.sqlite3", "alice")
    yield opened
    await opened.close()


@pytest.mark.parametrize("failure", FAILURES)
async def test_a_chat_maintained_without_gemini_is_titled_offline_then_caught_up_once(
    failure: Failure,
    store: SqliteChatStore,
    minilm: MiniLMEmbedder,
    gemini_server: FakeGeminiServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    async with gemini_parts_in_trouble(gemini_server, failure, minilm, clock) as (embedder, text):
        maintainer = ChatMaintainer(store, embedder, text)
        kitchen = await store.create(turns=KITCHEN)
        with caplog.at_level(logging.INFO, logger="chats"):
            report = await maintainer.maintain(kitchen.id)
        during = await store.load_assistant_context(kitchen.id)
        assert report.titled and report.topic_refreshed and report.turns_embedded == 0
        assert during.title == await OfflineTextModel("en").title(transcript(KITCHEN))  # the offline subject title
        assert during.topic is not None and during.topic.model == minilm.model_name
        assert [r.getMessage().split(":")[0] for r in caplog.records if r.name == "chats.degrade"] == [
            "Gemini embeddings degraded",
            "Gemini text degraded",
        ]
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING and r.name != "chats.degrade"]
        if failure == "refused":
            return  # the service never comes back at that address
        gemini_server.restore()
        clock.now += MAX_REST
        gemini_server.script("Ana's Lisbon Weekend", "Oak Kitchen Renovation")
        lisbon = await store.create(turns=LISBON)
        with caplog.at_level(logging.INFO, logger="chats"):
            await maintainer.maintain(lisbon.id)
        after = await store.load_assistant_context(kitchen.id)
        assert (await store.load_assistant_context(lisbon.id)).title == "Ana's Lisbon Weekend"
        assert after.title == "Oak Kitchen Renovation"
        assert after.topic is not None and after.topic.model == embedder.model_name
        assert await store.turns_without_vectors(kitchen.id, embedder.model_name) == []
        asked = len(gemini_server.requests)
        await maintainer.maintain(lisbon.id)  # once: nothing is caught up again
        assert len(gemini_server.requests) == asked
    assert "Gemini text recovered: the service answers again" in caplog.messages


async def test_a_long_chat_is_compacted_with_the_offline_summary_while_gemini_fails(
    store: SqliteChatStore, minilm: MiniLMEmbedder, gemini_server: FakeGeminiServer
) -> None:
    turns = [
        Turn(role="user" if i % 2 == 0 else "model", text=f"Step {i} of the kitchen renovation: the tiler, tiles.")
        for i in range(SUMMARY_WINDOW_SIZE + 2)
    ]
    async with gemini_parts_in_trouble(gemini_server, "server_error", minilm, Clock()) as (embedder, text):
        chat = await store.create(turns=turns)
        report = await ChatMaintainer(store, embedder, text).maintain(chat.id)
    context = await store.load_assistant_context(chat.id)
    assert report.compactions == 1
    assert context.summary is not None and context.summary.model == minilm.model_name
    assert "kitchen" in context.summary.text.lower()
