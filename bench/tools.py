"""Parley's tools, timed: `python -m bench.tools [--out FILE]`.

Each measurement is one function in `MEASUREMENTS` (name -> coroutine giving a JSON object); the results
go to bench/results/tools.json under those names, with the machine's load, and a summary is printed.

- timer_lateness_asleep: how late a timer rings (its chime written to the speaker, minus its due time),
  with nothing else running: the real scheduler, timers file (fsynced marks) and ringer. Goal p95 <= 250 ms.
- timer_lateness_in_conversation: the same while a conversation goes on in the same event loop (the real
  VoiceSession and google-genai client against the fake Live server, a microphone streaming 80 ms chunks
  in real time, an answer with voice after each). Goal p95 <= 250 ms.
- own_tool_answer: from the model's tool call arriving at the session to the answer being sent back, for
  Parley's timer tools (set_timer, list_timers, cancel_timer, set_reminder) through the real session.
- mcp_call_round_trip, mcp_first_start: the user's MCP tools (`bench.tools_mcp`).
- timer_stop_by_voice: from the end of a spoken "stop" to the ring stopping (`bench.tools_stop`).
- timer_stop_over_the_ring: how often a "stop" said over the ring's own sound is heard, and how often the
  ring alone stops itself, through a simulated room and the echo canceller (`bench.tools_stop_over_ring`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import uuid4

from app.core.timer import Timer
from app.timers.ringing import SoundRinger
from app.timers.store import TimerFile
from app.timers.toolkit import TimerKit
from app.timers.wiring import local_zone
from bench import tools_mcp
from bench.tools_stop import timer_stop_by_voice
from bench.tools_stop_over_ring import stop_over_the_ring
from bench.voice_latency import StampedConnection, TimingSink, forever, ignore, summarise
from tests.fakes.gemini_live_scenario import (
    AfterAudio,
    AfterToolResponse,
    Audio,
    Call,
    CallTools,
    CompleteTurn,
    Trigger,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.fakes.live_tls import make_live_tls
from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT, AudioChunk
from voice.audio.preroll import PrerollStream
from voice.live.connection import LiveConfig, LiveConnection, LiveConnectionFactory, LiveEvent, ToolCall
from voice.live.gemini import connect
from voice.session import VoiceSession
from voice.session_events import ToolReply
from voice.state import AssistantState, StateMachine

RESULTS = Path(__file__).resolve().parent / "results"
LATENESS_GOAL_MS = 250.0
TIMERS = 40
SPACING_S = 0.37
"""Between two timers' due times: not a round number, so rings fall anywhere in the scheduler's pauses."""
MIC_CHUNK = bytes(MIC_FORMAT.bytes_per_second * 80 // 1000)
VOICE = bytes(MODEL_VOICE_FORMAT.bytes_per_second * 80 // 1000)
TOOL_ROUNDS = 15


class FirstChime:
    """A speaker for one ring: notes when the chime is written, then stops the ring (one round is enough)."""

    format = MODEL_VOICE_FORMAT
    queued_ms = 0.0

    def __init__(self, heard: Callable[[datetime], None]) -> None:
        self._heard = heard
        self.ringer: SoundRinger | None = None

    async def write(self, chunk: AudioChunk) -> None:
        self._heard(datetime.now(UTC))
        if self.ringer is not None:
            self.ringer.stop()

    def clear(self) -> None:
        return None

    async def drain(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


class TimedRinger:
    """The real ringer (no words: the chime is what is heard first), one per ring, timing its chime."""

    def __init__(self, expected: int) -> None:
        self.late_ms: list[float] = []
        self.done = asyncio.Event()
        self._expected = expected

    async def ring(self, timer: Timer) -> None:
        def heard(at: datetime) -> None:
            self.late_ms.append((at - timer.due_at).total_seconds() * 1000)
            if len(self.late_ms) >= self._expected:
                self.done.set()

        speaker = FirstChime(heard)
        speaker.ringer = SoundRinger(post=lambda event: None, language="en", zone=UTC, sink=speaker)
        await speaker.ringer.ring(timer)

    async def missed(self, timers: Sequence[Timer], now: datetime) -> None:
        raise AssertionError("no timer should be missed")


async def _ring_timers(folder: Path) -> list[float]:
    """Set `TIMERS` timers due from a second from now on, and how late each one's chime was (ms)."""
    ringer = TimedRinger(TIMERS)
    file = TimerFile(folder)
    kit = TimerKit(file, clock=lambda: datetime.now(UTC), zone=UTC, language="en", ringer=ringer)
    start = datetime.now(UTC) + timedelta(seconds=1)
    for n in range(TIMERS):
        file.add(Timer(f"{n:06x}", "timer", f"bench {n}", start + timedelta(seconds=SPACING_S * n), datetime.now(UTC)))
    async with kit:
        await asyncio.wait_for(ringer.done.wait(), timeout=SPACING_S * TIMERS + 30)
    return ringer.late_ms


async def timer_lateness_asleep() -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="parley-bench-timers-") as folder:
        late = await _ring_timers(Path(folder))
    return summarise(late) | {"goal_p95_ms": LATENESS_GOAL_MS}


async def timer_lateness_in_conversation() -> dict[str, Any]:
    async with FakeGeminiLiveServer(make_live_tls()) as server:
        turns = round(SPACING_S * TIMERS / 0.08) + 200
        server.script(
            script(*[(AfterAudio(len(MIC_CHUNK) * 10), (Audio(VOICE), CompleteTurn())) for _ in range(turns)])
        )
        microphone = PrerollStream()
        session = VoiceSession(
            config=LiveConfig(model="gemini-3.8-live", system_prompt="Parley."),
            connect=_connect(server),
            sink=TimingSink(),
            tools=_no_tools,
            states=StateMachine(AssistantState.CONNECTING),
            on_event=ignore,
            wait=forever,
        )
        talking = asyncio.create_task(session.run(microphone.since()))
        streaming = asyncio.create_task(_stream(microphone))
        try:
            with tempfile.TemporaryDirectory(prefix="parley-bench-timers-") as folder:
                late = await _ring_timers(Path(folder))
        finally:
            for task in (talking, streaming):
                task.cancel()
            await asyncio.gather(talking, streaming, return_exceptions=True)
    return summarise(late) | {"goal_p95_ms": LATENESS_GOAL_MS}


async def own_tool_answer() -> dict[str, Any]:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("set_timer", {"seconds": 540, "label": "pasta"}),
        ("list_timers", {}),
        ("cancel_timer", {"which": "pasta"}),
        ("set_reminder", {"when": "tomorrow at 9", "text": "call the plumber"}),
    ]
    steps: list[tuple[Trigger, str, str, dict[str, Any]]] = []
    for n in range(TOOL_ROUNDS):
        for name, args in calls:
            call_id = f"{name}-{n}"
            steps.append(
                (AfterAudio(len(MIC_CHUNK)) if not steps else AfterToolResponse(steps[-1][2]), name, call_id, args)
            )
    answered: dict[str, list[float]] = {name: [] for name, _ in calls}
    async with AsyncExitStack() as stack:
        folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="parley-bench-tools-"))
        zone = local_zone()
        ringer = SoundRinger(post=lambda event: None, language="en", zone=zone)
        # Entered, as the voice loop enters it: its scheduler runs, and dateparser warms up meanwhile.
        kit = await stack.enter_async_context(
            TimerKit(TimerFile(Path(folder)), clock=lambda: datetime.now(UTC), zone=zone, language="en", ringer=ringer)
        )
        chat = uuid4()

        async def tools(call: ToolCall) -> ToolReply:
            return ToolReply(await kit.call(call.name, call.args, chat))

        async with FakeGeminiLiveServer(make_live_tls()) as server:
            server.script(
                script(
                    *[(when, (CallTools((Call(call_id, name, args),)),)) for when, name, call_id, args in steps],
                    (AfterToolResponse(steps[-1][2]), (CompleteTurn(),)),
                )
            )
            stamps: dict[str, float] = {}
            all_sent = asyncio.Event()

            def sent(call_id: str, at: float) -> None:
                name = call_id.rsplit("-", 1)[0]
                answered[name].append((at - stamps[call_id]) * 1000)
                if sum(map(len, answered.values())) == len(steps):
                    all_sent.set()

            microphone = PrerollStream()
            session = VoiceSession(
                config=LiveConfig(model="gemini-3.8-live", system_prompt="Parley."),
                connect=_connect(server, stamps, sent),
                sink=TimingSink(),
                tools=tools,
                states=StateMachine(AssistantState.CONNECTING),
                on_event=ignore,
                wait=forever,
            )
            task = asyncio.create_task(session.run(microphone.since()))
            microphone.append(AudioChunk(MIC_FORMAT, MIC_CHUNK, 0.0))
            try:
                await asyncio.wait_for(all_sent.wait(), timeout=120)
            finally:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
    return {name: summarise(ms) for name, ms in answered.items()}


MEASUREMENTS: Mapping[str, Callable[[], Awaitable[dict[str, Any]]]] = {
    "timer_lateness_asleep": timer_lateness_asleep,
    "timer_lateness_in_conversation": timer_lateness_in_conversation,
    "own_tool_answer": own_tool_answer,
    "timer_stop_by_voice": timer_stop_by_voice,
    "timer_stop_over_the_ring": stop_over_the_ring,
    "mcp_call_round_trip": tools_mcp.mcp_call_round_trip,
    "mcp_first_start": tools_mcp.mcp_first_start,
}
"""Name -> measurement: each is one entry of the results."""


class _Stamped(StampedConnection):
    """A real connection that notes when a tool call arrives (by the call's id) and when its answer is sent."""

    def __init__(self, inner: LiveConnection, stamps: dict[str, float], sent: Callable[[str, float], None]) -> None:
        super().__init__(inner, stamps)
        self._sent = sent

    async def send_tool_result(self, call_id: str, name: str, result: Mapping[str, Any]) -> None:
        await super().send_tool_result(call_id, name, result)
        self._sent(call_id, time.perf_counter())

    async def events(self) -> AsyncIterator[LiveEvent]:
        async for event in self._inner.events():
            if isinstance(event, ToolCall):
                self._stamps[event.id] = time.perf_counter()
            yield event


def _connect(
    server: FakeGeminiLiveServer,
    stamps: dict[str, float] | None = None,
    sent: Callable[[str, float], None] = lambda call_id, at: None,
) -> LiveConnectionFactory:
    @asynccontextmanager
    async def opened(config: LiveConfig) -> AsyncIterator[LiveConnection]:
        async with connect(
            config, api_key=server.api_key, base_url=server.base_url, ssl_context=server.ssl_context
        ) as connection:
            yield _Stamped(connection, {} if stamps is None else stamps, sent)

    return opened


async def _no_tools(call: ToolCall) -> ToolReply:
    return ToolReply({})


async def _stream(microphone: PrerollStream) -> None:
    """A microphone in real time: 80 ms of audio every 80 ms."""
    started = time.perf_counter()
    for n in range(1_000_000):
        microphone.append(AudioChunk(MIC_FORMAT, MIC_CHUNK, n * 80.0))
        await asyncio.sleep(max(0.0, started + (n + 1) * 0.08 - time.perf_counter()))


async def measure(names: list[str] | None = None) -> dict[str, Any]:
    results: dict[str, Any] = {"loadavg": os.getloadavg(), "cpus": os.cpu_count()}
    for name, measurement in MEASUREMENTS.items():
        if names is None or name in names:
            results[name] = await measurement()
    return results


def report(results: dict[str, Any]) -> None:
    print(f"load average {results['loadavg'][0]:.1f} on {results['cpus']} cores")
    for name in ("timer_lateness_asleep", "timer_lateness_in_conversation"):
        if name in results:
            late = results[name]
            verdict = "meets" if late["p95_ms"] <= late["goal_p95_ms"] else "MISSES"
            print(
                f"{name}: p50 {late['p50_ms']} ms, p95 {late['p95_ms']} ms, max {late['max_ms']} ms "
                f"({late['runs']} timers; {verdict} the goal p95 <= {late['goal_p95_ms']:.0f} ms)"
            )
    if "timer_stop_by_voice" in results:
        stop = results["timer_stop_by_voice"]
        print(
            f"timer_stop_by_voice: p50 {stop['p50_ms']} ms, p95 {stop['p95_ms']} ms from the end of 'stop' "
            f"({stop['runs']} rings; the first, loading Whisper: {stop['first_ring_ms']} ms)"
        )
    for part, cancellers in results.get("timer_stop_over_the_ring", {}).items():
        for canceller, seen in cancellers.items():
            if not isinstance(seen, dict):
                continue  # the part's seeds and moments
            latency = "".join(
                f", {what} p50 {seen[what]['p50_ms']} / p95 {seen[what]['p95_ms']} ms"
                for what in ("decided", "silent")
                if seen[what]
            )
            print(
                f"timer_stop_over_the_ring {part} {canceller}: 'stop' heard {seen['heard']}/{seen['said']}, "
                f"false stops {seen['false_stops']}/{seen['rings']} rings{latency} (from the end of 'stop')"
            )
    for tool, spent in results.get("own_tool_answer", {}).items():
        print(f"own_tool_answer {tool}: p50 {spent['p50_ms']} ms, p95 {spent['p95_ms']} ms ({spent['runs']} calls)")
    tools_mcp.report(results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--only", help="comma-separated measurements: " + ", ".join(MEASUREMENTS))
    parser.add_argument("--out", type=Path, default=RESULTS / "tools.json")
    args = parser.parse_args()
    results = asyncio.run(measure(args.only.split(",") if args.only else None))
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    report(results)


if __name__ == "__main__":
    main()
