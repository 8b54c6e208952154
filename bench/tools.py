"""Tools beyond the chat's own, timed: `python -m bench.tools [--runs N] [--out FILE]` (bench/results/tools.json).

One function per measurement, each returning its figures:

- `mcp_call_round_trip`: a model's call of a local MCP server's tool, from the fake Live service sending
  `toolCall` to it receiving the `toolResponse` (both on the service's clock): the google-genai client, the
  voice session, `McpToolKit` and the official MCP client over stdio to tests/fakes/mcp_server.py, and back.
  The tool (`add`) does no work of its own, so the figure is what Parley and MCP add. Goal p95 <= 50 ms.
- `mcp_first_start`: what the first conversation waits for a server before its first call can be made:
  `declarations()` on a fresh toolkit (spawn, initialize, tools/list), then that first call; and importing
  the `mcp` SDK in a fresh interpreter, which the first conversation of a process pays once too.

The load average is recorded beside the figures: on a shared machine it moves them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from uuid import uuid4

from bench.voice_latency import CHUNK, TimingSink, forever, ignore, opener, reached, summarise
from tests.app.mcp import fake_server, patient_kit
from tests.fakes.gemini_live_scenario import AfterAudio, AfterToolResponse, Call, CallTools, CompleteTurn, script
from tests.fakes.gemini_live_server import FakeGeminiLiveServer, make_live_tls
from voice.audio.chunks import MIC_FORMAT, AudioChunk
from voice.audio.preroll import PrerollStream
from voice.live.connection import LiveConfig, ToolCall
from voice.session import ToolReply, VoiceSession
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


def report(figures: dict[str, Any]) -> None:
    call, first = figures["mcp_call_round_trip"], figures["mcp_first_start"]
    start, after, sdk = first["server_start"], first["first_call_after_start"], first["sdk_import"]
    print(f"MCP tools (load average {figures['load_average']}):")
    print(f"  model's call -> answer back at the model (local stdio server)  p50 {call['p50_ms']:7.2f} ms", end="")
    print(f"  p95 {call['p95_ms']:7.2f} ms  (goal <= {CALL_GOAL_P95_MS:g})")
    print(f"  first conversation waits for the server to start               p50 {start['p50_ms']:7.0f} ms", end="")
    print(f"  p95 {start['p95_ms']:7.0f} ms")
    print(f"  then its first call                                            p50 {after['p50_ms']:7.2f} ms")
    print(f"  importing the mcp SDK, once per process                        p50 {sdk['p50_ms']:7.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--out", type=Path, default=RESULTS / "tools.json")
    args = parser.parse_args()
    figures: dict[str, Any] = {"load_average": [round(x, 2) for x in os.getloadavg()]}
    figures["mcp_call_round_trip"] = asyncio.run(mcp_call_round_trip(args.runs))
    figures["mcp_first_start"] = asyncio.run(mcp_first_start())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    report(figures)


if __name__ == "__main__":
    main()
