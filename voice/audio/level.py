"""How loud a source is: the settings window's microphone level test, and the live level meter.

Levels are in dBFS (decibels relative to full scale): 0 is the loudest a 16-bit sample can be, digital
silence is `SILENCE_DBFS`. Speech at arm's length from a laptop microphone typically peaks somewhere
around -30 to -10 dBFS; a level that stays near the floor while someone speaks means the wrong device,
a muted input, or no permission to record.
"""

from __future__ import annotations

import math

import numpy as np

from voice.audio.chunks import AudioChunk, AudioSource

LEVEL_INTERVAL_MS = 100.0
"""How much audio a live level report covers: about ten reports a second, enough for a meter to move
smoothly, few enough that the window's event queue never notices."""
SILENCE_DBFS = -96.0
"""The floor reported for digital silence (about the dynamic range of 16-bit samples)."""
_FULL_SCALE = 32768.0


def peak_dbfs(pcm: bytes) -> float:
    """The loudest sample of 16-bit little-endian PCM, in dBFS (`SILENCE_DBFS` for silence or nothing)."""
    samples = np.frombuffer(pcm[: len(pcm) - len(pcm) % 2], dtype="<i2")
    if samples.size == 0:
        return SILENCE_DBFS
    peak = int(np.max(np.abs(samples.astype(np.int32))))
    if peak == 0:
        return SILENCE_DBFS
    return max(SILENCE_DBFS, 20.0 * math.log10(peak / _FULL_SCALE))


async def loudest(source: AudioSource, seconds: float) -> float:
    """Listen to `source` for `seconds` of audio (or until it ends) and return its peak level (dBFS).

    The source is closed afterwards. Raises what the source raises (`NoAudioDevice` for a microphone
    that cannot be opened)."""
    level = SILENCE_DBFS
    heard_ms = 0.0
    try:
        # No `break`: closing the source ends the iteration, and the iteration ending is what closes a
        # microphone's stream (a generator left suspended would hold the device until collected).
        async for chunk in source.chunks():
            level = max(level, peak_dbfs(chunk.pcm))
            heard_ms += chunk.duration_ms
            if heard_ms >= seconds * 1000.0:
                await source.aclose()
    finally:
        await source.aclose()
    return level


class LevelMeter:
    """The live microphone level: the peak (dBFS) of the audio since the last report, reported about every
    `interval_ms` of audio. Pure bookkeeping over `peak_dbfs`, one pass over each chunk's samples.

    Time is stream time (`start_ms`/`end_ms`), not wall time: a microphone reports ten times a second, a
    recording read as fast as possible as often per second of audio. With 80 ms chunks a report is due
    on 4 chunks of every 5; a chunk longer than `interval_ms` gives one report."""

    def __init__(self, interval_ms: float = LEVEL_INTERVAL_MS) -> None:
        if interval_ms <= 0:
            raise ValueError(f"interval_ms must be positive, not {interval_ms}")
        self._interval_ms = interval_ms
        self._peak = SILENCE_DBFS
        self._due_ms: float | None = None

    def feed(self, chunk: AudioChunk) -> float | None:
        """Take in `chunk`; the level to report now (dBFS, `SILENCE_DBFS` to 0), or None until one is due."""
        if self._due_ms is None:
            self._due_ms = chunk.start_ms + self._interval_ms
        self._peak = max(self._peak, peak_dbfs(chunk.pcm))
        if chunk.end_ms < self._due_ms:
            return None
        level, self._peak = self._peak, SILENCE_DBFS
        self._due_ms += self._interval_ms
        if self._due_ms <= chunk.end_ms:
            # A long chunk (or a gap in the stream) covered the next interval too: one report, not a burst.
            self._due_ms = chunk.end_ms + self._interval_ms
        return level

    def reset(self) -> None:
        """Forget what was heard since the last report (the microphone was muted): start afresh."""
        self._peak = SILENCE_DBFS
        self._due_ms = None
