"""`voice.live.gemini` in conversation: audio up and down, transcripts, tool calls and their cancelling,
turns, go-away and resumption handles, typed text by the route each model answers, closing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import aclosing

import pytest

from tests.fakes.gemini_live_scenario import (
    AfterAudio,
    AfterText,
    AfterToolResponse,
    AtOnce,
    Audio,
    Call,
    CallTools,
    CancelToolCalls,
    CompleteTurn,
    GoAwaySoon,
    InputTranscript,
    Interrupt,
    NewHandle,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import WAIT_S, FakeGeminiLiveServer
from tests.voice.live_client import HISTORY, SPEECH, VOICE, mic_chunks, open_live, say, take, until_turn_complete
from voice.audio.chunks import MODEL_VOICE_FORMAT, AudioChunk
from voice.errors import LiveConnectionError
from voice.live.connection import (
    GoAway,
    Interrupted,
    LiveConfig,
    LiveConnectionLost,
    LiveEvent,
    ModelAudio,
    ModelTranscript,
    ResumptionHandle,
    ToolCall,
    ToolCallsCancelled,
    TurnComplete,
    UserTranscript,
)
from voice.live.gemini_wire import parse_duration_ms, text_route


async def test_audio_goes_up_as_16_khz_pcm_and_comes_down_as_24_khz_chunks(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    first, second = VOICE[:4_800], VOICE[4_800:]
    gemini_live_server.script(script((AfterAudio(len(SPEECH)), (Audio(first), Audio(second), CompleteTurn()))))
    async with open_live(gemini_live_server) as live, aclosing(live.events()) as events:
        await say(live)
        received = await until_turn_complete(events)
    sent = await gemini_live_server.connection(0)
    assert bytes(sent.audio) == SPEECH
    assert sent.audio_mime_types == ["audio/pcm;rate=16000", "audio/pcm;rate=16000"]
    assert received == [
        ModelAudio(AudioChunk(MODEL_VOICE_FORMAT, first, 0.0)),
        ModelAudio(AudioChunk(MODEL_VOICE_FORMAT, second, 100.0)),
        TurnComplete(),
    ]


async def test_both_sides_are_transcribed(gemini_live_server: FakeGeminiLiveServer) -> None:
    answer = (
        InputTranscript("What's the"),
        InputTranscript(" weather?", finished=True),
        OutputTranscript("It is sunny"),
        OutputTranscript(" in Lyon.", finished=True),
        CompleteTurn(),
    )
    gemini_live_server.script(script((AfterAudio(1), answer)))
    async with open_live(gemini_live_server) as live, aclosing(live.events()) as events:
        await say(live)
        received = await until_turn_complete(events)
    assert received == [
        UserTranscript("What's the"),
        UserTranscript(" weather?", final=True),
        ModelTranscript("It is sunny"),
        ModelTranscript(" in Lyon.", final=True),
        TurnComplete(),
    ]


async def test_a_tool_call_is_answered_with_its_own_id(gemini_live_server: FakeGeminiLiveServer) -> None:
    call = Call("call-7", "switch_chat", {"query": "holiday plans"})
    gemini_live_server.script(
        script(
            (AfterAudio(1), (CallTools((call,)),)),
            (AfterToolResponse("call-7"), (OutputTranscript("Switched."), CompleteTurn())),
        )
    )
    async with open_live(gemini_live_server) as live, aclosing(live.events()) as events:
        await say(live)
        assert await take(events, 1) == [ToolCall("call-7", "switch_chat", {"query": "holiday plans"})]
        await live.send_tool_result("call-7", "switch_chat", {"status": "switched", "title": "Holiday plans"})
        assert await until_turn_complete(events) == [ModelTranscript("Switched."), TurnComplete()]
    sent = await gemini_live_server.connection(0)
    assert sent.tool_responses == [
        {"id": "call-7", "name": "switch_chat", "response": {"status": "switched", "title": "Holiday plans"}}
    ]


async def test_barge_in_interrupts_and_cancels_pending_tool_calls(gemini_live_server: FakeGeminiLiveServer) -> None:
    cut_short = (Audio(VOICE), CallTools((Call("call-1", "go_to_sleep"),)), Interrupt(), CancelToolCalls(("call-1",)))
    gemini_live_server.script(script((AfterAudio(1), (*cut_short, CompleteTurn()))))
    async with open_live(gemini_live_server) as live, aclosing(live.events()) as events:
        await say(live)
        received = await until_turn_complete(events)
    assert [type(event) for event in received] == [ModelAudio, ToolCall, Interrupted, ToolCallsCancelled, TurnComplete]
    assert received[3] == ToolCallsCancelled(("call-1",))


async def test_turns_follow_one_another_on_one_connection(gemini_live_server: FakeGeminiLiveServer) -> None:
    gemini_live_server.script(
        script(
            (AfterAudio(len(SPEECH)), (OutputTranscript("One."), CompleteTurn())),
            (AfterAudio(len(SPEECH)), (OutputTranscript("Two."), CompleteTurn())),
        )
    )
    async with open_live(gemini_live_server) as live, aclosing(live.events()) as events:
        await say(live)
        assert await until_turn_complete(events) == [ModelTranscript("One."), TurnComplete()]
        await say(live)
        assert await until_turn_complete(events) == [ModelTranscript("Two."), TurnComplete()]


async def test_go_away_and_resumption_handles_become_events(gemini_live_server: FakeGeminiLiveServer) -> None:
    updates = (NewHandle("handle-1"), NewHandle("busy", resumable=False), NewHandle("handle-2"), GoAwaySoon("50s"))
    gemini_live_server.script(script((AtOnce(), updates)))
    async with open_live(gemini_live_server) as live, aclosing(live.events()) as events:
        assert live.resumption_handle is None
        received = await take(events, 3)
        assert live.resumption_handle == "handle-2"
    assert received == [ResumptionHandle("handle-1"), ResumptionHandle("handle-2"), GoAway(time_left_ms=50_000)]


async def test_closing_ends_the_events_quietly(gemini_live_server: FakeGeminiLiveServer) -> None:
    async with open_live(gemini_live_server) as live:
        reader = asyncio.create_task(_drain(live.events()), name="drain-live-events")
        await gemini_live_server.connection(0)
        await live.aclose()
        async with asyncio.timeout(WAIT_S):
            assert await reader == []
        with pytest.raises(LiveConnectionError, match="closed") as late:
            await live.send_audio(mic_chunks(SPEECH)[0])
        assert not isinstance(late.value, LiveConnectionLost)


async def _drain(events: AsyncGenerator[LiveEvent, None]) -> list[LiveEvent]:
    return [event async for event in events]


async def test_typed_text_is_a_client_content_turn_for_a_2_5_model_after_its_history(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    gemini_live_server.script(script((AfterText(), (OutputTranscript("Friday at 8."), CompleteTurn()))))
    config = LiveConfig("gemini-2.5-flash-native-audio-preview-09-2025", "Be brief.", history=HISTORY)
    async with open_live(gemini_live_server, config) as live, aclosing(live.events()) as events:
        await live.send_text("When is the table booked?")
        assert await until_turn_complete(events) == [ModelTranscript("Friday at 8."), TurnComplete()]
    sent = await gemini_live_server.connection(0)
    assert sent.texts == ["When is the table booked?"]
    assert len(sent.history) == 2  # the typed turn is not history: the service answers it
    assert sent.frame_kinds == ["client_content", "client_content"]
    assert sent.frames[1]["client_content"] == {
        "turns": [{"role": "user", "parts": [{"text": "When is the table booked?"}]}],
        "turnComplete": True,
    }


async def test_typed_text_is_realtime_text_for_a_3_x_model(gemini_live_server: FakeGeminiLiveServer) -> None:
    gemini_live_server.script(script((AfterText(), (OutputTranscript("Friday at 8."), CompleteTurn()))))
    config = LiveConfig("gemini-3.1-flash-live-preview", "Be brief.", history=HISTORY)
    async with open_live(gemini_live_server, config) as live, aclosing(live.events()) as events:
        await say(live, SPEECH[:3_200])
        await live.send_text("When is the table booked?")
        assert await until_turn_complete(events) == [ModelTranscript("Friday at 8."), TurnComplete()]
    sent = await gemini_live_server.connection(0)
    assert sent.texts == ["When is the table booked?"]
    assert sent.frame_kinds == ["client_content", "realtime_input", "realtime_input"]
    assert sent.frames[2] == {"realtime_input": {"text": "When is the table booked?"}}


async def test_typed_text_on_a_closed_connection_is_an_error(gemini_live_server: FakeGeminiLiveServer) -> None:
    async with open_live(gemini_live_server) as live:
        await live.aclose()
        with pytest.raises(LiveConnectionError, match="closed"):
            await live.send_text("Anyone there?")


# -- pure parts ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("50s", 50_000), ("0.250s", 250), ("1.0000001s", 1_000), ("", None), (None, None), ("soon", None), ("-1s", None)],
)
def test_durations_are_read_in_milliseconds(text: str | None, expected: int | None) -> None:
    assert parse_duration_ms(text) == expected


@pytest.mark.parametrize(
    ("model", "route"),
    [
        ("gemini-2.5-flash-native-audio-preview-09-2025", "client_content"),
        ("models/gemini-2.5-flash-native-audio-preview-12-2025", "client_content"),
        ("gemini-live-2.5-flash-preview", "client_content"),
        ("gemini-2.0-flash-live-001", "client_content"),
        ("gemini-3.1-flash-live-preview", "realtime_input"),
        ("gemini-3.8-live", "realtime_input"),
        ("gemini-3-flash-live", "realtime_input"),
        ("gemini-10.0-live", "realtime_input"),
        ("gemini-test-live", "realtime_input"),
    ],
)
def test_typed_text_takes_the_route_the_model_answers(model: str, route: str) -> None:
    assert text_route(model) == route
