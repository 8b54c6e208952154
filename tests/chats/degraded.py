"""Remote embedders in trouble, for the tests of what Parley does then: the real SDK clients pointed at the
fake servers broken down one way (`tests.fakes.outages`), or at a port that refuses connections, each
behind `FallbackEmbedder` with the real MiniLM as its twin."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime
from typing import Literal

from chats.degrade import RemotePart
from chats.embedders.embedding import Embedder
from chats.embedders.fallback_embedder import FallbackEmbedder
from chats.embedders.gemini_embedder import GeminiEmbedder
from chats.embedders.openai_embedder import OpenAIEmbedder
from chats.text.fallback_text import FallbackTextModel
from chats.text.gemini_text import GeminiTextModel
from chats.text.offline_text import OfflineTextModel
from tests.fakes.gemini_server import FAKE_GEMINI_KEY, FakeGeminiServer
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer
from tests.fakes.outages import OUTAGES

Failure = Literal["refused", "quota", "server_error", "hang", "malformed"]
FAILURES: tuple[Failure, ...] = ("refused", *OUTAGES)
TIMEOUT_S = 1.0
"""The remote embedders' timeout here: what a hang costs."""


class Clock:
    """UTC time that moves only when a test moves it."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@contextmanager
def refused_url(path: str = "") -> Iterator[str]:
    """A base URL on 127.0.0.1 that refuses connections: bound, never listening, so nobody else takes it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{holder.getsockname()[1]}{path}"


@asynccontextmanager
async def gemini_in_trouble(
    server: FakeGeminiServer, failure: Failure, twin: Embedder, clock: Clock
) -> AsyncIterator[FallbackEmbedder]:
    """Gemini embeddings failing as `failure` says, with `twin` behind them."""
    async with gemini_parts_in_trouble(server, failure, twin, clock) as (embedder, _):
        yield embedder


@asynccontextmanager
async def gemini_parts_in_trouble(
    server: FakeGeminiServer, failure: Failure, twin: Embedder, clock: Clock
) -> AsyncIterator[tuple[FallbackEmbedder, FallbackTextModel]]:
    """Gemini embeddings (with `twin` behind them) and Gemini summaries and titles (with the offline writer
    behind them), both failing as `failure` says until `server.restore()` (a refused connection: for good)."""
    with refused_url() as refused:
        url = refused if failure == "refused" else server.base_url
        if failure != "refused":
            server.break_down(failure)
        text = GeminiTextModel(FAKE_GEMINI_KEY, base_url=url, timeout_s=TIMEOUT_S)
        try:
            async with GeminiEmbedder(
                FAKE_GEMINI_KEY, base_url=url, timeout_seconds=TIMEOUT_S, max_retries=0
            ) as remote:
                yield (
                    FallbackEmbedder(remote, twin, RemotePart("Gemini embeddings", "the local model", clock=clock)),
                    FallbackTextModel(
                        text, OfflineTextModel("en"), RemotePart("Gemini text", "the offline writer", clock=clock)
                    ),
                )
        finally:
            await text.aclose()


@asynccontextmanager
async def openai_in_trouble(
    server: FakeOpenAIServer, failure: Failure, twin: Embedder, clock: Clock
) -> AsyncIterator[FallbackEmbedder]:
    """OpenAI embeddings failing as `failure` says, with `twin` behind them."""
    with refused_url("/v1") as refused:
        url = refused if failure == "refused" else server.base_url
        if failure != "refused":
            server.outage = failure
        async with OpenAIEmbedder(FAKE_API_KEY, base_url=url, timeout_seconds=TIMEOUT_S, max_retries=0) as remote:
            yield FallbackEmbedder(remote, twin, RemotePart("OpenAI embeddings", "the local model", clock=clock))
