"""The voice loop on a microphone the test feeds, with an observer that records what it is told: the harness
of the app's voice tests (the real wake word model, the real google-genai client against the fake Live
server, the real SQLite store and journal)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

from app.config.settings import Settings, load_settings
from app.conversation import ConversationEvent, Saved
from app.core.events import TurnSpoken
from app.core.toolkit import ToolKit
from app.voice_loop import VoiceLoop
from app.wiring import ChatServices, open_chat_services
from chats.store import ChatStore
from tests.fakes.fed_microphone import FedMicrophone
from voice.audio.null_sink import NullSink
from voice.session_events import SpokenTurn
from voice.state import StateChanged
from voice.wake.protocol import WakeEvent

LOOP_WAIT_S = 90.0
"""Safety net for a whole conversation, the wake word model's loading included, and the offline voice's models
(they load as a conversation opens: 3 s on a quiet 2-core machine, 20 s and more at load 9)."""


class Watcher:
    """A `VoiceObserver` that keeps what it is told, in order, as (kind, value) pairs."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []
        self._news = asyncio.Event()

    def _add(self, kind: str, value: Any) -> None:
        self.seen.append((kind, value))
        self._news.set()

    def ready(self, wake_word: str, chat_id: UUID) -> None:
        self._add("ready", chat_id)

    def state(self, change: StateChanged) -> None:
        self._add("state", change.new)

    async def wake(self, wake: WakeEvent) -> None:
        self._add("wake", wake)

    async def conversation(self, event: ConversationEvent) -> None:
        self._add("conversation", event)

    def muted(self, muted: bool) -> None:
        self._add("muted", muted)

    def level(self, dbfs: float) -> None:
        self._add("level", dbfs)

    def of(self, kind: str) -> list[Any]:
        return [value for seen_kind, value in self.seen if seen_kind == kind]

    def spoken(self) -> list[SpokenTurn]:
        """The turns of the conversation as it journaled and told them (`TurnSpoken`), in the session's terms
        (without their web sources)."""
        return [
            SpokenTurn(e.turn.role, e.turn.text, e.turn.interrupted, e.typed)
            for e in self.of("conversation")
            if isinstance(e, TurnSpoken)
        ]

    async def until(self, holds: Callable[[], bool]) -> None:
        async with asyncio.timeout(LOOP_WAIT_S):
            while not holds():
                self._news.clear()
                await self._news.wait()

    async def until_saved(self, turns: int) -> Saved:
        await self.until(lambda: any(isinstance(e, Saved) and e.turns == turns for e in self.of("conversation")))
        saved: Saved = next(e for e in self.of("conversation") if isinstance(e, Saved) and e.turns == turns)
        return saved


@dataclass
class Running:
    loop: VoiceLoop
    microphone: FedMicrophone
    watcher: Watcher
    store: ChatStore
    chat_id: UUID
    services: ChatServices
    sink: NullSink


ServicesOpener = Callable[[Settings], AbstractAsyncContextManager[ChatServices]]


@asynccontextmanager
async def running_loop(
    environment: Path,
    sink: NullSink | None = None,
    toolkits: Callable[[ChatServices, NullSink], Sequence[ToolKit]] | None = None,
    open_services: ServicesOpener = open_chat_services,
) -> AsyncIterator[Running]:
    """The voice loop, ready (the wake word model loaded), on a fed microphone; it ends with the audio.
    `sink` stands for the speaker (default: one that plays in real time). `toolkits`: the loop's, made from
    its services and speaker. `open_services` opens the chat services for the settings (default: as Parley
    does)."""
    settings = load_settings()
    async with open_services(settings) as services:
        chat_id = (await services.store.create()).id
        microphone, watcher, sink = FedMicrophone(), Watcher(), sink or NullSink()
        loop = VoiceLoop(
            settings=settings,
            services=services,
            source=microphone,
            sink=sink,
            chat_id=chat_id,
            observer=watcher,
            toolkits=() if toolkits is None else toolkits(services, sink),
        )
        task = asyncio.create_task(loop.run(), name="test-voice-loop")
        try:
            await watcher.until(lambda: bool(watcher.of("ready")) or task.done())
            yield Running(loop, microphone, watcher, services.store, chat_id, services, sink)
            microphone.end()
            async with asyncio.timeout(LOOP_WAIT_S):
                await task
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


async def history(running: Running) -> list[tuple[str, str]]:
    chat = await running.store.get(running.chat_id)
    return [(turn.role, turn.text) for turn in chat.full_history]
