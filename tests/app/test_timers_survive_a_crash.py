"""Timers survive `kill -9`: `parley listen` (a real process, on a recording of silence, against the fake
Live server) killed while a timer is pending, started again: the timer rings once, or is said missed
once; one due long before is said missed once; a third start rings neither again."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import wave
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from app.core.timer import Timer
from app.timers.store import TimerFile
from tests.fakes.gemini_live_server import FakeGeminiLiveServer

START_S = 120.0
"""A start under load (the wake word model, the Live client): generous."""
SILENCE_S = 600
"""The recording each process listens to: longer than the test."""


class Listening:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.events: list[dict[str, Any]] = []

    async def until(self, *kinds: str) -> dict[str, Any]:
        """The next event of one of these kinds (the ones before it are kept)."""
        assert self.process.stdout is not None and self.process.stderr is not None
        async with asyncio.timeout(START_S):
            while True:
                line = await self.process.stdout.readline()
                assert line, f"parley listen ended: {(await self.process.stderr.read()).decode()[-800:]}"
                event: dict[str, Any] = json.loads(line)
                self.events.append(event)
                if event["event"] in kinds:
                    return event

    def said(self, timer_id: str) -> int:
        """How often `timer_id` rang or was said missed."""
        return sum(
            1
            for e in self.events
            if (e["event"] == "timer" and e["id"] == timer_id)
            or (e["event"] == "timers_missed" and timer_id in e["ids"])
        )


@asynccontextmanager
async def listening(recording: Path) -> AsyncIterator[Listening]:
    """`parley listen --events` until the block ends, then `kill -9`."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "app.cli.main",
        "listen",
        "--audio-in",
        str(recording),
        "--events",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,  # its embedding child goes with it
    )
    listening = Listening(process)
    try:
        await listening.until("ready")
        yield listening
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        await process.wait()


def silence_wav(path: Path) -> Path:
    with wave.open(str(path), "wb") as recording:
        recording.setnchannels(1)
        recording.setsampwidth(2)
        recording.setframerate(16_000)
        recording.writeframes(bytes(2 * 16_000 * SILENCE_S))
    return path


def timer(timer_id: str, due_in_s: float) -> Timer:
    now = datetime.now(UTC)
    return Timer(timer_id, "timer", timer_id, now + timedelta(seconds=due_in_s), now)


async def test_a_timer_pending_at_a_kill_rings_once_after_the_restart_and_never_again(
    environment: Path, gemini_live_server: FakeGeminiLiveServer
) -> None:
    recording = silence_wav(environment / "silence.wav")
    timers = TimerFile(environment / "data")
    async with listening(recording) as first:
        timers.add(timer("pasta0", 4))
        timers.add(timer("oldone", -600))  # as if set before a long shutdown
    assert first.said("pasta0") == 0  # killed before it was due
    assert {t.id: t.state for t in timers.read()} == {"pasta0": "pending", "oldone": "pending"}

    async with listening(recording) as second:
        while second.said("pasta0") + second.said("oldone") < 2:
            await second.until("timer", "timers_missed")
    assert second.said("pasta0") == 1 and second.said("oldone") == 1
    assert next(e["ids"] for e in second.events if e["event"] == "timers_missed") in (["oldone"], ["oldone", "pasta0"])
    assert {t.id: t.state for t in timers.read()}["oldone"] == "missed"

    async with listening(recording) as third:
        timers.add(timer("eggs00", 1))  # rings after anything still due would have
        rang = await third.until("timer")
    assert rang["id"] == "eggs00"
    assert third.said("pasta0") == 0 and third.said("oldone") == 0
