"""Parley's own latencies in a conversation, against the fake Gemini Live server answering at once.

- reply: from the last microphone chunk of a user turn being handed to the session to the first model
  audio chunk written to the sink (goal p95 <= 30 ms). The fake answers the moment the audio arrives,
  so this is our uplink, TLS on loopback, the SDK, our event translation and the sink write.
- session_ready: from the wake word (the session's start) to the session listening: connect, setup and
  seeding a 30-turn history (goal p95 <= 100 ms).
- barge_in: from the session receiving `Interrupted` to the speaker's buffer being empty (goal <= 50 ms),
  plus one speaker callback period (20 ms) until the device plays silence.
- cold_start: `parley listen` from process start until it is ready to hear the wake word (goal <= 3 s).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import numpy as np

from tests.fakes.gemini_live_scenario import AfterAudio, Audio, CompleteTurn, Interrupt, OutputTranscript, script
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.fakes.live_tls import make_live_tls
from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT, AudioChunk, AudioFormat
from voice.audio.preroll import PrerollStream
from voice.live.connection import (
    HistoryTurn,
    LiveConfig,
    LiveConnection,
    LiveConnectionFactory,
    LiveEvent,
    Picture,
    ToolCall,
)
from voice.live.gemini import connect
from voice.session import VoiceSession
from voice.session_events import SessionEvent, ToolReply
from voice.state import AssistantState, StateChanged, StateMachine

TURNS = 60
CHUNK = bytes(MIC_FORMAT.bytes_per_second * 80 // 1000)
VOICE = bytes(MODEL_VOICE_FORMAT.bytes_per_second * 40 // 1000)
HISTORY = tuple(HistoryTurn("user" if i % 2 == 0 else "model", f"Turn {i} of an earlier talk.") for i in range(30))
SPEAKER_BLOCK_MS = 20.0
ASSETS = Path(__file__).resolve().parents[1] / "assets" / "audio"


def summarise(ms: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(float(np.percentile(ms, 50)), 2),
        "p95_ms": round(float(np.percentile(ms, 95)), 2),
        "max_ms": round(max(ms), 2),
        "runs": len(ms),
    }


class TimingSink:
    """Notes when audio is written and when a barge-in empties it."""

    format: AudioFormat = MODEL_VOICE_FORMAT
    queued_ms: float = 0.0
    """Nothing is held back: the session's own timing is measured, not playback."""

    def __init__(self) -> None:
        self.first_write = asyncio.Event()
        self.written_at = 0.0
        self.cleared_at = 0.0

    async def write(self, chunk: AudioChunk) -> None:
        if not self.first_write.is_set():
            self.written_at = time.perf_counter()
            self.first_write.set()

    def clear(self) -> None:
        self.cleared_at = time.perf_counter()

    async def drain(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


class StampedConnection:
    """A real connection whose events are stamped as the session receives them."""

    def __init__(self, inner: LiveConnection, stamps: dict[str, float]) -> None:
        self._inner = inner
        self._stamps = stamps

    @property
    def resumption_handle(self) -> str | None:
        return self._inner.resumption_handle

    async def send_audio(self, chunk: AudioChunk) -> None:
        await self._inner.send_audio(chunk)

    async def send_text(self, text: str) -> None:
        await self._inner.send_text(text)

    async def send_tool_result(self, call_id: str, name: str, result: Mapping[str, Any]) -> None:
        await self._inner.send_tool_result(call_id, name, result)

    async def send_picture(self, picture: Picture) -> None:
        await self._inner.send_picture(picture)

    async def events(self) -> AsyncIterator[LiveEvent]:
        async for event in self._inner.events():
            self._stamps[type(event).__name__] = time.perf_counter()
            yield event

    async def aclose(self) -> None:
        await self._inner.aclose()


def reached(states: StateMachine, new: AssistantState, *, old: AssistantState | None = None) -> asyncio.Event:
    """Set when the assistant moves to `new` (from `old`, if given)."""
    event = asyncio.Event()

    def check(change: StateChanged) -> None:
        if change.new is new and old in (None, change.old):
            event.set()

    states.subscribe(check)
    return event


async def no_tools(call: ToolCall) -> ToolReply:
    return ToolReply({})


async def ignore(event: SessionEvent) -> None:
    return None


async def forever(seconds: float) -> None:
    await asyncio.Event().wait()


def opener(server: FakeGeminiLiveServer, stamps: dict[str, float]) -> LiveConnectionFactory:
    @asynccontextmanager
    async def stamped(config: LiveConfig) -> AsyncIterator[LiveConnection]:
        async with connect(
            config, api_key=server.api_key, base_url=server.base_url, ssl_context=server.ssl_context
        ) as connection:
            yield StampedConnection(connection, stamps)

    return stamped


async def measure() -> dict[str, Any]:
    async with FakeGeminiLiveServer(make_live_tls()) as server:
        return {
            "reply": await _reply(server),
            "session_ready": await _session_ready(server),
            "barge_in": await _barge_in(server),
            "cold_start": await asyncio.to_thread(_cold_start),
        }


async def _run_session(
    server: FakeGeminiLiveServer, sink: TimingSink, states: StateMachine, stamps: dict[str, float]
) -> tuple[asyncio.Task[Any], PrerollStream]:
    microphone = PrerollStream()
    session = VoiceSession(
        config=LiveConfig(model="gemini-3.8-live", system_prompt="Parley.", history=HISTORY),
        connect=opener(server, stamps),
        sink=sink,
        tools=no_tools,
        states=states,
        on_event=ignore,
        wait=forever,
    )
    return asyncio.create_task(session.run(microphone.since())), microphone


async def _reply(server: FakeGeminiLiveServer) -> dict[str, Any]:
    server.script(script(*[(AfterAudio(len(CHUNK)), (Audio(VOICE), CompleteTurn())) for _ in range(TURNS)]))
    sink = TimingSink()
    task, microphone = await _run_session(server, sink, StateMachine(AssistantState.CONNECTING), {})
    spent = []
    for _ in range(TURNS):
        sink.first_write.clear()
        handed = time.perf_counter()
        microphone.append(AudioChunk(MIC_FORMAT, CHUNK, 0.0))
        await sink.first_write.wait()
        spent.append((sink.written_at - handed) * 1000)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return summarise(spent) | {"goal_p95_ms": 30.0}


async def _session_ready(server: FakeGeminiLiveServer, runs: int = 20) -> dict[str, Any]:
    spent = []
    for _ in range(runs):
        server.script(script())
        states = StateMachine(AssistantState.CONNECTING)
        listening = reached(states, AssistantState.LISTENING)
        started = time.perf_counter()
        task, _ = await _run_session(server, TimingSink(), states, {})
        await listening.wait()
        spent.append((time.perf_counter() - started) * 1000)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    return summarise(spent) | {"goal_p95_ms": 100.0, "history_turns": len(HISTORY)}


async def _barge_in(server: FakeGeminiLiveServer, runs: int = 20) -> dict[str, Any]:
    spent = []
    for _ in range(runs):
        server.script(script((AfterAudio(len(CHUNK)), (OutputTranscript("A long story"), Audio(VOICE), Interrupt()))))
        stamps: dict[str, float] = {}
        sink = TimingSink()
        states = StateMachine(AssistantState.CONNECTING)
        interrupted = reached(states, AssistantState.LISTENING, old=AssistantState.RESPONDING)
        task, microphone = await _run_session(server, sink, states, stamps)
        microphone.append(AudioChunk(MIC_FORMAT, CHUNK, 0.0))
        await interrupted.wait()
        spent.append((sink.cleared_at - stamps["Interrupted"]) * 1000)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    figures = summarise(spent)
    return figures | {
        "until_silence_p95_ms": round(figures["p95_ms"] + SPEAKER_BLOCK_MS, 2),
        "goal_ms": 50.0,
    }


def _cold_start(runs: int = 3) -> dict[str, Any]:
    spent = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as folder:
            config = Path(folder) / "config.toml"
            config.write_text("", encoding="utf-8")
            env = os.environ | {"PARLEY_CONFIG": str(config), "PARLEY_DATA_DIR": folder, "GEMINI_API_KEY": "bench"}
            started = time.perf_counter()
            process = subprocess.Popen(
                [sys.executable, "-m", "app.cli.main", "listen", "--audio-in", str(ASSETS / "silence.wav"), "--events"],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                env=env,
            )
            assert process.stdout is not None
            for line in process.stdout:
                if json.loads(line)["event"] == "ready":
                    spent.append((time.perf_counter() - started) * 1000)
                    break
            process.kill()
            process.wait()
    return summarise(spent) | {"goal_ms": 3000.0}


def report(figures: dict[str, Any]) -> None:
    print("Voice session latency (fake Live server answering at once):")
    print(
        f"  last user audio -> first model audio written  p50 {figures['reply']['p50_ms']:6.2f} ms"
        f"  p95 {figures['reply']['p95_ms']:6.2f} ms  (goal <= 30)"
    )
    print(
        f"  wake -> session listening (30-turn history)    p50 {figures['session_ready']['p50_ms']:6.2f} ms"
        f"  p95 {figures['session_ready']['p95_ms']:6.2f} ms  (goal <= 100)"
    )
    print(
        f"  interrupted -> speaker buffer empty            p95 {figures['barge_in']['p95_ms']:6.2f} ms,"
        f" silent within {figures['barge_in']['until_silence_p95_ms']:.1f} ms  (goal <= 50)"
    )
    print(
        f"  cold start -> ready for the wake word          p50 {figures['cold_start']['p50_ms']:6.0f} ms"
        f"  max {figures['cold_start']['max_ms']:6.0f} ms  (goal <= 3000)"
    )
