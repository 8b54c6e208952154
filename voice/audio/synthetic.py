"""Made-up audio for tests and demos: a source that yields the chunks it is given, and helpers that make
silence, tones and noise as chunks of the right length and timing.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Iterable

import numpy as np

from voice.audio.chunks import MIC_FORMAT, AudioChunk, AudioFormat
from voice.audio.pacing import NoPacer, Pacer, as_async, paced
from voice.audio.pcm import float_to_pcm16, split


class SyntheticSource:
    """Yields the given chunks, in order, as an `AudioSource`. Chunks keep their own `start_ms`.

    `chunks` may be a list (iterable again on every `chunks()` call) or a generator, sync or async
    (consumed once). Every chunk must be in `format`. A `pacer` (none by default) makes it real-time.
    """

    def __init__(
        self,
        chunks: Iterable[AudioChunk] | AsyncIterable[AudioChunk],
        *,
        format: AudioFormat = MIC_FORMAT,
        pacer: Pacer | None = None,
    ) -> None:
        self._source = chunks
        self._format = format
        self._pacer: Pacer = pacer or NoPacer()
        self._closed = False

    @classmethod
    def from_clips(cls, *clips: AudioChunk, frame_ms: int = 80, pacer: Pacer | None = None) -> SyntheticSource:
        """Play `clips` back to back, cut into `frame_ms` frames timed from 0 (see `frames`)."""
        audio_format = clips[0].format if clips else MIC_FORMAT
        return cls(frames(*clips, frame_ms=frame_ms), format=audio_format, pacer=pacer)

    @property
    def format(self) -> AudioFormat:
        return self._format

    async def chunks(self) -> AsyncGenerator[AudioChunk, None]:
        async for chunk in paced(self._checked(), self._pacer, lambda: self._closed):
            yield chunk

    async def aclose(self) -> None:
        """End the stream: an iteration in progress stops before its next chunk."""
        self._closed = True

    async def _checked(self) -> AsyncGenerator[AudioChunk, None]:
        async for chunk in as_async(self._source):
            if chunk.format != self._format:
                raise ValueError(f"chunk format {chunk.format} does not match the source's {self._format}")
            yield chunk


def silence(ms: int, *, format: AudioFormat = MIC_FORMAT, start_ms: float = 0.0) -> AudioChunk:
    """`ms` milliseconds of digital silence."""
    return AudioChunk(format, bytes(_frame_count(ms, format) * format.channels * format.width), start_ms)


def tone(
    ms: int,
    hz: float = 440.0,
    *,
    amplitude: float = 0.5,
    format: AudioFormat = MIC_FORMAT,
    start_ms: float = 0.0,
) -> AudioChunk:
    """A sine of `hz` Hertz at `amplitude` (fraction of full scale), the same on every channel."""
    t = np.arange(_frame_count(ms, format)) / format.rate
    wave = amplitude * np.sin(2 * np.pi * hz * t)
    return AudioChunk(format, float_to_pcm16(np.repeat(wave[:, None], format.channels, axis=1)), start_ms)


def noise(
    ms: int,
    *,
    amplitude: float = 0.1,
    seed: int = 0,
    format: AudioFormat = MIC_FORMAT,
    start_ms: float = 0.0,
) -> AudioChunk:
    """Gaussian white noise with `amplitude` as its standard deviation (fraction of full scale);
    the same `seed` gives the same samples."""
    shape = (_frame_count(ms, format), format.channels)
    samples = np.random.default_rng(seed).normal(0.0, amplitude, size=shape)
    return AudioChunk(format, float_to_pcm16(samples), start_ms)


def frames(*clips: AudioChunk, frame_ms: int = 80, start_ms: float = 0.0) -> list[AudioChunk]:
    """Join clips of one format back to back and cut the result into `frame_ms` chunks timed from
    `start_ms`; the last chunk may be shorter. `frames(silence(400), tone(800))` is 15 frames."""
    if not clips:
        return []
    audio_format = clips[0].format
    if any(clip.format != audio_format for clip in clips):
        raise ValueError("clips of different formats cannot be joined")
    return list(split(b"".join(clip.pcm for clip in clips), audio_format, frame_ms, start_ms=start_ms))


def _frame_count(ms: int, audio_format: AudioFormat) -> int:
    if ms < 0:
        raise ValueError(f"a clip cannot last {ms} ms")
    return round(audio_format.rate * ms / 1000)
