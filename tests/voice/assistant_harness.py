"""The assistant under test and what it is wired to: numbered 80 ms frames, a scripted conversation that takes
typed messages and notes what it heard, an assistant running behind the mute gate on a microphone the test
feeds (`Running`), and one told to go on for typed messages when its microphone fails (`Deafened`, on an
`Unpluggable` one). Shared by test_assistant.py, test_assistant_wakes.py and test_assistant_microphone_loss.py."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import pytest

from tests.fakes.fed_microphone import FedMicrophone
from tests.fakes.gemini_live_server import WAIT_S
from tests.fakes.scripted_wake import ScriptedWakeDetector
from voice.assistant import Assistant
from voice.audio.chunks import MIC_FORMAT, AudioChunk
from voice.audio.microphone_gate import MicrophoneGate
from voice.errors import NoAudioDevice
from voice.session_events import EndReason, Microphone
from voice.state import AssistantState, StateChanged, StateMachine
from voice.typed import TypedText
from voice.wake.protocol import WakeEvent

S = AssistantState
FRAME_MS = 80


def numbered_frames(count: int) -> list[AudioChunk]:
    """80 ms frames whose first sample is their number, so a test can tell which ones arrived."""
    frame_bytes = MIC_FORMAT.bytes_per_second * FRAME_MS // 1000
    return [
        AudioChunk(MIC_FORMAT, i.to_bytes(2, "little") + bytes(frame_bytes - 2), i * FRAME_MS) for i in range(count)
    ]


def number(chunk: AudioChunk) -> int:
    return int.from_bytes(chunk.pcm[:2], "little")


@dataclass
class ScriptedConversation:
    """Takes `texts` typed messages, listens to `frames` chunks (or until the audio ends), then ends
    with `reason`; a failed connection takes nothing."""

    frames: int
    texts: int = 0
    reason: EndReason = EndReason.IDLE
    heard: list[list[int]] = field(default_factory=list)
    read: list[str] = field(default_factory=list)

    async def converse(self, microphone: Microphone, typed: TypedText, states: StateMachine) -> EndReason:
        if self.reason is EndReason.CONNECTION_FAILED:
            self.heard.append([])
            return self.reason
        states.move(S.LISTENING)
        for _ in range(self.texts):
            self.read.append(await typed.next())
            typed.sent()
        heard: list[int] = []
        self.heard.append(heard)
        while len(heard) < self.frames and (chunk := await anext(microphone, None)) is not None:
            heard.append(number(chunk))
        return self.reason


class Running:
    """An assistant on a microphone the test feeds, behind the mute gate as in the app, running in a task."""

    def __init__(self, conversation: ScriptedConversation, *, wake: ScriptedWakeDetector | None = None) -> None:
        self.microphone = FedMicrophone()
        self.gate = MicrophoneGate(self.microphone)
        self.wake = wake or ScriptedWakeDetector()
        self.conversation = conversation
        self.typed = TypedText()
        self.states = StateMachine()
        self.changes: list[StateChanged] = []
        self.woken: list[WakeEvent] = []
        self._moved = asyncio.Event()
        self.states.subscribe(self._record)
        self.assistant = Assistant(
            source=self.gate,
            wake=self.wake,
            conversation=conversation,
            states=self.states,
            on_wake=self.on_wake,
            typed=self.typed,
            preroll_ms=240,
        )
        self.task = asyncio.create_task(self.assistant.run(), name="test-assistant")

    def _record(self, change: StateChanged) -> None:
        self.changes.append(change)
        self._moved.set()

    async def on_wake(self, event: WakeEvent) -> None:
        self.woken.append(event)

    async def until(self, new: AssistantState) -> None:
        """Wait until the assistant has been in `new` (now or before)."""
        async with asyncio.timeout(WAIT_S):
            while not any(c.new is new for c in self.changes):
                self._moved.clear()
                await self._moved.wait()

    async def finish(self) -> None:
        self.microphone.end()
        async with asyncio.timeout(WAIT_S):
            await self.task

    def moves(self) -> list[tuple[AssistantState, AssistantState]]:
        return [(c.old, c.new) for c in self.changes]


class Unpluggable:
    """A microphone the test feeds, and then unplugs: its stream fails as a real one does."""

    format = MIC_FORMAT

    def __init__(self) -> None:
        self._queue: asyncio.Queue[AudioChunk | NoAudioDevice] = asyncio.Queue()

    def put(self, *chunks: AudioChunk) -> None:
        for chunk in chunks:
            self._queue.put_nowait(chunk)

    def unplug(self) -> None:
        self._queue.put_nowait(NoAudioDevice("the microphone stopped: the input device went away"))

    async def chunks(self) -> AsyncIterator[AudioChunk]:
        while not isinstance(item := await self._queue.get(), NoAudioDevice):
            yield item
        raise item

    async def aclose(self) -> None:
        return None


class Deafened:
    """An assistant told to go on for typed messages when its microphone fails (as the window's is)."""

    def __init__(
        self, conversation: ScriptedConversation, *, microphone: Unpluggable | None, wake: ScriptedWakeDetector | None
    ) -> None:
        self.microphone = microphone
        self.wake = wake
        self.conversation = conversation
        self.typed = TypedText()
        self.states = StateMachine()
        self.lost: list[str] = []
        self.back = 0
        self.woken: list[str] = []
        self._news = asyncio.Event()
        self.states.subscribe(lambda _: self._news.set())
        self.assistant = Assistant(
            source=microphone,
            wake=wake,
            conversation=conversation,
            states=self.states,
            on_wake=self.on_wake,
            typed=self.typed,
            on_microphone_lost=self.on_lost,
            on_microphone_back=self.on_back,
        )
        self.task = asyncio.create_task(self.assistant.run(), name="test-assistant")

    async def on_wake(self, event: WakeEvent) -> None:
        self.woken.append(event.model)

    def on_lost(self, error: Exception) -> None:
        self.lost.append(str(error))
        self._news.set()

    def on_back(self) -> None:
        self.back += 1
        self._news.set()

    async def until(self, holds: Callable[[], bool]) -> None:
        async with asyncio.timeout(WAIT_S):
            while not holds():
                self._news.clear()
                await self._news.wait()

    async def conversations(self, count: int) -> None:
        """Wait until `count` conversations are over, the assistant asleep again."""
        await self.until(lambda: len(self.conversation.heard) >= count and self.states.state is S.SLEEPING)

    async def stop(self) -> None:
        assert not self.task.done()  # it was still waiting for what is typed
        self.task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await self.task
        assert self.states.state is S.STOPPED
