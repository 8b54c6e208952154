"""A wake detector timed on a stream of chunks: when each chunk was asked for, and the CPU and wall time
the detector spent (`bench.voice`, `bench.wake_rooms`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence

from voice.audio.chunks import AudioChunk
from voice.wake.detector import OpenWakeWordDetector
from voice.wake.protocol import WakeEvent


class TimedSource:
    """Hands out chunks and notes when each was asked for: the gap between two asks is the time the
    detector spent on the chunk in between. `pace` sends them at the microphone's rate."""

    def __init__(self, chunks: Sequence[AudioChunk], pace: bool = False) -> None:
        self.chunks = chunks
        self.pace = pace
        self.asked: list[float] = []

    async def __aiter__(self) -> AsyncIterator[AudioChunk]:
        started = time.perf_counter()
        for chunk in self.chunks:
            if self.pace:
                # A microphone hands a chunk over once it has all of it.
                await asyncio.sleep(max(0.0, started + chunk.end_ms / 1000 - time.perf_counter()))
            self.asked.append(time.perf_counter())
            yield chunk

    def gaps_ms(self) -> list[float]:
        return [(b - a) * 1000 for a, b in zip(self.asked, self.asked[1:], strict=False)]


async def run_stream(detector: OpenWakeWordDetector, source: TimedSource) -> tuple[list[WakeEvent], float, float]:
    """The events, and the CPU and wall seconds spent consuming `source` (the model loaded beforehand)."""
    await detector.warm_up()
    cpu, wall = time.process_time(), time.perf_counter()
    events = [event async for event in detector.detections(source.__aiter__())]
    return events, time.process_time() - cpu, time.perf_counter() - wall
