"""Pure sample conversions: PCM16 bytes <-> float arrays, downmixing, resampling, and cutting a stream
into fixed-length chunks. No I/O; every audio source and sink builds on these.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import soxr
from numpy.typing import NDArray

from voice.audio.chunks import AudioChunk, AudioFormat

Samples = NDArray[np.float32]
"""Audio as float32 in [-1, 1], shaped (frames, channels)."""

_PCM16_SCALE = 32768.0
"""int16 <-> float scale. Reading divides by 32768 and writing multiplies back, so 16-bit audio that
needs no resampling or downmixing survives the trip through float32 bit for bit."""


CANCELLED_SHARE = 0.1
"""A downmix holding less than this share of its channels' mean energy cancelled them out: in-phase
channels keep all of it, two unrelated ones half, one channel and its inverse none."""


def frame_samples(audio_format: AudioFormat, frame_ms: int) -> int:
    """Samples per channel in one `frame_ms` frame; the frame must hold a whole number of samples."""
    if frame_ms <= 0:
        raise ValueError(f"frame length must be positive, got {frame_ms} ms")
    samples, remainder = divmod(audio_format.rate * frame_ms, 1000)
    if remainder:
        raise ValueError(f"{frame_ms} ms is not a whole number of samples at {audio_format.rate} Hz")
    return samples


def pcm16_to_float(pcm: bytes, channels: int) -> Samples:
    """Interleaved little-endian PCM16 -> float32 (frames, channels)."""
    ints = np.frombuffer(pcm, dtype="<i2")
    if ints.size % channels:
        raise ValueError(f"{len(pcm)} bytes is not a whole number of {channels}-channel PCM16 frames")
    return (ints.astype(np.float32) / _PCM16_SCALE).reshape(-1, channels)


def float_to_pcm16(samples: NDArray[np.floating]) -> bytes:
    """float (frames, channels) or (frames,) -> interleaved little-endian PCM16, clipped to full scale. A
    sample that is not a number (a damaged float recording) is silence, infinities full scale."""
    finite = np.nan_to_num(np.asarray(samples, dtype=np.float64), nan=0.0, posinf=1.0, neginf=-1.0)
    scaled = np.rint(finite * _PCM16_SCALE)
    return np.clip(scaled, -32768, 32767).astype("<i2").tobytes()


def to_mono(samples: Samples) -> Samples:
    """Average the channels: (frames, channels) -> (frames, 1). Channels that cancel out in the average
    (a stereo recording with one channel's polarity inverted: silence, that Whisper reads as its prompt)
    give their loudest channel instead."""
    if samples.shape[1] == 1:
        return samples
    mean = np.asarray(samples.mean(axis=1, dtype=np.float32, keepdims=True), dtype=np.float32)
    energies = np.square(samples, dtype=np.float64).sum(axis=0)
    if float(np.square(mean, dtype=np.float64).sum()) >= CANCELLED_SHARE * float(energies.mean()):
        return mean
    return np.ascontiguousarray(samples[:, [int(energies.argmax())]])


def resample(samples: Samples, from_rate: int, to_rate: int) -> Samples:
    """Whole-signal high-quality resampling (libsoxr "HQ"); keeps the (frames, channels) shape."""
    if from_rate == to_rate or samples.shape[0] == 0:
        return samples
    converted = soxr.resample(samples, from_rate, to_rate, quality="HQ")
    return np.asarray(converted, dtype=np.float32).reshape(-1, samples.shape[1])


def convert(samples: Samples, rate: int, target: AudioFormat) -> bytes:
    """A decoded recording at `rate` -> PCM16 bytes in `target` (its channels as `mapped` makes them)."""
    return float_to_pcm16(resample(mapped(samples, target.channels), rate, target.rate))


def mapped(samples: Samples, channels: int) -> Samples:
    """`samples` on `channels` channels: downmixed to mono, or mono copied to every channel; other channel
    layouts must already match."""
    if channels == 1:
        return to_mono(samples)
    if samples.shape[1] == 1:
        return np.repeat(samples, channels, axis=1)
    if samples.shape[1] != channels:
        raise ValueError(f"cannot map {samples.shape[1]} channels onto {channels}")
    return samples


def split(pcm: bytes, audio_format: AudioFormat, frame_ms: int, *, start_ms: float = 0.0) -> Iterator[AudioChunk]:
    """Cut a stream into `frame_ms` chunks timed from `start_ms`. The last chunk holds whatever is left
    and may be shorter: never padded, so the chunks carry exactly the samples given."""
    step = frame_samples(audio_format, frame_ms) * audio_format.channels * audio_format.width
    for offset in range(0, len(pcm), step):
        yield AudioChunk(
            format=audio_format,
            pcm=pcm[offset : offset + step],
            start_ms=start_ms + audio_format.duration_ms(offset),
        )
