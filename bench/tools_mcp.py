"""The user's MCP tools, timed for `bench.tools` (which runs them beside the timers' measurements):

- `mcp_call_round_trip`: a model's call of a local MCP server's tool, from the fake Live service sending
  `toolCall` to it receiving the `toolResponse` (both on the service's clock): the google-genai client, the
  voice session, `McpToolKit` and the official MCP client over stdio to tests/fakes/mcp_server.py, and back.
  The tool (`add`) does no work of its own, so the figure is what Parley and MCP add. Goal p95 <= 50 ms.
- `mcp_first_start`: what the first conversation waits for a server before its first call can be made:
  `declarations()` on a fresh toolkit (spawn, initialize, tools/list), then that first call; and importing
  the `mcp` SDK in a fresh interpreter, which the first conversation of a process pays once too.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from uuid import uuid4

from bench.voice_latency import CHUNK, TimingSink, forever, ignore, opener, reached, summarise
from tests.app.mcp import fake_server, patient_kit
from tests.fakes.gemini_live_scenario import AfterAudio, AfterToolResponse, Call, CallTools, CompleteTurn, script
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.fakes.live_tls import make_live_tls
from voice.audio.chunks import MIC_FORMAT, AudioChunk
from voice.audio.preroll import PrerollStream
from voice.live.connection import LiveConfig, ToolCall
from voice.session import VoiceSession
from voice.session_events import ToolReply
from voice.state import AssistantState, StateMachine

RESULTS = Path(__file__).resolve().parent / "results"
CALL_GOAL_P95_MS = 50.0


async def mcp_call_round_trip(runs: int = 60) -> dict[str, Any]:
    """The model's call to the tool's answer back at the model, p50/p95/max over `runs` calls."""
    async with FakeGeminiLiveServer(make_live_tls()) as server, patient_kit([fake_server()]) as kit:
        tools = await kit.declarations()
        server.script(
            script(
                *[
                    step
                    for i in range(runs)
                    for step in (
                        (AfterAudio(len(CHUNK)), (CallTools((Call(f"t{i}", "fake__add", {"a": i, "b": 1}),)),)),
                        (AfterToolResponse(f"t{i}"), (CompleteTurn(),)),
                    )
                ]
            )
        )

        async def answer(call: ToolCall) -> ToolReply:
            return ToolReply(await kit.call(call.name, call.args, uuid4()))

        states = StateMachine(AssistantState.CONNECTING)
        microphone = PrerollStream()
        session = VoiceSession(
            config=LiveConfig(model="gemini-3.8-live", system_prompt="Parley.", tools=tools),
            connect=opener(server, {}),
            sink=TimingSink(),
            tools=answer,
            states=states,
            on_event=ignore,
            wait=forever,
        )
        task = asyncio.create_task(session.run(microphone.since()))
        await reached(states, AssistantState.LISTENING).wait()
        for _ in range(runs):
            answered = reached(states, AssistantState.LISTENING, old=AssistantState.THINKING)
            microphone.append(AudioChunk(MIC_FORMAT, CHUNK, 0.0))
            await answered.wait()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        recorded = await server.connection(0)
    called = {_call_id(frame): at for at, frame in recorded.sent if "toolCall" in frame}
    answered_at = {
        _response_id(frame): at
        for at, frame in zip(recorded.received_at, recorded.frames, strict=True)
        if "tool_response" in frame
    }
    spent = [(answered_at[call_id] - at) * 1000 for call_id, at in called.items()]
    return summarise(spent) | {"goal_p95_ms": CALL_GOAL_P95_MS}


async def mcp_first_start(runs: int = 5) -> dict[str, Any]:
    """A fresh toolkit's first `declarations()` (the server started and listed) and first call, `runs` times;
    and the SDK's import in a fresh interpreter."""
    start, first_call = [], []
    for _ in range(runs):
        async with patient_kit([fake_server()]) as kit:
            began = time.perf_counter()
            await kit.declarations()
            declared = time.perf_counter()
            await kit.call("fake__add", {"a": 1, "b": 2}, uuid4())
            start.append((declared - began) * 1000)
            first_call.append((time.perf_counter() - declared) * 1000)
    imports = [await asyncio.to_thread(_sdk_import_ms) for _ in range(3)]
    return {
        "server_start": summarise(start),
        "first_call_after_start": summarise(first_call),
        "sdk_import": summarise(imports),
        "server": "tests/fakes/mcp_server.py (Python, the mcp SDK's MCPServer)",
    }


def _sdk_import_ms() -> float:
    code = "import time; t = time.perf_counter(); import app.mcp.connection; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return float(out) * 1000


def _call_id(frame: dict[str, Any]) -> str:
    return str(frame["toolCall"]["functionCalls"][0]["id"])


def _response_id(frame: dict[str, Any]) -> str:
    response = frame["tool_response"]
    calls = response.get("function_responses") or response.get("functionResponses")
    return str(calls[0]["id"])


def report(results: dict[str, Any]) -> None:
    if "mcp_call_round_trip" in results:
        call = results["mcp_call_round_trip"]
        print(
            f"mcp_call_round_trip (a local stdio server's tool, the model's call to its answer): "
            f"p50 {call['p50_ms']:.2f} ms, p95 {call['p95_ms']:.2f} ms (goal <= {CALL_GOAL_P95_MS:g})"
        )
    if "mcp_first_start" in results:
        first = results["mcp_first_start"]
        start, after, sdk = first["server_start"], first["first_call_after_start"], first["sdk_import"]
        print(
            f"mcp_first_start: the server p50 {start['p50_ms']:.0f} ms, p95 {start['p95_ms']:.0f} ms; "
            f"its first call p50 {after['p50_ms']:.2f} ms; the mcp SDK's import p50 {sdk['p50_ms']:.0f} ms"
        )
