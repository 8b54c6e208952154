"""Switching chats by voice while the embedding service fails: the request goes through the fake Live
server, switch_chat embeds it through the real google-genai client against a Gemini API that refuses
connections, refuses for quota, fails with 500, hangs past the timeout or answers with a page that is not
JSON, and the local model answers in its place: the switch lands on the right chat, and nothing the model
is told says the chats cannot be reached."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import pytest

from app.config.settings import Settings
from app.wiring import ChatServices, compose_services, open_stores
from chats.embedders.minilm import MiniLMEmbedder
from chats.models import Turn
from chats.text.offline_text import OfflineTextModel
from tests.app.switching import maintained_chats, switch_by_each, switch_sessions
from tests.app.voice_harness import ServicesOpener, running_loop
from tests.chats.degraded import FAILURES, Clock, Failure, gemini_in_trouble
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.fakes.gemini_server import FakeGeminiServer

CHATS = {
    "kitchen": ("We're renovating the kitchen: oak cabinets and white wall tiles.", "The tiler comes on Monday."),
    "lisbon": ("Ana and I are planning a long weekend in Lisbon in May.", "A day trip to Sintra, dinner in Alfama."),
    "sourdough": ("My sourdough loaves keep coming out flat and dense.", "The starter is two weeks old."),
}
REQUESTS = [
    ("kitchen", "let's go back to the chat about the kitchen renovation"),
    ("lisbon", "our holiday in Portugal"),  # no word of the chat: its local vector finds it
    ("sourdough", "the chat where we talked about my flat sourdough"),
]


def services_in_trouble(gemini_server: FakeGeminiServer, failure: Failure) -> ServicesOpener:
    """Parley's services with Gemini embeddings failing as `failure` says, the local model behind them."""

    @asynccontextmanager
    async def opened(settings: Settings) -> AsyncIterator[ChatServices]:
        async with (
            AsyncExitStack() as closing,
            gemini_in_trouble(gemini_server, failure, MiniLMEmbedder(), Clock()) as embedder,
        ):
            store, memories = await open_stores(settings, closing)
            yield compose_services(store, memories, embedder, OfflineTextModel("en"))

    return opened


@pytest.mark.parametrize("failure", FAILURES)
async def test_a_switch_by_voice_lands_on_the_right_chat_while_embeddings_fail(
    failure: Failure,
    environment: Path,
    gemini_live_server: FakeGeminiLiveServer,
    gemini_server: FakeGeminiServer,
) -> None:
    requests = [words for _, words in REQUESTS]
    gemini_live_server.script(*switch_sessions(requests))
    async with running_loop(environment, open_services=services_in_trouble(gemini_server, failure)) as running:
        chats = {
            name: [Turn(role="user", text=said), Turn(role="model", text=answered)]
            for name, (said, answered) in CHATS.items()
        }
        ids = await maintained_chats(running, chats)
        landed, used = await switch_by_each(running, requests)
    replies = [u.reply.result for u in used]
    assert landed == [ids[name] for name, _ in REQUESTS]
    assert [reply["outcome"] for reply in replies] == ["switched"] * len(REQUESTS)
    assert "cannot be reached" not in json.dumps(replies)
    # What the model was told, as the Live server received it.
    told = json.dumps([connection.tool_responses for connection in gemini_live_server.connections])
    assert "switched" in told and "cannot be reached" not in told and "error" not in told
