"""`voice.live.gemini` opening a session: the setup the real `google-genai` client sends the fake Gemini Live
server (model, prompt, tools, history), the connect config built for it, and the SDK's warm-up."""

from __future__ import annotations

import asyncio
import functools
import os
import sys
from typing import Any

from google.genai import types

from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.voice.live_client import CONFIG, HISTORY, SPEECH, open_live, say
from voice.live.connection import HistoryTurn, LiveConfig, LiveConnection, LiveConnectionFactory, ToolDeclaration
from voice.live.gemini import connect
from voice.live.gemini_setup import build_connect_config


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
