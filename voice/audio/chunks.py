"""Audio values and the two interfaces every stage shares: an `AudioSource` is an async iterable of
chunks; an `AudioSink` plays (or writes) chunks and can drop what it holds at once, for barge-in.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class AudioFormat:
    rate: int
    """Samples per second per channel (Hertz)."""
    channels: int
    width: int = 2
    """Bytes per sample: 2 is signed 16-bit little-endian PCM, the only width Parley moves around."""

    @property
    def bytes_per_second(self) -> int:
        return self.rate * self.channels * self.width

    def duration_ms(self, byte_count: int) -> float:
        return 1000.0 * byte_count / self.bytes_per_second


MIC_FORMAT = AudioFormat(rate=16_000, channels=1)
"""What the wake detector and Gemini Live take in: 16 kHz mono PCM16."""
MODEL_VOICE_FORMAT = AudioFormat(rate=24_000, channels=1)
"""What Gemini Live's native audio models speak: 24 kHz mono PCM16."""


@dataclass(frozen=True, slots=True)
class AudioChunk:
    format: AudioFormat
    pcm: bytes
    """Interleaved little-endian samples in `format`."""
    start_ms: float
    """Start of this chunk relative to the start of its stream (milliseconds)."""

    @property
    def duration_ms(self) -> float:
        return self.format.duration_ms(len(self.pcm))

    @property
    def end_ms(self) -> float:
        return self.start_ms + self.duration_ms


class AudioSource(Protocol):
    @property
    def format(self) -> AudioFormat: ...

    def chunks(self) -> AsyncIterator[AudioChunk]:
        """The stream, in order, until the source ends (a recording) or is closed (a microphone).
        Raises `UnreadableAudio` or `NoAudioDevice` with one clear line."""
        ...

    async def aclose(self) -> None: ...


class AudioSink(Protocol):
    @property
    def format(self) -> AudioFormat: ...

    @property
    def queued_ms(self) -> float:
        """Audio written and not yet played (milliseconds): 0 once the speaker has gone quiet."""
        ...

    async def write(self, chunk: AudioChunk) -> None:
        """Queue `chunk` to be played (or written) after what is already queued."""
        ...

    def clear(self) -> None:
        """Barge-in: drop everything queued and not yet played, at once."""
        ...

    async def drain(self) -> None:
        """Wait until everything queued has been played (or written)."""
        ...

    async def aclose(self) -> None: ...
