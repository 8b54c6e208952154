"""A sink that plays through another: the base of the wrappers that change one thing about a sink (which
sink it is, how long its audio takes to be heard)."""

from __future__ import annotations

from voice.audio.chunks import AudioChunk, AudioFormat, AudioSink


class ForwardingSink:
    def __init__(self, sink: AudioSink) -> None:
        self._sink = sink

    @property
    def format(self) -> AudioFormat:
        return self._sink.format

    @property
    def queued_ms(self) -> float:
        return self._sink.queued_ms

    async def write(self, chunk: AudioChunk) -> None:
        await self._sink.write(chunk)

    def clear(self) -> None:
        self._sink.clear()

    async def drain(self) -> None:
        await self._sink.drain()

    async def aclose(self) -> None:
        await self._sink.aclose()
