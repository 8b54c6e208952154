"""The real `google-genai` Live client opened on the fake Gemini Live server, and what a test says and hears
through it. Shared by test_gemini_live_setup.py, test_gemini_live_conversing.py, test_gemini_live_failures.py
and test_gemini_web_search.py."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager

from tests.fakes.gemini_live_server import WAIT_S, FakeGeminiLiveServer
from voice.audio.chunks import MIC_FORMAT, AudioChunk
from voice.live.connection import HistoryTurn, LiveConfig, LiveEvent, ToolDeclaration, TurnComplete
from voice.live.gemini import GeminiLiveConnection, connect

SWITCH_CHAT = ToolDeclaration(
    name="switch_chat",
    description="Switch to the chat the user describes.",
    parameters={
        "type": "object",
        "properties": {"query": {"type": "string", "description": "What the chat was about."}},
        "required": ["query"],
    },
)
GO_TO_SLEEP = ToolDeclaration(name="go_to_sleep", description="End the conversation.")
CONFIG = LiveConfig(
    model="gemini-test-live",
    system_prompt="You are Parley. Answer briefly.",
    tools=(SWITCH_CHAT, GO_TO_SLEEP),
    voice="Kore",
)
HISTORY = (
    HistoryTurn("user", "Book a table for Friday."),
    HistoryTurn("model", "Done: Friday at 8 pm at Nono."),
    HistoryTurn("user", "   "),
)
SPEECH = bytes(range(256)) * 25
"""6,400 bytes: 200 ms of 16 kHz mono PCM16."""
VOICE = bytes(reversed(range(256))) * 30
"""7,680 bytes: 160 ms of 24 kHz mono PCM16."""


def mic_chunks(pcm: bytes, size: int = 3_200) -> list[AudioChunk]:
    return [
        AudioChunk(MIC_FORMAT, pcm[start : start + size], MIC_FORMAT.duration_ms(start))
        for start in range(0, len(pcm), size)
    ]


def open_live(
    server: FakeGeminiLiveServer, config: LiveConfig = CONFIG, *, api_key: str | None = None
) -> AbstractAsyncContextManager[GeminiLiveConnection]:
    return connect(
        config,
        api_key=server.api_key if api_key is None else api_key,
        base_url=server.base_url,
        ssl_context=server.ssl_context,
        open_timeout_s=WAIT_S,
    )


async def take(events: AsyncIterator[LiveEvent], count: int) -> list[LiveEvent]:
    async with asyncio.timeout(WAIT_S):
        return [await anext(events) for _ in range(count)]


async def until_turn_complete(events: AsyncIterator[LiveEvent]) -> list[LiveEvent]:
    seen: list[LiveEvent] = []
    async with asyncio.timeout(WAIT_S):
        while not seen or not isinstance(seen[-1], TurnComplete):
            seen.append(await anext(events))
    return seen


async def say(connection: GeminiLiveConnection, pcm: bytes = SPEECH) -> None:
    for chunk in mic_chunks(pcm):
        await connection.send_audio(chunk)
