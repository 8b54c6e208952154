"""A ringing timer stopped by voice, timed for `bench.tools`:

- `timer_stop_by_voice`: from the end of the spoken "stop" (its last sound, fed into the microphone stream in
  real time, 80 ms chunks) to the ring stopping (the stopped event posted): the real ringer, the real
  spotter (Silero VAD, then Whisper base on one thread) reading a cursor of the one microphone stream, as
  the voice loop hands it over. No echo canceller and no speaker: the spotter's own delay is measured (the
  VAD's 320 ms hangover, then Whisper's decode). The first ring, which loads Whisper (about 0.5 s), is given
  apart.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Any

from app.core.events import FrontEvent, TimerStopped
from app.core.timer import Timer
from app.timers.ringing import SoundRinger
from app.timers.wiring import StopSpotter
from bench.voice_latency import summarise
from tests.voice.fixtures import silence, split, utterances
from tests.voice.offline.said import said
from voice.audio.preroll import PrerollStream

CHUNK_MS = 80.0
QUIET_S = 3600.0
"""The spotter's models are kept over the whole run (`StopSpotter`'s release after a quiet spell): only the first
ring loads them."""


async def _one_stop(ringer: SoundRinger, stopped: asyncio.Event, pcm: bytes, speech_end_ms: float, n: int) -> float:
    """Ring a timer, say `pcm` into the microphone in real time; from its speech's end to the stop (ms)."""
    stream = PrerollStream()
    ringer.listen_through(lambda: stream.since(stream.end_ms))
    now = datetime.now(UTC)
    stopped.clear()
    ringing = asyncio.create_task(ringer.ring(Timer(f"stop{n:04x}", "timer", "bench", now, now)))
    await asyncio.sleep(0.05)  # the ring opens its cursor on its first step
    spoken_at = 0.0
    start = time.perf_counter()
    for chunk in split(pcm):
        await asyncio.sleep(max(0.0, start + chunk.start_ms / 1000 - time.perf_counter()))
        stream.append(chunk)
        if spoken_at == 0.0 and chunk.end_ms >= speech_end_ms:
            spoken_at = time.perf_counter() - (chunk.end_ms - speech_end_ms) / 1000
        if stopped.is_set():
            break
    await asyncio.wait_for(stopped.wait(), timeout=30)
    took = (time.perf_counter() - spoken_at) * 1000
    await ringing
    return took


async def timer_stop_by_voice(runs: int = 12) -> dict[str, Any]:
    stopped = asyncio.Event()

    def post(event: FrontEvent) -> None:
        if isinstance(event, TimerStopped):
            stopped.set()

    spotter = StopSpotter(quiet_s=QUIET_S)
    ringer = SoundRinger(post=post, language="en", zone=UTC, spot=spotter.spot)
    speech = await said("stop")
    pcm = silence(600) + speech + silence(3_000)
    speech_end_ms = 600.0 + utterances(speech)[-1][1]
    first = await _one_stop(ringer, stopped, pcm, speech_end_ms, 0)
    times = [await _one_stop(ringer, stopped, pcm, speech_end_ms, n) for n in range(1, runs + 1)]
    await spotter.part.aclose()
    return summarise(times) | {"first_ring_ms": round(first, 2)}
