"""A typed message counts as the user being active: the idle countdown does not end a conversation while
the model has still to answer it. The real session and google-genai client against the fake Live server;
the idle countdown's time passes when the test says."""

from __future__ import annotations

import asyncio
import functools

from tests.fakes.gemini_live_scenario import AfterText, CompleteTurn, OutputTranscript, script
from tests.fakes.gemini_live_server import WAIT_S, FakeGeminiLiveServer
from voice.audio.null_sink import NullSink
from voice.audio.preroll import PrerollStream
from voice.live.connection import LiveConfig, ToolCall
from voice.live.gemini import connect
from voice.session import VoiceSession
from voice.session_events import EndReason, SessionEvent, SpokenTurn, ToolReply
from voice.state import AssistantState, StateMachine
from voice.typed import TypedText

CONFIG = LiveConfig(model="gemini-2.5-flash-native-audio-preview-09-2025", system_prompt="You are Parley.", tools=())


class Clock:
    """The idle countdown's time: each `wait` lasts until the test lets one idle period pass."""

    def __init__(self) -> None:
        self._periods: asyncio.Queue[None] = asyncio.Queue()

    def let_pass(self, periods: int) -> None:
        for _ in range(periods):
            self._periods.put_nowait(None)

    async def wait(self, seconds: float) -> None:
        await self._periods.get()


async def test_the_conversation_does_not_go_idle_while_a_typed_message_waits_for_its_answer(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    # The model answers only once a second message is typed: until then, the first waits for its answer.
    gemini_live_server.script(script((AfterText(count=2), (OutputTranscript("Paris."), CompleteTurn()))))
    events: list[SessionEvent] = []
    typed_turn = asyncio.Event()

    async def record(event: SessionEvent) -> None:
        events.append(event)
        if isinstance(event, SpokenTurn) and event.typed:
            typed_turn.set()

    async def tools(call: ToolCall) -> ToolReply:
        raise AssertionError("no tool was called")

    clock = Clock()
    session = VoiceSession(
        config=CONFIG,
        connect=functools.partial(
            connect,
            api_key=gemini_live_server.api_key,
            base_url=gemini_live_server.base_url,
            ssl_context=gemini_live_server.ssl_context,
            open_timeout_s=WAIT_S,
        ),
        sink=NullSink(),
        tools=tools,
        states=StateMachine(AssistantState.CONNECTING),
        on_event=record,
        wait=clock.wait,
    )
    typed = TypedText()
    typed.put("What is the capital of France?")
    microphone = PrerollStream()
    microphone.end()  # no microphone: typing only
    running = asyncio.create_task(session.run(microphone.since(), typed))
    async with asyncio.timeout(WAIT_S):
        await typed_turn.wait()
    clock.let_pass(2)  # twice the idle time, and no answer yet
    typed.put("And of Italy?")
    async with asyncio.timeout(WAIT_S):
        assert await running is EndReason.IDLE  # once answered, the countdown ran out
    assert [(e.role, e.text) for e in events if isinstance(e, SpokenTurn)] == [
        ("user", "What is the capital of France?"),
        ("user", "And of Italy?"),
        ("model", "Paris."),
    ]
