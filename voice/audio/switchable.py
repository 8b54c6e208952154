"""A microphone and a speaker that can be changed for others while they are in use, without a restart.

Whoever holds a `SwitchableSource` reads one unbroken stream: after `switch`, the chunks of the new source
follow those of the old, timed on from where the old one stopped (a reader keeps positions in milliseconds
into the stream: the pre-roll, the wake detector's offsets), and the old source is closed. A
`SwitchableSink` plays through its current sink; `switch` closes the one it replaces. When to switch is
the caller's choice: between conversations, not in the middle of a sentence.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from voice.audio.chunks import AudioChunk, AudioFormat, AudioSink, AudioSource
from voice.audio.forwarding import ForwardingSink
from voice.audio.overlay import Overlays


class SwitchableSource:
    def __init__(self, source: AudioSource) -> None:
        self._source = source
        self._closed = False

    @property
    def format(self) -> AudioFormat:
        return self._source.format

    async def switch(self, source: AudioSource) -> None:
        """Read `source` from now on, once the old one has given the chunks it holds; the old one is closed.
        `source` must give the same format. Closed already: `source` is closed too."""
        if source.format != self._source.format:
            raise ValueError(f"a switched source gives {self._source.format}, not {source.format}")
        if self._closed:
            await source.aclose()
            return
        old, self._source = self._source, source
        await old.aclose()  # its stream ends after the chunks it queued: `chunks` then goes on with `source`

    async def chunks(self) -> AsyncIterator[AudioChunk]:
        shift = 0.0
        end_ms: float | None = None
        while True:
            source = self._source
            first = True
            async for chunk in source.chunks():
                if first and end_ms is not None:
                    shift = end_ms - chunk.start_ms  # the new source's clock starts where the old one stopped
                first = False
                moved = chunk if shift == 0.0 else AudioChunk(chunk.format, chunk.pcm, chunk.start_ms + shift)
                end_ms = moved.end_ms
                yield moved
            if self._closed or self._source is source:
                return  # closed, or the source ended by itself (a recording): so does the stream

    async def aclose(self) -> None:
        self._closed = True
        await self._source.aclose()


class SwitchableSink(ForwardingSink):
    async def switch(self, sink: AudioSink) -> None:
        """Play through `sink` from now on; the old sink is closed (what it still held is dropped: switch
        while it is quiet). `sink` must take the same format."""
        if sink.format != self._sink.format:
            raise ValueError(f"a switched sink takes {self._sink.format}, not {sink.format}")
        old, self._sink = self._sink, sink
        await old.aclose()

    async def overlay(self, chunk: AudioChunk) -> None:
        """Over what is queued when the sink in use can (`voice.audio.overlay`: a timer's ring over the
        model's voice), else after it."""
        if isinstance(self._sink, Overlays):
            await self._sink.overlay(chunk)
        else:
            await self._sink.write(chunk)

    def withdraw_overlays(self) -> None:
        """Silence the overlays at once where the sink in use can (what was written after the voice stays)."""
        if isinstance(self._sink, Overlays):
            self._sink.withdraw_overlays()
