"""Parley as `bench.month` runs it: the real services on one data folder, with a simulated clock.

`open_services` opens the services as the window and `parley listen` do
(`app.wiring.open_chat_services(local_models_in_child=True)`: the local embedder and offline text model in a
child process, the SQLite chat and memory stores), with the stores and the maintainer on the month's
simulated clock, and a `CountingMaintainer` for the maintainer: the real `ChatMaintainer`, which also tells
when it has finished a chat and how many compactions it made.

`RunningApp` is one run of the app between two restarts: those services, a `VoiceLoop` without a
microphone (typed turns, as the window sends them) against the fake Gemini Live server, and a
`MaintenanceWorker` for the conversations the bench appends straight to the store.
"""

from __future__ import annotations

import asyncio
import os
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import UUID

from app.config.settings import Settings, load_settings
from app.conversation import ConversationEvent, Saved
from app.core.events import TurnSpoken
from app.voice_loop import VoiceLoop
from app.wiring import ChatServices, open_chat_services
from chats.maintenance import ChatMaintainer, MaintenanceReport, MaintenanceWorker
from voice.audio.null_sink import NullSink
from voice.state import AssistantState, StateChanged
from voice.wake.protocol import WakeEvent

WAIT_S = 60.0
"""Safety net for one step of a conversation (an answer, a save, a maintenance): a run that reaches it failed."""
IDLE_SECONDS = "0.4"
"""The conversation ends this long after the last answer (the app's default is 10 s of silence)."""


class Clock:
    """The month's time: moved forward by the bench, read by the stores and the maintainer."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def environment(data_dir: Path, base_url: str, api_key: str, ca_file: Path, config: Path) -> dict[str, str]:
    """The variables Parley reads (`PARLEY_*`): the fake Live server trusted through its CA, a data folder,
    the local embedder and the offline text model (a user without a Gemini text model or OpenAI key)."""
    return {
        "PARLEY_CONFIG": str(config),
        "PARLEY_DATA_DIR": str(data_dir),
        "GEMINI_API_KEY": api_key,
        "PARLEY_GEMINI_BASE_URL": base_url,
        "PARLEY_CA_FILE": str(ca_file),
        "PARLEY_IDLE_SECONDS": IDLE_SECONDS,
        "PARLEY_EMBEDDER": "local",
        "PARLEY_TEXT_MODEL": "offline",
    }


class CountingMaintainer(ChatMaintainer):
    """The real maintainer, counting: each `maintain` is numbered as it starts, per chat, so that a caller
    can wait for one that started after its turns were saved."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.compactions = 0
        self.started: dict[UUID, int] = defaultdict(int)
        self.finished: dict[UUID, int] = defaultdict(int)
        """The start number of the latest `maintain` of each chat that has finished (or failed)."""
        self._news = asyncio.Event()

    async def maintain(self, chat_id: UUID, *, embed_turns: bool = True) -> MaintenanceReport:
        self.started[chat_id] += 1
        number = self.started[chat_id]
        try:
            report = await super().maintain(chat_id, embed_turns=embed_turns)
        finally:
            self.finished[chat_id] = max(self.finished[chat_id], number)
            self._news.set()
        self.compactions += report.compactions
        return report

    async def until_maintained(self, chat_id: UUID, after: int) -> None:
        """Until a `maintain` of `chat_id` that started after the `after`-th has finished."""
        async with asyncio.timeout(WAIT_S):
            while self.finished[chat_id] <= after:
                self._news.clear()
                await self._news.wait()


@asynccontextmanager
async def open_services(settings: Settings, clock: Callable[[], datetime]) -> AsyncIterator[ChatServices]:
    """The services as the window and `parley listen` open them, with the stores on `clock` and a
    `CountingMaintainer`."""
    async with open_chat_services(settings, local_models_in_child=True, clock=clock) as services:
        services.maintainer = CountingMaintainer(services.store, services.embedder, services.text_model, clock=clock)
        yield services


class Observer:
    """The voice loop's observer: keeps what the conversation says, in order."""

    def __init__(self) -> None:
        self.events: list[ConversationEvent] = []
        self.states: list[AssistantState] = []
        self.ready_chat: UUID | None = None
        self._news = asyncio.Event()

    def _add(self) -> None:
        self._news.set()

    def ready(self, wake_word: str, chat_id: UUID) -> None:
        self.ready_chat = chat_id
        self._add()

    def state(self, change: StateChanged) -> None:
        self.states.append(change.new)
        self._add()

    async def wake(self, wake: WakeEvent) -> None:
        return None

    async def conversation(self, event: ConversationEvent) -> None:
        self.events.append(event)
        self._add()

    def muted(self, muted: bool) -> None:
        return None

    def level(self, dbfs: float) -> None:
        return None

    def clear(self) -> None:
        """Forget what was seen (between conversations: the long-running process keeps nothing of them)."""
        self.events.clear()
        self.states.clear()

    def model_turns(self) -> int:
        return sum(isinstance(e, TurnSpoken) and e.turn.role == "model" for e in self.events)

    def saved_chats(self) -> list[UUID]:
        return [e.chat_id for e in self.events if isinstance(e, Saved) and e.turns > 0]

    async def until(self, holds: Callable[[], bool]) -> None:
        async with asyncio.timeout(WAIT_S):
            while not holds():
                self._news.clear()
                await self._news.wait()


class RunningApp:
    """One run of Parley on the data folder, from start to restart (or crash)."""

    def __init__(self, clock: Clock, chat_id: UUID) -> None:
        self._clock = clock
        self._chat_id = chat_id
        self._stack = AsyncExitStack()
        self.observer = Observer()
        self.services: ChatServices
        self.maintainer: CountingMaintainer
        self.worker: MaintenanceWorker
        self.loop: VoiceLoop
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> RunningApp:
        settings = load_settings()
        self.services = await self._stack.enter_async_context(open_services(settings, self._clock))
        assert isinstance(self.services.maintainer, CountingMaintainer)
        self.maintainer = self.services.maintainer
        self.worker = await self._stack.enter_async_context(MaintenanceWorker(self.maintainer))
        self.loop = VoiceLoop(
            settings=settings,
            services=self.services,
            source=None,
            sink=NullSink(clock=None),
            chat_id=self._chat_id,
            observer=self.observer,
        )
        self._task = asyncio.create_task(self.loop.run(), name="month-voice-loop")
        await self.observer.until(lambda: self.observer.ready_chat is not None or self._done())
        self._raise_if_done()
        return self

    def _done(self) -> bool:
        return self._task is not None and self._task.done()

    def _raise_if_done(self) -> None:
        if self._task is not None and self._task.done():
            self._task.result()
            raise RuntimeError("the voice loop ended on its own")

    async def __aexit__(self, *exc_info: object) -> None:
        try:
            if self._task is not None:
                self.loop.stop()
                async with asyncio.timeout(WAIT_S):
                    await asyncio.gather(self._task, return_exceptions=True)
        finally:
            await self._stack.aclose()

    async def settle(self, chats: list[UUID], marks: dict[UUID, int]) -> None:
        """Until each of `chats` was maintained by a run started after `marks` (its count before the
        conversation)."""
        for chat_id in dict.fromkeys(chats):
            await self.maintainer.until_maintained(chat_id, marks.get(chat_id, 0))


def rss_mb(pid: int | None = None) -> float:
    """Resident set of a process (this one by default), in MB, from /proc."""
    status = Path(f"/proc/{pid or os.getpid()}/status").read_text(encoding="utf-8")
    line = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024
