"""The one place where the microphone can be muted, and where the level of what Parley hears is measured.

`MicrophoneGate` wraps the microphone's `AudioSource`; every later stage (the wake detector, the pre-roll,
the uplink to the live model) reads through it, so while it is muted nothing the microphone picks up goes
anywhere. It runs wherever the source is read (the assistant's pump task, on the event loop), never on
PortAudio's callback thread.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from voice.audio.chunks import AudioChunk, AudioFormat, AudioSource
from voice.audio.level import LEVEL_INTERVAL_MS, LevelMeter


class MicrophoneGate:
    """An `AudioSource` that passes its source's chunks through, or silence in their place while muted,
    and reports the level of what it passes (`on_level`, dBFS, about every `interval_ms` of audio; never
    while muted)."""

    def __init__(
        self,
        source: AudioSource,
        *,
        on_level: Callable[[float], None] | None = None,
        interval_ms: float = LEVEL_INTERVAL_MS,
    ) -> None:
        self._source = source
        self._on_level = on_level
        self._meter = LevelMeter(interval_ms)
        self._muted = False

    @property
    def format(self) -> AudioFormat:
        return self._source.format

    @property
    def muted(self) -> bool:
        return self._muted

    def set_muted(self, muted: bool) -> bool:
        """Mute or unmute from the next chunk on; True if that changed anything. On the event loop."""
        if muted == self._muted:
            return False
        self._muted = muted
        self._meter.reset()  # a level after unmuting covers only what was heard since
        return True

    async def chunks(self) -> AsyncIterator[AudioChunk]:
        async for chunk in self._source.chunks():
            if self._muted:
                # Silence of the same length and timing, not nothing: the stream stays continuous, so the
                # wake detector's offsets stay true and it hears no wake word; the live model's voice
                # activity detection hears the user stop (a sentence cut by the mute ends as a turn
                # instead of the service waiting on a stream that stopped mid-word); and our idle timer,
                # which counts from transcripts, sees a quiet user, so a muted conversation goes to sleep
                # after `idle_seconds` like a silent one. Sending nothing would need `audio_stream_end`
                # to flush the service's buffered audio, and would leave gaps in every stream offset.
                yield AudioChunk(chunk.format, bytes(len(chunk.pcm)), chunk.start_ms)
                continue
            if self._on_level is not None and (level := self._meter.feed(chunk)) is not None:
                self._on_level(level)
            yield chunk

    async def aclose(self) -> None:
        await self._source.aclose()
