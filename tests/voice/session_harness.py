"""The session under test and what it is wired to: the real `VoiceSession` and the real google-genai client
against the fake Live server, with a speaker that records what it plays (and holds it, with barge-in), a
tool that answers at once, idle waits that end when the test says, reconnection pauses that pass at once,
and the owner's record of the turns. Shared by test_session.py (one conversation) and
test_session_connection.py (its connection: resumption, reconnection, giving up)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.fakes.gemini_live_scenario import Audio, CompleteTurn, InputTranscript, OutputTranscript
from tests.fakes.gemini_live_server import WAIT_S, FakeGeminiLiveServer
from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT, AudioChunk, AudioFormat
from voice.audio.preroll import PrerollStream
from voice.echo.barge_in import SpeechOverPlaybackFactory
from voice.live.connection import HistoryTurn, LiveConfig, ToolCall, ToolDeclaration
from voice.live.gemini import connect
from voice.session import VoiceSession
from voice.session_events import EndReason, SessionEvent, SpokenTurn, ToolReply
from voice.state import AssistantState, StateChanged, StateMachine
from voice.typed import TypedText

S = AssistantState
CONFIG = LiveConfig(
    model="gemini-test-live",
    system_prompt="You are Parley.",
    tools=(ToolDeclaration("switch_chat", "Switch chats.", {"type": "object", "properties": {}}),),
)
SPEECH = bytes(3_200)
"""100 ms of 16 kHz silence: what the microphone sends."""
VOICE = bytes(range(256)) * 15
"""80 ms of 24 kHz model voice."""


@dataclass
class RecordingSink:
    """An `AudioSink` that keeps what it was asked to play, and counts barge-ins. It plays everything at
    once, or with `holds` it holds what is written as queued until the test plays it (`play`)."""

    format: AudioFormat = MODEL_VOICE_FORMAT
    holds: bool = False
    played: list[bytes] = field(default_factory=list)
    clears: int = 0
    queued_ms: float = 0.0

    async def write(self, chunk: AudioChunk) -> None:
        self.played.append(chunk.pcm)
        if self.holds:
            self.queued_ms += chunk.duration_ms

    def play(self, ms: float) -> None:
        """`ms` of what is queued plays."""
        self.queued_ms = max(0.0, self.queued_ms - ms)

    def clear(self) -> None:
        self.clears += 1
        self.queued_ms = 0.0

    async def drain(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


class Harness:
    def __init__(
        self,
        server: FakeGeminiLiveServer | None,
        end_with: ToolReply | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        config: LiveConfig = CONFIG,
        barge_in: SpeechOverPlaybackFactory | None = None,
    ) -> None:
        self.sink = RecordingSink(holds=barge_in is not None)
        self.typed = TypedText()
        self.states = StateMachine(S.CONNECTING)
        self.changes: list[StateChanged] = []
        self.states.subscribe(self.changes.append)
        self.events: list[SessionEvent] = []
        self.calls: list[ToolCall] = []
        self.idle_elapses = asyncio.Event()
        self.waits: list[float] = []
        """What the session waited for, in seconds, in order."""
        self.pauses: list[float] = []
        """The waits between reconnections (seconds), in order; they pass at once."""
        self.on_pause: Callable[[], None] = lambda: None
        self._changed = asyncio.Condition()
        self._reply = end_with or ToolReply({"outcome": "ok"})
        self.session_config = config
        self.session = VoiceSession(
            config=config,
            connect=functools.partial(
                connect,
                api_key=api_key or (server.api_key if server else "key"),
                base_url=server.base_url if server else base_url,
                ssl_context=server.ssl_context if server else None,
                open_timeout_s=WAIT_S,
            ),
            sink=self.sink,
            tools=self.tool,
            states=self.states,
            on_event=self.record,
            wait=self.wait,
            barge_in=barge_in,
            history=self.history,
            pause=self.pause,
        )

    async def tool(self, call: ToolCall) -> ToolReply:
        self.calls.append(call)
        return self._reply

    async def record(self, event: SessionEvent) -> None:
        async with self._changed:
            self.events.append(event)
            self._changed.notify_all()

    async def until_turns(self, count: int) -> None:
        async with asyncio.timeout(WAIT_S), self._changed:
            await self._changed.wait_for(lambda: len(self.turns()) >= count)

    def history(self) -> list[HistoryTurn]:
        """The session's owner's record: the config's history, then each turn as it was recorded."""
        return [
            *self.session_config.history,
            *(HistoryTurn(e.role, e.text) for e in self.events if isinstance(e, SpokenTurn)),
        ]

    async def pause(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.on_pause()

    async def wait(self, seconds: float) -> None:
        self.waits.append(seconds)
        await self.idle_elapses.wait()
        self.sink.play(1000.0 * seconds)  # the voice plays on while the session waits

    def open(self) -> tuple[PrerollStream, asyncio.Task[EndReason]]:
        """The session on a microphone the test feeds."""
        microphone = PrerollStream()
        return microphone, asyncio.create_task(self.session.run(microphone.since(), self.typed))

    def start(self, chunks: int = 3) -> asyncio.Task[EndReason]:
        microphone = PrerollStream()
        for i in range(chunks):
            microphone.append(AudioChunk(MIC_FORMAT, SPEECH, i * 100.0))
        microphone.end()
        return asyncio.create_task(self.session.run(microphone.since(), self.typed))

    async def idle_end(self, session: asyncio.Task[EndReason]) -> EndReason:
        self.idle_elapses.set()
        async with asyncio.timeout(WAIT_S):
            return await session

    def turns(self) -> list[tuple[str, str, bool]]:
        return [(e.role, e.text, e.interrupted) for e in self.events if isinstance(e, SpokenTurn)]

    def typed_turns(self) -> list[str]:
        return [e.text for e in self.events if isinstance(e, SpokenTurn) and e.typed]

    async def until_state(self, state: AssistantState) -> None:
        reached = asyncio.Event()
        self.states.subscribe(lambda change: reached.set() if change.new is state else None)
        if self.states.state is not state:
            async with asyncio.timeout(WAIT_S):
                await reached.wait()


def answer(*lines: str) -> tuple[InputTranscript | OutputTranscript | Audio | CompleteTurn, ...]:
    return (
        InputTranscript("What's the "),
        InputTranscript("weather?"),
        *(OutputTranscript(line) for line in lines),
        Audio(VOICE),
        CompleteTurn(),
    )
