"""`voice.live.gemini` driving the real `google-genai` client against the fake Gemini Live server."""

from __future__ import annotations

import asyncio
import functools
import os
import socket
import sys
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import AbstractAsyncContextManager, aclosing
from typing import Any

import pytest
from google.genai import types

from tests.fakes.gemini_live_scenario import (
    AfterAudio,
    AfterText,
    AfterToolResponse,
    AtOnce,
    Audio,
    Call,
    CallTools,
    CancelToolCalls,
    Close,
    CompleteTurn,
    Drop,
    GoAwaySoon,
    InputTranscript,
    Interrupt,
    NewHandle,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import WAIT_S, FakeGeminiLiveServer
from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT, AudioChunk
from voice.errors import LiveConnectionError
from voice.live.connection import (
    GoAway,
    HistoryTurn,
    Interrupted,
    LiveConfig,
    LiveConnection,
    LiveConnectionFactory,
    LiveConnectionLost,
    LiveConnectionRefused,
    LiveEvent,
    ModelAudio,
    ModelTranscript,
    ResumptionHandle,
    ToolCall,
    ToolCallsCancelled,
    ToolDeclaration,
    TurnComplete,
    UserTranscript,
)
from voice.live.gemini import GeminiLiveConnection, connect
from voice.live.gemini_setup import build_connect_config
from voice.live.gemini_wire import parse_duration_ms, refusal, text_route

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


# -- opening ----------------------------------------------------------------------------------------


async def test_setup_carries_model_prompt_tools_transcription_compression_and_resumption(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    async with open_live(gemini_live_server):
        sent = await gemini_live_server.connection(0)
    assert sent.api_key == gemini_live_server.api_key
    assert sent.model == "models/gemini-test-live"
    assert sent.system_text == "You are Parley. Answer briefly."
    assert sent.generation_config["responseModalities"] == ["AUDIO"]
    assert "Kore" in repr(sent.generation_config["speechConfig"])
    switch, sleep = sent.function_declarations
    assert switch == {
        "name": "switch_chat",
        "description": "Switch to the chat the user describes.",
        "parameters": {
            "type": "OBJECT",
            "properties": {"query": {"type": "STRING", "description": "What the chat was about."}},
            "required": ["query"],
        },
        "behavior": "BLOCKING",
    }
    assert sleep == {"name": "go_to_sleep", "description": "End the conversation.", "behavior": "BLOCKING"}
    assert sent.setup["inputAudioTranscription"] == {}
    assert sent.setup["outputAudioTranscription"] == {}
    assert sent.setup["contextWindowCompression"] == {"sliding_window": {}}
    assert sent.session_resumption == {}
    assert not sent.history_in_client_content
    assert sent.frames == []


def test_a_json_schema_from_another_program_is_declared_with_what_gemini_knows() -> None:
    # As an MCP server written with zod or pydantic lists its tools: keywords the SDK's JSONSchema refuses.
    notes = ToolDeclaration(
        "notes__find",
        "Find notes.",
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "title": "findArguments",
            "additionalProperties": False,
            "properties": {
                "query": {"type": "string", "examples": ["milk"]},
                "limit": {"type": "integer", "exclusiveMinimum": 0},
                "tags": {"type": "array", "items": {"type": "string", "const": "x"}},
            },
            "required": ["query"],
        },
    )
    odd = ToolDeclaration("odd__tool", "Odd.", {"type": "object", "properties": {"x": {"type": "strange"}}})
    config = build_connect_config(LiveConfig("gemini-test-live", "", tools=(notes, odd)))
    assert config.tools is not None
    tool = config.tools[0]
    assert isinstance(tool, types.Tool) and tool.function_declarations is not None
    find, strange = tool.function_declarations
    assert find.parameters is not None and find.parameters.properties is not None
    assert find.parameters.required == ["query"]
    assert [p.type for p in find.parameters.properties.values()] == [
        types.Type.STRING,
        types.Type.INTEGER,
        types.Type.ARRAY,
    ]
    # One the SDK cannot translate goes as JSON Schema, rather than breaking the conversation's setup.
    assert strange.parameters is None
    assert strange.parameters_json_schema == {"type": "object", "properties": {"x": {"type": "strange"}}}


async def test_history_is_seeded_once_and_completely_before_any_audio(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    async with open_live(gemini_live_server, LiveConfig("gemini-test-live", "Be brief.", history=HISTORY)) as live:
        await say(live)
        sent = await gemini_live_server.connection(0)
        await gemini_live_server.wait_until(lambda: len(sent.audio) == len(SPEECH))
    assert sent.history_in_client_content
    assert sent.history == [
        {"role": "user", "parts": [{"text": "Book a table for Friday."}]},
        {"role": "model", "parts": [{"text": "Done: Friday at 8 pm at Nono."}]},
    ]
    # One history frame that ends the history phase (the service does not answer it), then audio only.
    assert sent.frame_kinds == ["client_content", "realtime_input", "realtime_input"]
    assert sent.frames[0]["client_content"]["turnComplete"] is True


async def test_a_wrong_key_is_refused_without_the_key_in_the_message(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    with pytest.raises(LiveConnectionRefused) as refused:
        async with open_live(gemini_live_server, api_key="AIza-wrong-key-0042"):
            pytest.fail("a wrong key must not open a session")
    message = str(refused.value)
    assert "AIza-wrong-key-0042" not in message
    assert "API key" in message
    assert "\n" not in message
    assert refused.value.code == 1007
    assert (await gemini_live_server.connection(0)).api_key == "AIza-wrong-key-0042"


async def test_an_empty_key_is_refused_before_any_connection(gemini_live_server: FakeGeminiLiveServer) -> None:
    with pytest.raises(LiveConnectionRefused, match="no Gemini API key"):
        async with open_live(gemini_live_server, api_key="  "):
            pytest.fail("an empty key must not open a session")
    assert gemini_live_server.connections == []


async def test_a_closed_port_is_a_connection_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(LiveConnectionError, match="cannot reach Gemini Live") as failed:
        async with connect(CONFIG, api_key="AIza-some-key-77", base_url=f"https://127.0.0.1:{port}"):
            pytest.fail("nothing listens there")
    assert not isinstance(failed.value, LiveConnectionRefused)
    assert "AIza-some-key-77" not in str(failed.value)


async def test_an_untrusted_certificate_is_a_connection_error(gemini_live_server: FakeGeminiLiveServer) -> None:
    with pytest.raises(LiveConnectionError, match="cannot reach Gemini Live"):
        async with connect(CONFIG, api_key=gemini_live_server.api_key, base_url=gemini_live_server.base_url):
            pytest.fail("the fake's certificate is signed by a CA only the test trusts")


async def test_a_wrong_endpoint_is_refused(gemini_live_server: FakeGeminiLiveServer) -> None:
    with pytest.raises(LiveConnectionRefused, match="404"):
        async with connect(
            CONFIG,
            api_key=gemini_live_server.api_key,
            base_url=gemini_live_server.base_url + "/not-here",
            ssl_context=gemini_live_server.ssl_context,
        ):
            pytest.fail("the path is wrong")


async def test_an_unknown_resumption_handle_is_refused(gemini_live_server: FakeGeminiLiveServer) -> None:
    with pytest.raises(LiveConnectionRefused) as refused:
        async with open_live(gemini_live_server, CONFIG.resumed("handle-from-last-week")):
            pytest.fail("the service does not know this handle")
    assert refused.value.code == 1007


async def test_connect_with_its_endpoint_bound_is_a_live_connection_factory(
    gemini_live_server: FakeGeminiLiveServer,
) -> None:
    factory: LiveConnectionFactory = functools.partial(
        connect,
        api_key=gemini_live_server.api_key,
        base_url=gemini_live_server.base_url,
        ssl_context=gemini_live_server.ssl_context,
    )
    async with factory(CONFIG) as live:
        opened: LiveConnection = live
        assert opened.resumption_handle is None
        sent = await gemini_live_server.connection(0)
    await gemini_live_server.wait_until(lambda: sent.closed)


# -- conversing --------------------------------------------------------------------------------------


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


# -- losing the connection and resuming ---------------------------------------------------------------


async def test_a_dropped_connection_is_resumed_with_the_last_handle(gemini_live_server: FakeGeminiLiveServer) -> None:
    gemini_live_server.script(
        script((AtOnce(), (NewHandle("handle-9"),)), (AfterAudio(1), (Drop(),))),
        script((AfterAudio(1), (OutputTranscript("Still here."), CompleteTurn()))),
    )
    config = LiveConfig("gemini-test-live", "Be brief.", history=HISTORY)
    async with open_live(gemini_live_server, config) as live, aclosing(live.events()) as events:
        assert await take(events, 1) == [ResumptionHandle("handle-9")]
        await say(live, SPEECH[:3_200])
        with pytest.raises(LiveConnectionLost) as lost:
            await take(events, 1)
        with pytest.raises(LiveConnectionLost):
            await say(live)
    assert lost.value.code == 1006
    assert lost.value.resumption_handle == "handle-9"

    async with open_live(gemini_live_server, config.resumed(lost.value.resumption_handle)) as live:
        resumed = await gemini_live_server.connection(1)
        await say(live)
        async with aclosing(live.events()) as events:
            assert await until_turn_complete(events) == [ModelTranscript("Still here."), TurnComplete()]
        assert live.resumption_handle == "handle-9"
    assert resumed.session_resumption == {"handle": "handle-9"}
    # The resumed session already holds the history: none is sent again.
    assert not resumed.history_in_client_content
    assert set(resumed.frame_kinds) == {"realtime_input"}


async def test_a_clean_close_by_the_service_is_a_lost_connection(gemini_live_server: FakeGeminiLiveServer) -> None:
    gemini_live_server.script(script((AtOnce(), (GoAwaySoon("0.250s"), Close(1000, "session over")))))
    async with open_live(gemini_live_server) as live, aclosing(live.events()) as events:
        assert await take(events, 1) == [GoAway(time_left_ms=250)]
        with pytest.raises(LiveConnectionLost) as lost:
            await take(events, 1)
    assert lost.value.code == 1000
    assert lost.value.resumption_handle is None


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


@pytest.mark.parametrize(
    ("model", "reason"),
    [
        # As projects logged the service's close: the model named first, the reason cut at 123 bytes.
        ("gemini-live-2.5-flash-preview", "models/gemini-live-2.5-flash-preview is not found for API version v1beta,"),
        ("", "models/gemini-flash-2.0-live-001 is not found for API version v1beta, or is not supported for bidi"),
        ("models/gemini-2.5-flash", "models/gemini-2.5-flash is not found for API version v1, or is not supported"),
    ],
)
def test_a_model_the_service_does_not_know_is_named_with_the_setting_to_change(model: str, reason: str) -> None:
    refused = refusal(1008, reason + " Call ListMod", "key-1", model)
    assert isinstance(refused, LiveConnectionRefused) and refused.code == 1008
    named = model.removeprefix("models/") or "gemini-flash-2.0-live-001"
    assert str(refused) == (
        f"Gemini Live does not know the model '{named}': set gemini_live_model to a current Live model (parley config)"
    )


def test_other_policy_closes_are_still_a_refused_session() -> None:
    refused = refusal(1008, "Operation is not implemented, or supported, or enabled.", "key-1", "gemini-3.8-live")
    assert (
        str(refused)
        == "Gemini Live refused the session (1008: Operation is not implemented, or supported, or enabled.)"
    )


def test_a_resumed_config_seeds_no_history() -> None:
    fresh = build_connect_config(LiveConfig("m", "p", history=HISTORY))
    resumed = build_connect_config(LiveConfig("m", "p", history=HISTORY, resumption_handle="h"))
    assert fresh.history_config is not None
    assert fresh.history_config.initial_history_in_client_content is True
    assert resumed.history_config is None
    assert resumed.session_resumption is not None
    assert resumed.session_resumption.handle == "h"


def test_no_history_means_no_history_phase() -> None:
    only_blank: Any = build_connect_config(LiveConfig("m", "p", history=(HistoryTurn("user", " "),)))
    assert only_blank.history_config is None


async def test_the_warm_up_builds_every_server_message_type_without_a_network() -> None:
    # Run in a fresh interpreter: in this one, earlier tests have long built the SDK's models.
    script = (
        "import asyncio\n"
        "from google.genai import types\n"
        "from voice.live.gemini_warm_up import warm_up\n"
        "models = [types.LiveServerMessage, types.LiveServerContent, types.LiveServerToolCall]\n"
        "models.append(types.LiveConnectConfig)\n"
        "before = [m.__pydantic_complete__ for m in models]\n"
        "asyncio.run(warm_up())\n"
        "print(before, [m.__pydantic_complete__ for m in models])\n"
    )
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        script,
        stdout=asyncio.subprocess.PIPE,
        env=os.environ | {"HTTPS_PROXY": "http://0.0.0.0:9"},
    )
    out, _ = await child.communicate()
    assert child.returncode == 0
    assert out.decode().strip() == "[False, False, False, False] [True, True, True, True]"
